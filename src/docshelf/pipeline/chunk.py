"""Structure-first, token-exact chunking.

A document is cut at headings first (a chunk never spans two sections), then blocks are
packed into chunks; a block too big for one chunk is split at paragraphs, then sentences,
then token boundaries. A code block is never split unless it alone is over the limit (then
at line boundaries, each part re-fenced). Sizes are counted with the embedding model's own
tokenizer on the exact text that gets embedded: title + heading breadcrumb + body.

Counting is batched: a document's prefixes, blocks, sentences and code lines are each measured
in one tokenizer call. With a tokenizer whose counts add up over whitespace-joined parts
(``whitespace_additive``: BERT's WordPiece splits words at whitespace, so no token spans
one), a candidate chunk's size is the sum of its parts' sizes instead of a fresh tokenization
of the growing text: the same sizes, so the same chunks, in a fraction of the calls.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass, replace

from ..models import Block, ParsedDocument
from ..protocols import Tokenizer

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
MIN_BODY_TOKENS = 24


@dataclass(frozen=True)
class ChunkDraft:
    """A chunk before it knows its document's identity (collection, id…)."""

    chunk_index: int
    heading_path: tuple[str, ...]
    text: str
    embed_text: str
    page: int | None
    start_line: int | None
    end_line: int | None
    overlap: int = 0  # leading characters of ``text`` repeated from the previous chunk
    tokens: int | None = None  # tokens of ``embed_text`` (specials included), when the chunker knows them


@dataclass(frozen=True)
class _Piece:
    text: str
    page: int | None
    start_line: int | None
    end_line: int | None
    is_code: bool = False
    sep: str = "\n\n"  # what stood before this piece in the source when it continues a block
    tokens: int | None = None  # its token count, when splitting already measured it
    exact: int | None = None  # ``count(text)`` exactly (``tokens`` may be a window's count in context)


def embed_prefix(title: str, heading_path: tuple[str, ...]) -> str:
    """The context line(s) put before a chunk's body when it is embedded and searched."""
    crumb = " > ".join(h for h in heading_path if h and h != title)
    parts = [p for p in (title.strip(), crumb) if p]
    return "\n".join(parts) + "\n\n" if parts else ""


def chunk_id(root: str, path: str, index: int, embed_text: str) -> str:
    """Deterministic: the same document content always yields the same ids."""
    h = hashlib.sha256(f"{root}\x00{path}\x00{index}\x00{embed_text}".encode())
    return h.hexdigest()[:24]


class Chunker:
    def __init__(self, tokenizer: Tokenizer, max_tokens: int, overlap: int = 32) -> None:
        if max_tokens < 32:
            raise ValueError("max_tokens must be at least 32")
        self.tok = tokenizer
        self.max_tokens = max_tokens
        self.overlap = max(0, min(overlap, max_tokens // 4))
        # count(a + whitespace + b) == count(a) + count(b) - 2 for this tokenizer: sizes by arithmetic.
        self.additive = bool(getattr(tokenizer, "whitespace_additive", False))

    # -- public -----------------------------------------------------------------------
    def chunk(self, doc: ParsedDocument) -> list[ChunkDraft]:
        sections = _sections(doc.blocks)
        firsts = self._count_many([embed_prefix(doc.title, path) for path, _ in sections])
        prefixes = [self._fit_prefix(doc.title, path, first) for (path, _), first in zip(sections, firsts, strict=True)]
        # Every block whose size decides something, measured in one call.
        wanted: dict[str, None] = {}
        for (_, blocks), (_, prefix_tokens) in zip(sections, prefixes, strict=True):
            budget = self.max_tokens - prefix_tokens
            for block in blocks:
                text = block.text.strip("\n")
                if text.strip() and len(text) <= budget * 8 and (self.additive or len(text) + 2 > budget):
                    wanted.setdefault(text)
        measured = dict(zip(wanted, self._count_many(list(wanted)), strict=True))
        split = [
            [piece for block in blocks for piece in self._split_block(block, self.max_tokens - prefix_tokens, measured)]
            for (_, blocks), (_, prefix_tokens) in zip(sections, prefixes, strict=True)
        ]
        if self.additive:  # the few pieces not measured on their own yet (cut code, token windows)
            split = self._measure_all(split)
        drafts: list[ChunkDraft] = []
        for (heading_path, _), (prefix, prefix_tokens), pieces in zip(sections, prefixes, split, strict=True):
            for body, overlap, tokens in self._pack(prefix, prefix_tokens, pieces):
                first, last = body[0], body[-1]
                starts = [p.start_line for p in body if p.start_line is not None]
                ends = [p.end_line for p in body if p.end_line is not None]
                text = _join(body)
                drafts.append(
                    ChunkDraft(
                        chunk_index=len(drafts),
                        heading_path=heading_path,
                        text=text,
                        embed_text=prefix + text,
                        page=first.page if first.page is not None else last.page,
                        start_line=min(starts) if starts else None,
                        end_line=max(ends) if ends else None,
                        overlap=overlap,
                        tokens=tokens,
                    )
                )
        return drafts

    def fits(self, text: str) -> bool:
        return self.tok.count(text) <= self.max_tokens

    # -- helpers ----------------------------------------------------------------------
    def _count_many(self, texts: list[str]) -> list[int]:
        """``count`` of each text, in one tokenizer call when the tokenizer offers one."""
        if not texts:
            return []
        many = getattr(self.tok, "count_many", None)
        return list(many(texts)) if many is not None else [self.tok.count(t) for t in texts]

    def _measure_all(self, sections: list[list[_Piece]]) -> list[list[_Piece]]:
        """Give every piece its exact count (one call for all that lack it)."""
        todo = list(dict.fromkeys(p.text for pieces in sections for p in pieces if p.exact is None))
        counts = dict(zip(todo, self._count_many(todo), strict=True))
        return [[p if p.exact is not None else replace(p, exact=counts[p.text]) for p in pieces] for pieces in sections]

    def _size(self, prefix: str, prefix_tokens: int, pieces: list[_Piece]) -> int:
        """``count(prefix + _join(pieces))``: by arithmetic when counts add up, else tokenized."""
        if self.additive:
            return prefix_tokens + sum(p.exact - 2 for p in pieces)  # type: ignore[operator]
        return self.tok.count(prefix + _join(pieces))

    def _fit_prefix(self, title: str, heading_path: tuple[str, ...], tokens: int) -> tuple[str, int]:
        """Title + breadcrumb, shortened until it leaves room for a real body, and its token count
        (``tokens``: the count of the full title + breadcrumb)."""
        limit = self.max_tokens - MIN_BODY_TOKENS - 8
        prefix = embed_prefix(title, heading_path)
        path = heading_path
        while tokens > limit and len(path) > 1:
            path = path[1:]
            prefix = embed_prefix(title, path)
            tokens = self.tok.count(prefix)
        if tokens > limit:
            prefix = self._cut_tokens(prefix, limit // 2)[0].rstrip() + "\n\n"
            tokens = self.tok.count(prefix)
        return prefix, tokens

    def _pack(self, prefix: str, prefix_tokens: int, pieces: list[_Piece]):
        """Greedily fill chunks; carry a short tail of prose into the next chunk as overlap.

        Yields (pieces, overlap characters, tokens of prefix + pieces or None when not known).
        """
        current: list[_Piece] = []
        overlap = 0
        for piece in pieces:
            candidate = current + [piece]
            too_big = current and (
                self._surely_too_big(prefix, candidate) or self._size(prefix, prefix_tokens, candidate) > self.max_tokens
            )
            if too_big:
                yield current, overlap, self._known(prefix_tokens, current)
                tail = self._overlap_tail(prefix, prefix_tokens, current, piece)
                overlap = len(_join(tail)) + len(piece.sep) if tail else 0
                current = tail + [piece]
            else:
                current = candidate
        if current:
            yield current, overlap, self._known(prefix_tokens, current)

    def _known(self, prefix_tokens: int, pieces: list[_Piece]) -> int | None:
        return prefix_tokens + sum(p.exact - 2 for p in pieces) if self.additive else None  # type: ignore[operator]

    def _surely_too_big(self, prefix: str, pieces: list[_Piece]) -> bool:
        """True when the pieces' measured token counts alone exceed the limit (no tokenizing).

        Only ever shortens a chunk, so the limit holds; it keeps a huge block (a 5 MB line)
        linear: its token windows are never re-tokenized in pairs.
        """
        known = [p.tokens for p in pieces]
        if any(n is None for n in known):
            return False
        return sum(known) - 2 * (len(known) - 1) > self.max_tokens + 8  # type: ignore[arg-type]

    def _overlap_tail(self, prefix: str, prefix_tokens: int, done: list[_Piece], nxt: _Piece) -> list[_Piece]:
        if not self.overlap or nxt.is_code:
            return []
        tail: list[_Piece] = []
        used = 0
        for piece in reversed(done):
            if piece.is_code:
                break
            known = piece.tokens if piece.tokens is not None else piece.exact
            cost = (known if known is not None else self.tok.count(piece.text)) - 2
            if used + cost > self.overlap:
                break
            tail.insert(0, piece)
            used += cost
        if tail and self._size(prefix, prefix_tokens, tail + [nxt]) > self.max_tokens:
            return []
        return tail

    def _split_block(self, block: Block, budget: int, measured: dict[str, int]) -> list[_Piece]:
        """``measured``: token counts of block texts, taken beforehand in one call."""
        text = block.text.strip("\n")
        if not text.strip():
            return []
        n = measured.get(text)
        piece = _Piece(text, block.page, block.start_line, block.end_line, block.kind == "code", exact=n)
        # A token spans >= 1 char; a text over 8 chars per token of budget is split unmeasured.
        if len(text) + 2 <= budget:
            return [piece]
        if len(text) <= budget * 8:
            if n is None:
                n = self.tok.count(text)
            if n <= budget:
                return [replace(piece, exact=n)]
        if block.kind == "code":
            return self._split_code(block, text, budget)
        return self._split_prose(block, text, budget)

    def _split_prose(self, block: Block, text: str, budget: int) -> list[_Piece]:
        """Paragraphs, then sentences, then token windows: the largest unit that fits."""
        newlines = [m.start() for m in re.finditer("\n", text)]
        # The text's lines are the source's, or mapped to them; otherwise the parser joined source
        # lines (an HTML paragraph set over 20 lines is one line of text), and no line of the text
        # says where a part lies: each part cites the block's lines, which hold it.
        mapped = bool(block.line_map) or block.start_line is None or block.end_line is None \
            or block.end_line - block.start_line == len(newlines)

        def line_at(offset: int, end: bool = False) -> int | None:  # bisect: linear overall, even for a huge block
            if not mapped:
                return block.end_line if end else block.start_line
            index = bisect.bisect_left(newlines, offset)
            if block.line_map:  # the text's lines are not consecutive source lines
                return block.line_map[min(index, len(block.line_map) - 1)]
            return None if block.start_line is None else block.start_line + index

        units: list[tuple[int, int]] = []  # char spans in text
        pos = 0
        for m in _SENTENCE_END.finditer(text):
            if m.start() > pos:
                units.append((pos, m.start()))
            pos = m.end()
        if pos < len(text):
            units.append((pos, len(text)))
        sentences = [text[start:end] for start, end in units]
        # A sentence over 8 chars per token of budget is cut into windows unmeasured.
        countable = [s for s in sentences if len(s) + 2 <= budget * 8]
        counts = iter(self._count_many(countable))
        pieces: list[_Piece] = []
        prev_end = 0
        for (start, end), sentence in zip(units, sentences, strict=True):
            tokens = None if len(sentence) + 2 > budget * 8 else next(counts)
            if tokens is not None and tokens <= budget:
                spans, sizes = [(start, end)], [tokens]
            else:  # too big: cut into token windows (measured once, while cutting)
                windows = self._token_windows(sentence, budget)
                spans = [(start + a, start + b) for a, b, _ in windows]
                sizes = [None if n is None else n + 2 for _, _, n in windows]
            whole = len(spans) == 1 and tokens is not None and tokens <= budget
            for (a, b), size in zip(spans, sizes, strict=True):
                piece_text = text[a:b].strip()
                if not piece_text:
                    continue
                sep = "\n" if pieces and "\n" in text[prev_end:a] else " "
                pieces.append(
                    _Piece(piece_text, block.page, line_at(a), line_at(b, end=True), sep="\n\n" if not pieces else sep,
                           tokens=size, exact=size if whole and piece_text == sentence else None)
                )
                prev_end = b
        return pieces

    def _token_windows(self, text: str, budget: int) -> list[tuple[int, int, int | None]]:
        """(start, end, tokens) windows of at most ``budget - 4`` tokens each, covering ``text``.

        Windows meet end to end, so a character the tokenizer drops (a private-use or control
        character) stays in the text of the window around it. ``tokens`` is the window's token
        count in the whole text; None when the window cuts a word (its parts may tokenize
        differently on their own, so it must be measured again).
        """
        spans = self.tok.token_spans(text)
        if not spans:
            return [(0, len(text), None)]
        size = max(8, budget - 4)
        starts = list(range(0, len(spans), size))
        windows: list[tuple[int, int, int | None]] = []
        start_clean = True
        for n, i in enumerate(starts):
            group = spans[i : i + size]
            last = n + 1 == len(starts)
            token_end = group[-1][1]
            end_clean = last or not text[token_end].isalnum() or not text[token_end - 1].isalnum()
            begin = 0 if n == 0 else windows[-1][1]
            end = len(text) if last else spans[i + size][0]
            windows.append((begin, end, len(group) if start_clean and end_clean else None))
            start_clean = end_clean
        return windows

    def _cut_tokens(self, text: str, n: int) -> tuple[str, str]:
        spans = self.tok.token_spans(text)
        if len(spans) <= n:
            return text, ""
        cut = spans[n - 1][1]
        return text[:cut], text[cut:]

    def _split_code(self, block: Block, text: str, budget: int) -> list[_Piece]:
        """Split an oversized code block at lines; each part keeps its fence so it stays code."""
        lines = text.split("\n")
        opener = closer = ""
        m = _FENCE.match(lines[0])
        if m and len(lines) > 1 and lines[-1].strip().startswith(m.group(2)[:3]):
            opener, closer = lines[0], lines[-1]
            body, first_line = lines[1:-1], 1
        else:
            body, first_line = lines, 0
        wrap_cost = self.tok.count(opener + "\n\n" + closer) if opener else 0
        pieces: list[_Piece] = []
        current: list[str] = []
        current_start = first_line

        def flush(end_index: int) -> None:
            if not current:
                return
            part = "\n".join(current)
            if opener:
                part = f"{opener}\n{part}\n{closer}"
            if block.line_map:  # the text's lines are not consecutive source lines (an included listing)
                last = len(block.line_map) - 1
                start, end = block.line_map[min(current_start, last)], block.line_map[min(end_index, last)]
            else:
                start = block.start_line + current_start if block.start_line is not None else None
                end = block.start_line + end_index if block.start_line is not None else None
            pieces.append(_Piece(part, block.page, start, end, True))

        line_tokens = self._count_many(body)
        current_tokens = 0  # count("\n".join(current)), kept when counts add up
        for offset, line in enumerate(body):
            index = first_line + offset
            if line_tokens[offset] + wrap_cost > budget:  # one enormous line: token windows
                flush(index - 1)
                current, current_start = [], index + 1
                for a, b, _ in self._token_windows(line, budget - wrap_cost):
                    part = line[a:b]
                    part = f"{opener}\n{part}\n{closer}" if opener else part
                    ln = block.start_line + index if block.start_line is not None else None
                    pieces.append(_Piece(part, block.page, ln, ln, True))
                continue
            trial = current + [line]
            if current:
                joined = current_tokens + line_tokens[offset] - 2 if self.additive else self.tok.count("\n".join(trial))
            else:
                joined = line_tokens[offset]
            if current and joined + wrap_cost > budget:
                flush(index - 1)
                current, current_start, current_tokens = [line], index, line_tokens[offset]
            else:
                if not current:
                    current_start = index
                current, current_tokens = trial, joined
        flush(first_line + len(body) - 1)
        return pieces


def _join(pieces: list[_Piece]) -> str:
    """Pieces of one split block rejoin with their original separator; blocks with a blank line."""
    out = []
    for i, p in enumerate(pieces):
        if i:
            out.append(p.sep)
        out.append(p.text)
    return "".join(out)


def _sections(blocks: tuple[Block, ...]) -> list[tuple[tuple[str, ...], list[Block]]]:
    """Consecutive blocks under the same heading path (and page). Heading blocks become the breadcrumb."""
    sections: list[tuple[tuple[str, ...], list[Block]]] = []
    for block in blocks:
        path = block.heading_path
        if block.kind == "heading":
            sections.append((path, []))
            continue
        # A new page starts a new section too, so every chunk cites exactly one page.
        new_page = bool(sections and sections[-1][1] and sections[-1][1][-1].page != block.page)
        if not sections or sections[-1][0] != path or new_page:
            sections.append((path, []))
        sections[-1][1].append(block)
    out = []
    for path, body in sections:
        if body:
            out.append((path, body))
    # A document of headings only still deserves a chunk per heading.
    if not out:
        out = [(b.heading_path, [Block("paragraph", b.text, b.heading_path, b.page, b.start_line, b.end_line)])
               for b in blocks if b.kind == "heading"]
    return out

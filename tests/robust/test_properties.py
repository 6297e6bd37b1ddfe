"""Property-based tests (hypothesis): the chunker, the parsers on random bytes, query and filter parsing.

- Chunker: every non-blank character of the input lands in a chunk, in order; every chunk's
  embedded text fits the model's token limit (real packaged tokenizer); line and page
  citations point at source text that holds the chunk.
- Parsers: any bytes, under any suffix, give a document or a ParseError, nothing else.
- Filters: quotes, unicode, SQL-looking strings in tags, paths, collections and fields never
  break the store's SQL; a real LanceDB store returns exactly what a Python reference
  filter selects.
- Queries: any text in any mode is answered or refused with InvalidQuery.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from docshelf import globs
from docshelf.embedders.fake import FakeEmbedder
from docshelf.embedders.onnx_minilm import OnnxMiniLM
from docshelf.errors import InvalidQuery, ParseError
from docshelf.models import Block, Chunk, DocumentRecord, ParsedDocument, SearchFilters
from docshelf.pipeline.chunk import Chunker
from docshelf.pipeline.parsers import default_registry
from docshelf.search.engine import MODES, Searcher
from docshelf.stores.filters import field_token, glob_to_regex
from docshelf.stores.lancedb_store import LanceStore

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                            HealthCheck.too_slow])
TOKENIZER = OnnxMiniLM().tokenizer  # the packaged model's own tokenizer (no weights loaded)
REGISTRY = default_registry()


def nonblank(text: str) -> str:
    return re.sub(r"\s+", "", text)


# -- chunker ---------------------------------------------------------------------------------
WORDS = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
                min_size=1, max_size=25)
SENTENCE = st.lists(WORDS, min_size=1, max_size=40).map(" ".join).map(lambda s: s + ".")
PARAGRAPH = st.lists(SENTENCE, min_size=1, max_size=12).map(" ".join)
LONG_LINE = st.integers(300, 1500).map(lambda n: " ".join(f"w{i}x" for i in range(n)))


def _chunk_bodies(chunks) -> str:
    """Chunk texts less the part each repeats from the chunk before."""
    return "".join(nonblank(c.text[c.overlap:]) for c in chunks)


@pytest.fixture(scope="module", params=[64, 256], ids=["64-tokens", "256-tokens"])
def chunker(request):
    return Chunker(TOKENIZER, request.param, overlap=16)


SMALL = Chunker(TOKENIZER, 64, overlap=16)  # small chunks: every split path runs on short inputs


def test_a_character_the_tokenizer_drops_stays_in_its_chunk():
    """Found by the property below: token windows skipped text between tokens (U+F0000 vanished)."""
    text = " ".join(f"w{i}\U000f0000x" for i in range(200))
    chunks = SMALL.chunk(ParsedDocument("t", (Block("paragraph", text, (), None, 1, 1),), "text"))
    assert len(chunks) > 3
    assert _chunk_bodies(chunks) == nonblank(text)


@SETTINGS
@given(paragraphs=st.lists(st.one_of(PARAGRAPH, LONG_LINE), min_size=1, max_size=6),
       title=st.text(max_size=300))
def test_chunker_keeps_every_character_within_the_token_limit(chunker, paragraphs, title):
    blocks = tuple(Block("paragraph", p, ("Section",), None, i + 1, i + 1) for i, p in enumerate(paragraphs))
    chunks = chunker.chunk(ParsedDocument(title or "t", blocks, "text"))
    assert _chunk_bodies(chunks) == "".join(nonblank(p) for p in paragraphs)
    for c in chunks:
        assert TOKENIZER.count(c.embed_text) <= chunker.max_tokens, (len(c.embed_text), c.embed_text[:80])
        assert c.embed_text.endswith(c.text)


@SETTINGS
@given(paragraphs=st.lists(st.one_of(PARAGRAPH, LONG_LINE, st.sampled_from(["- a\n- b\n- c", "```\ncode\n```"])),
                           min_size=1, max_size=8))
@example(paragraphs=["0 <!--.", "0."])  # an unclosed comment hid the rest of its paragraph
def test_markdown_line_citations_point_at_the_chunk_text(paragraphs):
    chunker = SMALL
    source = "# Title\n\n" + "\n\n".join(paragraphs) + "\n"
    lines = source.split("\n")
    doc = REGISTRY.parse(Path("n.md"), source.encode())
    chunks = chunker.chunk(doc)
    assert chunks
    for c in chunks:
        assert c.start_line is not None and 1 <= c.start_line <= c.end_line <= len(lines)
        cited = nonblank("\n".join(lines[c.start_line - 1 : c.end_line]))
        body = nonblank(c.text)
        if not body.startswith("```"):  # a split fence is re-fenced per part
            assert body in cited, (c.start_line, c.end_line, c.text[:80])


@SETTINGS
@given(pages=st.lists(st.lists(st.one_of(PARAGRAPH, LONG_LINE), min_size=0, max_size=3), min_size=1, max_size=4))
def test_page_citations_point_at_the_page_that_holds_the_text(pages):
    chunker = SMALL
    blocks = tuple(Block("paragraph", p, (), number) for number, texts in enumerate(pages, 1) for p in texts)
    assume(blocks)
    chunks = chunker.chunk(ParsedDocument("doc", blocks, "pdf", page_count=len(pages)))
    assert _chunk_bodies(chunks) == "".join(nonblank(b.text) for b in blocks)
    for c in chunks:
        page_text = "".join(nonblank(b.text) for b in blocks if b.page == c.page)
        assert nonblank(c.text) in page_text


# -- parsers on random bytes -------------------------------------------------------------------
SUFFIXES = [".md", ".html", ".pdf", ".docx", ".txt", ".py", ".rst", ".unknown", ""]


def _seed_files() -> list[bytes]:
    from docx import Document
    from reportlab.pdfgen import canvas
    import io

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    c.drawString(72, 720, "A page of text.")
    c.showPage()
    c.save()
    pdf = buf.getvalue()
    buf = io.BytesIO()
    d = Document()
    d.add_heading("Title", 1)
    d.add_paragraph("Some text.")
    d.save(buf)
    return [pdf, buf.getvalue(), b"---\ntags: [a]\n---\n# T\n\ntext\n", b"<html><body><p>x</p></body></html>"]


SEEDS = _seed_files()


@st.composite
def mutated(draw):
    """A valid file with a few bytes flipped, a slice cut out, or truncated."""
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(0, 8))):
        i = draw(st.integers(0, len(data) - 1))
        data[i] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        a = draw(st.integers(0, len(data)))
        b = draw(st.integers(a, len(data)))
        del data[a:b]
    return bytes(data)


@settings(max_examples=120, deadline=None)
@given(data=st.one_of(st.binary(max_size=3000), mutated()), suffix=st.sampled_from(SUFFIXES))
def test_parsers_give_a_document_or_a_parse_error(data, suffix):
    path = Path(f"file{suffix}")
    try:
        doc = REGISTRY.parse(path, data)
    except ParseError as exc:
        assert exc.reason and "Traceback" not in exc.reason
        return
    assert isinstance(doc, ParsedDocument)
    assert all(isinstance(b.text, str) for b in doc.blocks)
    json.dumps(doc.metadata, default=str)  # the indexer stores it as JSON


# -- filters: SQL built from hostile strings ---------------------------------------------------
HOSTILE = [
    "plain", "O'Brien", "''", "'", "a\\b", "\\", "100%", "under_score", "' OR '1'='1", "x'); DROP TABLE chunks;--",
    'dq"uote', "ünïcödé", "日本語", "emoji🙂", "new\nline", "tab\there", "[bracket]", "*star?", "sp ace",
    "İstanbul", "#hash", "a.b", "(paren)", "{brace}", "$dollar", "^caret", "pipe|d", "plus+", "back`tick",
    "semi;colon", "--comment", "/*c*/", "NULL", "null\x00byte",
]
TEXT = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=12))
FIELD_KEYS = ["status", "owner", "x.y", "a-b"]


def _docs():
    """Chunks whose tags, paths, collections and fields all come from the hostile strings."""
    out = []
    for i, word in enumerate(HOSTILE):
        other = HOSTILE[(i * 7 + 3) % len(HOSTILE)]
        path = f"{word}/{other}.md" if i % 3 else f"{word}.md"
        path = re.sub("/+", "/", path).lstrip("/")  # as discovery makes them: relative, no empty segments
        meta = {FIELD_KEYS[i % len(FIELD_KEYS)]: other}
        out.append(dict(path=path, collection=HOSTILE[(i * 5) % len(HOSTILE)], tags=(word, other.lower()),
                        doc_type="doc" if i % 2 else HOSTILE[(i * 11) % len(HOSTILE)], meta=meta))
    return out


DOCS = _docs()


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory):
    store = LanceStore(tmp_path_factory.mktemp("hostile"), 64)
    embedder = FakeEmbedder()
    items = []
    for i, d in enumerate(DOCS):
        text = f"document number {i}"
        chunk = Chunk(id=f"c{i}", root="/r", path=d["path"], collection=d["collection"], doc_type=d["doc_type"],
                      title="t", heading_path=(), chunk_index=0, text=text, embed_text=text, page=None,
                      start_line=1, end_line=1, tags=d["tags"], date=None, metadata_json=json.dumps(d["meta"]))
        record = DocumentRecord(root="/r", path=d["path"], sha256="x", size=1, mtime_ns=1, status="indexed",
                                collection=d["collection"], doc_type=d["doc_type"], chunk_count=1)
        items.append((record, [chunk], np.stack([embedder.embed_documents([text])[0]])))
    store.replace_documents(items)
    return store


def _glob_ok(glob: str, path: str) -> bool:
    return globs.matches(path, [glob.strip()])


def _reference(f: SearchFilters) -> set[str]:
    def keep(d) -> bool:
        tags = {t.lower() for t in d["tags"]}
        want_any = {t.lower().lstrip("#") for t in f.tags_any}
        want_all = {t.lower().lstrip("#") for t in f.tags_all}
        fields = {field_token(k, v) for k, v in d["meta"].items()}
        return (
            (not f.collections or d["collection"] in f.collections)
            and (f.doc_types is None or d["doc_type"] in f.doc_types)
            and (not f.path_prefix or d["path"].startswith(f.path_prefix.lstrip("/")))
            # the reference is pathspec itself (the one glob dialect), not the store's regex translation
            and (not f.path_glob or _glob_ok(f.path_glob, d["path"]))
            and (not want_any or bool(tags & want_any))
            and want_all <= tags
            and all(field_token(k, v) in fields for k, v in f.fields)
        )

    if f.path_glob:
        glob_to_regex(f.path_glob)  # an invalid pattern is refused whatever the documents
    return {d["path"] for d in DOCS if keep(d)}


@st.composite
def filters(draw):
    opt = lambda strategy: draw(st.one_of(st.none(), strategy))  # noqa: E731
    many = st.lists(TEXT, min_size=1, max_size=3).map(tuple)
    return SearchFilters(
        collections=opt(many) or (), doc_types=opt(many), path_prefix=opt(TEXT), path_glob=opt(TEXT),
        tags_any=opt(many) or (), tags_all=opt(st.lists(TEXT, max_size=2).map(tuple)) or (),
        fields=tuple((k, draw(TEXT)) for k in draw(st.lists(st.sampled_from(FIELD_KEYS), max_size=2))),
    )


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(f=filters())
def test_hostile_filters_select_exactly_what_they_say(hostile_store, f):
    try:
        want = _reference(f)
    except InvalidQuery:  # not a pattern (e.g. a lone trailing backslash): the store refuses it too
        with pytest.raises(InvalidQuery):
            hostile_store.vector_search(FakeEmbedder().embed_query("document"), len(DOCS) + 5, f)
        return
    rows = hostile_store.vector_search(FakeEmbedder().embed_query("document"), len(DOCS) + 5, f)
    assert {c.path for c, _ in rows} == want


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(word=st.sampled_from(HOSTILE))
def test_each_hostile_tag_path_and_collection_matches_its_own_documents(hostile_store, word):
    for f in (SearchFilters(tags_any=(word,)), SearchFilters(collections=(word,)), SearchFilters(path_prefix=word),
              SearchFilters(tags_all=(word,)), SearchFilters(doc_types=(word,))):
        rows = hostile_store.vector_search(FakeEmbedder().embed_query("document"), len(DOCS) + 5, f)
        assert {c.path for c, _ in rows} == _reference(f), f


# -- queries -------------------------------------------------------------------------------------
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.one_of(st.text(max_size=200), st.sampled_from(HOSTILE)), mode=st.sampled_from(MODES))
def test_any_query_text_is_answered_or_refused_cleanly(hostile_store, query, mode):
    searcher = Searcher(hostile_store, FakeEmbedder())
    try:
        result = searcher.search(query, k=5, mode=mode)
    except InvalidQuery as exc:
        assert str(exc)
        return
    assert len(result.hits) <= 5

"""A Tokenizer over a Hugging Face ``tokenizers`` file, with truncation and padding set by us.

The upstream all-MiniLM-L6-v2 ``tokenizer.json`` truncates at 128 and pads to a fixed 128;
left alone it would silently embed only half of each 256-token chunk.
"""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path

from tokenizers import Tokenizer as HFTokenizer

# Parts whose token counts add up over whitespace: BERT's normalizer maps characters one by one,
# its pre-tokenizer splits at every whitespace (so no token spans one) and WordPiece works word
# by word; the post-processor only adds the fixed [CLS] ... [SEP] pair.
_ADDITIVE = {"normalizer": {"BertNormalizer"}, "pre_tokenizer": {"BertPreTokenizer"}, "model": {"WordPiece"},
             "post_processor": {"TemplateProcessing", "BertProcessing"}}


class HFTokenizerAdapter:
    """Two views of one tokenizer file: one that counts (no truncation) for the chunker, one
    that truncates at ``max_tokens`` for the model. A search needs only the second, so the
    first (and the JSON read behind ``whitespace_additive``) is built on first use: a cold
    ``docshelf search`` loads the tokenizer on its model thread, beside the imports, and
    Python work there holds the interpreter lock the imports need."""

    def __init__(self, path: Path | str, max_tokens: int) -> None:
        self.max_tokens = max_tokens
        self._path = str(path)
        # For model input: truncated (with the special tokens); the embedder pads each batch
        # itself, after grouping texts by length.
        self._model_tok = HFTokenizer.from_file(self._path)
        self._model_tok.enable_truncation(max_length=max_tokens)
        self._model_tok.no_padding()

    @cached_property
    def _tok(self) -> HFTokenizer:
        tok = HFTokenizer.from_file(self._path)
        tok.no_truncation()
        tok.no_padding()
        return tok

    @cached_property
    def whitespace_additive(self) -> bool:
        """count(a + whitespace + b) == count(a) + count(b) - 2: the chunker sizes chunks by arithmetic."""
        config = json.loads(self._model_tok.to_str())
        return all((config.get(part) or {}).get("type") in kinds for part, kinds in _ADDITIVE.items())

    def count(self, text: str) -> int:
        return len(self._tok.encode(text).ids)

    def count_many(self, texts: list[str]) -> list[int]:
        return [len(e.ids) for e in self._tok.encode_batch(texts)]

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        enc = self._tok.encode(text, add_special_tokens=False)
        return [tuple(o) for o in enc.offsets]  # type: ignore[misc]

    def encode_truncated(self, texts: list[str]):
        """Encodings for the model: special tokens added, cut at ``max_tokens``, not padded."""
        return self._model_tok.encode_batch(texts)

"""A Tokenizer over a Hugging Face ``tokenizers`` file, with truncation and padding set by us.

The upstream all-MiniLM-L6-v2 ``tokenizer.json`` truncates at 128 and pads to a fixed 128;
left alone it would silently embed only half of each 256-token chunk.
"""

from __future__ import annotations

import json
from pathlib import Path

from tokenizers import Tokenizer as HFTokenizer

# Parts whose token counts add up over whitespace: BERT's normalizer maps characters one by one,
# its pre-tokenizer splits at every whitespace (so no token spans one) and WordPiece works word
# by word; the post-processor only adds the fixed [CLS] ... [SEP] pair.
_ADDITIVE = {"normalizer": {"BertNormalizer"}, "pre_tokenizer": {"BertPreTokenizer"}, "model": {"WordPiece"},
             "post_processor": {"TemplateProcessing", "BertProcessing"}}


class HFTokenizerAdapter:
    def __init__(self, path: Path | str, max_tokens: int) -> None:
        self.max_tokens = max_tokens
        self._tok = HFTokenizer.from_file(str(path))
        self._tok.no_truncation()
        self._tok.no_padding()
        # A second instance that truncates (with the special tokens) for model input; the
        # embedder pads each batch itself, after grouping texts by length.
        self._model_tok = HFTokenizer.from_file(str(path))
        self._model_tok.enable_truncation(max_length=max_tokens)
        self._model_tok.no_padding()
        config = json.loads(self._tok.to_str())
        self.whitespace_additive = all((config.get(part) or {}).get("type") in kinds for part, kinds in _ADDITIVE.items())
        """count(a + whitespace + b) == count(a) + count(b) - 2: the chunker sizes chunks by arithmetic."""

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

"""``search/citing.py``: which of a page's chunks is cited when the query's wording names it."""

from __future__ import annotations

from docshelf.models import Chunk
from docshelf.search.citing import cite_what_the_query_names, names_title, only_names, promote_within_page, prose
from docshelf.search.fuse import FusionParams
from docshelf.search.highlight import term_stems
from docshelf.search.phrase import phrase_share

PAGE = {"a1": "a", "a2": "a", "a3": "a", "b1": "b", "b2": "b"}


def test_promote_within_page_trades_the_best_with_the_highest_merit_in_the_band():
    ranked = [("a1", 0.9), ("a2", 0.85), ("b1", 0.8), ("a3", 0.7), ("b2", 0.75)]
    merit = {"a1": 0.0, "a2": 0.5, "a3": 1.0, "b1": 0.0, "b2": 1.0}.__getitem__
    out = promote_within_page(ranked, PAGE, merit, 0.1)
    # a3 (0.7) is outside a's band, b2 (0.75) is inside b's (0.8 × 0.9 = 0.72): a2 and b2 move up
    assert out == [("a2", 0.9), ("a1", 0.85), ("b2", 0.8), ("b1", 0.75), ("a3", 0.7)]
    # every page keeps its best score; band 0 or no better merit changes nothing
    assert promote_within_page(ranked, PAGE, merit, 0.0) == ranked
    assert promote_within_page(ranked, PAGE, lambda k: 0.0, 0.5) == ranked
    # the best chunk's own merit must be beaten, not equalled
    assert promote_within_page(ranked, PAGE, lambda k: 1.0, 0.5) == ranked


def test_names_title_only_when_every_query_term_is_a_title_word():
    assert names_title(term_stems("nested schemas"), "Nesting schemas")
    assert names_title(term_stems("Middleware"), "Middleware")
    assert not names_title(term_stems("nested schemas within itself"), "Nesting schemas")
    assert not names_title([], "Nesting schemas")


def test_only_names_and_prose():
    assert only_names("SchemaOpts") and only_names("on_disconnect close_code")
    assert not only_names("envelope with pre_load") and not only_names("how do I nest schemas")
    text = "Subclass `SchemaOpts` here.\n\n```python\nclass Opts(SchemaOpts):\n    pass\n```\n\nThen use it."
    assert prose(text) == "Subclass `SchemaOpts` here.\n\n\n\nThen use it."


def _chunk(cid: str, index: int, heading: tuple[str, ...], text: str) -> Chunk:
    return Chunk(id=cid, root="/r", path="p.md", collection="c", doc_type="markdown", title="Custom options",
                 heading_path=heading,
                 text=text, embed_text=text, chunk_index=index, start_line=index * 10 + 1, end_line=index * 10 + 9)


def test_cite_what_the_query_names_on_hand_made_chunks():
    chunks = {
        "intro": _chunk("intro", 0, ("Custom options",), "Add custom options by subclassing SchemaOpts."),
        "code": _chunk("code", 1, ("Custom options", "Example"),
                       "```python\nclass NamespaceOpts(SchemaOpts):\n    SchemaOpts.__init__(self)\n```"),
        "msg": _chunk("msg", 2, ("Custom options", "Errors"), 'raise ValidationError("a must be greater than b")'),
        "other": _chunk("other", 3, ("Custom options", "More"), "b must be greater than a, a must be lower"),
    }
    params = FusionParams()

    def cite(query: str, ranked: list[tuple[str, float]]) -> list[tuple[str, float]]:
        return cite_what_the_query_names(
            query, term_stems(query), ranked, chunks,
            lambda words, run, i: phrase_share(words, chunks[i].embed_text.lower(), run), params)

    # a name lookup: the prose mention before the code that uses it
    assert cite("SchemaOpts", [("code", 0.9), ("intro", 0.8)])[0] == ("intro", 0.9)
    assert cite("SchemaOpts", [("code", 0.9), ("intro", 0.6)])[0] == ("code", 0.9)  # outside the band
    # a pasted message: the verbatim run before the reordered words
    assert cite("ValidationError: a must be greater than b", [("other", 0.9), ("msg", 0.85)])[0] == ("msg", 0.9)
    # a query naming the page title: its introduction
    assert cite("custom options", [("code", 0.9), ("intro", 0.7)])[0] == ("intro", 0.9)
    assert cite("custom options example", [("code", 0.9), ("intro", 0.7)])[0] == ("code", 0.9)
    # switched off
    params = FusionParams(cite_band=0.0)
    assert cite("SchemaOpts", [("code", 0.9), ("intro", 0.8)])[0] == ("code", 0.9)

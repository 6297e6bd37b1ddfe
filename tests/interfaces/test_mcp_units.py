"""Pure helpers of the MCP server: the response budget and note-name resolution."""

from __future__ import annotations

import pytest

from docshelf.errors import NotFound
from docshelf.interfaces.mcp_models import SearchHitOut
from docshelf.interfaces.mcp_server import _resolve_note, doc_uri, fit_hits
from docshelf.models import DocumentRecord


def _hit(rank: int, text: str) -> SearchHitOut:
    return SearchHitOut(rank=rank, score=0.5, path=f"d{rank}.md", title="T", heading_path=[], citation=f"d{rank}.md",
                        collection="default", doc_type="doc", chunk_id=f"c{rank}", doc_id=f"i{rank}",
                        uri=doc_uri(f"d{rank}.md"), text=text)


def test_fit_hits_leaves_small_responses_alone() -> None:
    hits = [_hit(1, "short"), _hit(2, "also short")]
    assert fit_hits(hits, 20_000) == (hits, False)


def test_fit_hits_shortens_the_longest_texts_first() -> None:
    hits = [_hit(1, "a" * 100), _hit(2, "b" * 9000), _hit(3, "c" * 9000)]
    out, cut = fit_hits(hits, 6000)
    assert cut is True
    assert out[0].text == "a" * 100 and out[0].text_truncated is False
    assert out[1].text_truncated and out[2].text_truncated and out[1].text.endswith(" …")
    assert len(out[1].text) == len(out[2].text)
    assert sum(len(h.model_dump_json()) for h in out) <= 6000


def _rec(path: str, title: str = "", aliases: tuple[str, ...] = ()) -> DocumentRecord:
    return DocumentRecord(root="/r", path=path, sha256="", size=0, mtime_ns=0, status="indexed",
                          collection="default", doc_type="doc", title=title, aliases=aliases)


def test_resolve_note_by_path_name_link_and_title() -> None:
    records = [_rec("Projects/Alpha.md", "Alpha plan"), _rec("Daily/2024-01-01.md"), _rec("Beta.md", "Beta")]
    assert _resolve_note(records, "Projects/Alpha.md").path == "Projects/Alpha.md"
    assert _resolve_note(records, "Projects/Alpha").path == "Projects/Alpha.md"
    assert _resolve_note(records, "[[alpha|the plan]]").path == "Projects/Alpha.md"
    assert _resolve_note(records, "Alpha plan").path == "Projects/Alpha.md"
    with pytest.raises(NotFound, match="no note named 'Gamma'"):
        _resolve_note(records, "Gamma")
    with pytest.raises(NotFound, match="matches several notes"):
        _resolve_note(records + [_rec("Other/Gamma.md"), _rec("Sub/gamma.md")], "[[Gamma]]")
    # An exact path wins over a same-named note deeper down.
    assert _resolve_note(records + [_rec("Other/Beta.md")], "beta").path == "Beta.md"


def test_resolve_note_by_frontmatter_alias() -> None:
    records = [_rec("Resources/Ingest token.md", "Ingest token", aliases=("API key", "ait")), _rec("Beta.md", "Beta")]
    assert _resolve_note(records, "[[API key]]").path == "Resources/Ingest token.md"
    assert _resolve_note(records, "AIT").path == "Resources/Ingest token.md"
    with pytest.raises(NotFound):
        _resolve_note(records, "API")

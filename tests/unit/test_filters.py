"""Filters in every mode, pushed into the store (evaluated before top-k, never after)."""

from __future__ import annotations

import pytest

from docshelf.errors import InvalidQuery
from docshelf.models import SearchFilters
from docshelf.stores.filters import glob_to_regex, to_sql

MODES = ["keyword", "semantic", "fuzzy", "hybrid"]


def note(title: str, body: str, **front: object) -> str:
    lines = ["---"] + [f"{k}: {v}" for k, v in front.items()] + ["---"] if front else []
    return "\n".join(lines + [f"# {title}", "", body, ""])


@pytest.fixture
def filtered_shelf(make_shelf, fake_embedder, write, tmp_path):
    docs = tmp_path / "docs"
    write(docs, "guides/alpha.md", note("Alpha", "Rotate the signing keys every month.", tags="[security, ops]",
                                        date="2024-01-15", status="draft"))
    write(docs, "guides/beta.md", note("Beta", "Rotate the signing keys with the CLI.", tags="[security]",
                                       date="2024-03-01", status="final"))
    write(docs, "api/gamma.md", note("Gamma", "Rotate signing keys through the API.", tags="[ops]", date="2024-06-30"))
    write(docs, "api/undated.md", note("Undated", "Rotate signing keys, no date given.", type="note"))
    write(docs, "meetings/delta.md", note("Delta", "We discussed how to rotate signing keys.", type="minutes",
                                          date="2024-02-01"))
    shelf = make_shelf(
        fake_embedder, search_doc_types=["doc", "note"],
        collections=[{"name": "api", "include": ["api/**"]}, {"name": "guides", "include": ["guides/**"]}],
    )
    shelf.index([docs])
    return shelf


def found(shelf, mode, **filters) -> list[str]:
    result = shelf.search("rotate signing keys", k=10, mode=mode, filters=SearchFilters(**filters))
    return sorted(h.path for h in result.hits)


@pytest.mark.parametrize("mode", MODES)
def test_each_filter_in_every_mode(filtered_shelf, mode):
    s = filtered_shelf
    # Default scope: doc and note; "minutes" is searched only when named.
    assert found(s, mode) == ["api/gamma.md", "api/undated.md", "guides/alpha.md", "guides/beta.md"]
    assert found(s, mode, doc_types=("minutes",)) == ["meetings/delta.md"]
    assert found(s, mode, collections=("api",)) == ["api/gamma.md", "api/undated.md"]
    assert found(s, mode, collections=("api", "guides"), doc_types=("doc",)) == [
        "api/gamma.md", "guides/alpha.md", "guides/beta.md"
    ]
    # Dates are inclusive; undated documents never match a date filter.
    assert found(s, mode, date_from="2024-01-15", date_to="2024-03-01") == ["guides/alpha.md", "guides/beta.md"]
    assert found(s, mode, date_from="2024-03-01") == ["api/gamma.md", "guides/beta.md"]
    assert found(s, mode, date_to="2024-01-15", doc_types=("doc", "note", "minutes")) == ["guides/alpha.md"]
    assert found(s, mode, path_prefix="guides/") == ["guides/alpha.md", "guides/beta.md"]
    assert found(s, mode, path_prefix="/api") == ["api/gamma.md", "api/undated.md"]
    assert found(s, mode, path_glob="**/*a.md") == ["api/gamma.md", "guides/alpha.md", "guides/beta.md"]
    assert found(s, mode, path_glob="api/*") == ["api/gamma.md", "api/undated.md"]
    assert found(s, mode, tags_any=("ops",)) == ["api/gamma.md", "guides/alpha.md"]
    assert found(s, mode, tags_any=("#Security", "nothing")) == ["guides/alpha.md", "guides/beta.md"]
    assert found(s, mode, tags_all=("security", "ops")) == ["guides/alpha.md"]
    assert found(s, mode, fields=(("status", "Final"),)) == ["guides/beta.md"]
    assert found(s, mode, fields=(("status", "draft"), ("type", "doc"))) == []


@pytest.mark.parametrize("mode", MODES)
def test_a_filter_never_returns_fewer_than_k_while_more_matches_exist(make_shelf, fake_embedder, write, tmp_path, mode):
    """Eighty unfiltered documents outrank the few that match: a post-filter on top-k would find none."""
    docs = tmp_path / "docs"
    for i in range(80):
        write(docs, f"loud/{i:02d}.md", f"# Loud {i}\n\nrotate signing keys rotate signing keys rotate keys {i}")
    topics = ["gardening tomatoes", "baking bread", "sailing knots", "tax forms", "bird songs", "chess openings"]
    for i, topic in enumerate(topics):
        write(docs, f"quiet/{i}.md", f"# Quiet {i}\n\nA long note on {topic} and other things, and once: rotate keys.")
    shelf = make_shelf(fake_embedder)
    shelf.index([docs])
    unfiltered = shelf.search("rotate signing keys", k=5, mode=mode)
    assert all(h.path.startswith("loud/") for h in unfiltered.hits)
    result = shelf.search("rotate signing keys", k=5, mode=mode, filters=SearchFilters(path_prefix="quiet/"))
    assert len(result.hits) == 5
    assert all(h.path.startswith("quiet/") for h in result.hits)


def test_filters_become_one_sql_predicate():
    f = SearchFilters(
        collections=("a", "b"), doc_types=("doc",), date_from="2024-01-01", date_to="2024-12-31",
        path_prefix="/guides/", path_glob="**/*.md", tags_any=("#Ops",), tags_all=("x", "y"),
        fields=(("Status", "Final"),),
    )
    assert to_sql(f) == (
        "collection IN ('a', 'b') AND doc_type IN ('doc') AND date IS NOT NULL AND date >= '2024-01-01' "
        "AND date <= '2024-12-31' AND starts_with(path, 'guides/') AND regexp_like(path, '^(?:.+/)?[^/]*\\.md(?:(/)|$)') "
        "AND array_has_any(tags, ['ops']) AND array_has_all(tags, ['x', 'y']) AND array_has(fields, 'status=final')"
    )
    assert to_sql(SearchFilters()) is None
    assert to_sql(SearchFilters(path_prefix="it's/")) == "starts_with(path, 'it''s/')"


def test_glob_to_regex():
    assert glob_to_regex("docs/*.md") == r"^docs/[^/]*\.md(?:(/)|$)"
    assert glob_to_regex("**/api/?.txt") == r"^(?:.+/)?api/[^/]\.txt(?:(/)|$)"
    with pytest.raises(InvalidQuery, match="gitignore-style"):
        glob_to_regex("!*.md")


def test_a_bad_field_name_is_refused():
    with pytest.raises(InvalidQuery) as exc:
        to_sql(SearchFilters(fields=(("x') OR 1=1 --", "y"),)))
    assert str(exc.value) == "field name \"x') OR 1=1 --\" may hold only letters, digits, '_', '.' and '-'"


def test_a_folder_typed_outside_every_root_scopes_by_the_indexed_path_it_ends_with(filtered_shelf, tmp_path):
    """``--path api/`` typed in a folder that has an ``api/`` of its own (a package beside the
    indexed ``docs/``): the CLI sends it absolute; it is not inside a root, so it is read as the
    indexed ``api/``, not as a scope that matches nothing."""
    (tmp_path / "api").mkdir()
    outside = str(tmp_path / "api") + "/"
    assert filtered_shelf.root_relative(outside) == "api/"
    assert found(filtered_shelf, "keyword", path_prefix=filtered_shelf.root_relative(outside)) == [
        "api/gamma.md", "api/undated.md"]
    assert [d.path for d in filtered_shelf.list_documents(path_prefix=outside).documents] == [
        "api/gamma.md", "api/undated.md"]
    result = filtered_shelf.search("rotate signing keys", k=10, mode="keyword", path_prefix=outside)
    assert sorted(h.path for h in result.hits) == ["api/gamma.md", "api/undated.md"]
    assert filtered_shelf.root_relative(str(tmp_path / "elsewhere") + "/") == str(tmp_path / "elsewhere") + "/"
    assert filtered_shelf.root_relative(str(tmp_path / "docs" / "guides")) == "guides/"

"""A file that a candidate page includes ranks below that page (hybrid; set F, benchmarks/README.md)."""

from __future__ import annotations

from dataclasses import replace

from docshelf.search.fuse import included_paths

TUTORIAL = """# Read one row

## Handle a missing hero

When no row matches the id, the session gives back nothing at all. The endpoint then stops
early and tells the client that the resource does not exist, with the usual status code and a
short message, instead of failing later with a server error that hides what went wrong. The
same check belongs in every endpoint that reads, updates or deletes a single row by its id.

{* docs_src/read_one/app.py *}
"""

APP = """from fastapi import HTTPException


def read_hero(hero_id: int):
    hero = session.get(Hero, hero_id)
    if not hero:
        raise HTTPException(status_code=404, detail="Hero not found")
    return hero
"""

OTHER_PAGES = (
    "# Install\n\nInstall the package with pip inside a virtual environment and import it in your code.\n",
    "# Create tables\n\nCall create_all once at start-up so that every model gets its table.\n",
    "# Relationships\n\nA hero belongs to a team; the team lists its heroes through a relationship.\n",
    "# Sessions\n\nOpen a session per request and close it when the response is sent.\n",
)


def test_included_paths_reads_the_parsers_metadata():
    assert included_paths('{"includes": ["docs_src/a.py", "x.md"], "title": "T"}') == ("docs_src/a.py", "x.md")
    assert included_paths('{"title": "includes nothing"}') == ()
    assert included_paths('{"includes": "not a list"}') == ()


def test_the_page_that_shows_an_example_outranks_the_example_file(shelf, write, tmp_path):
    docs = tmp_path / "docs"
    write(docs, "tutorial/read-one.md", TUTORIAL)
    write(docs, "docs_src/read_one/app.py", APP)
    for n, text in enumerate(OTHER_PAGES):
        write(docs, f"page{n}.md", text)
    shelf.index([docs])
    query = 'raise HTTPException(status_code=404, detail="Hero not found")'

    def ranked(penalty: float) -> list[tuple[str, float]]:
        options = shelf.searcher.options
        shelf.searcher.options = replace(options, fusion=replace(options.fusion, included_penalty=penalty))
        try:
            return [(c.path, s) for c, s in shelf.searcher.hybrid(query, 50, None)]
        finally:
            shelf.searcher.options = options

    before, after = ranked(0.0), ranked(0.3)
    assert before[0][0] == "docs_src/read_one/app.py"  # the bare example matches best without the prior
    assert after[0][0] == "tutorial/read-one.md"
    old, new = dict(before), dict(after)
    assert new["docs_src/read_one/app.py"] == old["docs_src/read_one/app.py"] * 0.7
    assert all(new[p] == old[p] for p in old if p != "docs_src/read_one/app.py")  # nothing else moves
    assert shelf.search(query, k=2, mode="hybrid").hits[0].path == "tutorial/read-one.md"  # the default
    assert shelf.search(query, k=2, mode="keyword").hits[0].path == "docs_src/read_one/app.py"  # single modes unchanged

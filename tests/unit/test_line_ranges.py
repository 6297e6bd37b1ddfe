"""A line range is read exactly: the file's own lines while it is the indexed version, else the
indexed chunks holding them with a note saying so (the citation always names what is returned)."""

from __future__ import annotations

import pytest

from docshelf.errors import NotFound
from docshelf.requests import DocumentRequest

RST = "\n".join([
    "Fixtures", "========", "", "Intro paragraph one.", "",
    "Quick example", "-------------", "", ".. code-block:: python", "",
    *[f"    value_{i} = {i}" for i in range(1, 41)],
    "", "Closing words of the section.", "",
    "Teardown", "--------", "", "Use yield fixtures.", "",
]) + "\n"


@pytest.fixture
def indexed(shelf, tmp_path, write):
    docs = tmp_path / "docs"
    write(docs, "fixtures.rst", RST)
    write(docs, "note.md", "---\ntitle: A note\ntags: [x]\n---\n# Heading\n\nBody line.\n")
    shelf.index([docs])
    return shelf, docs


def read(shelf, path, **kw):
    return shelf.get_document(DocumentRequest(path=path, **kw))


def test_the_requested_lines_exactly_not_the_chunks_around_them(indexed):
    shelf, _ = indexed
    lines = RST.split("\n")
    chunk = read(shelf, "fixtures.rst", lines="20-23")
    assert chunk.text == "\n".join(lines[19:23]) == "    value_10 = 10\n    value_11 = 11\n    value_12 = 12\n    value_13 = 13"
    assert (chunk.start_line, chunk.end_line, chunk.note) == (20, 23, "")
    assert chunk.chunk_ids  # the chunks holding those lines
    one = read(shelf, "fixtures.rst", lines="4")
    assert (one.text, one.start_line, one.end_line) == ("Intro paragraph one.", 4, 4)
    # Lines no chunk holds (frontmatter) are the file's lines too.
    front = read(shelf, "note.md", lines="1-3")
    assert (front.text, front.start_line, front.end_line) == ("---\ntitle: A note\ntags: [x]", 1, 3)


def test_a_range_past_the_end_is_cut_at_the_last_line_and_one_beyond_it_is_an_error(indexed):
    shelf, _ = indexed
    last = len(RST.split("\n")) - 1
    tail = read(shelf, "fixtures.rst", lines=f"{last - 1}-{last + 50}")
    assert (tail.text, tail.start_line, tail.end_line) == ("Use yield fixtures.\n", last - 1, last)
    with pytest.raises(NotFound, match=rf"^fixtures.rst has text on lines 1-{last}; lines 500-600 hold none$"):
        read(shelf, "fixtures.rst", lines="500-600")


def test_lines_within_a_section_stay_inside_it(indexed):
    shelf, _ = indexed
    part = read(shelf, "fixtures.rst", section="Teardown", lines="1-400")
    at = RST.split("\n").index("Use yield fixtures.") + 1
    assert (part.text, part.start_line, part.end_line) == ("Use yield fixtures.", at, at)
    with pytest.raises(NotFound, match="^the requested section or page has text on lines"):
        read(shelf, "fixtures.rst", section="Teardown", lines="1-3")


def test_a_file_changed_since_indexing_gets_the_indexed_chunks_and_a_note(indexed, write):
    shelf, docs = indexed
    write(docs, "fixtures.rst", "Rewritten\n=========\n\nnothing here any more\n")
    doc = read(shelf, "fixtures.rst", lines="20-23")
    assert "value_10 = 10" in doc.text and "Rewritten" not in doc.text
    assert doc.start_line <= 20 and doc.end_line >= 23 and (doc.start_line, doc.end_line) != (20, 23)
    assert doc.note == (f"fixtures.rst changed on disk since it was indexed: this is the indexed text of lines "
                        f"{doc.start_line}-{doc.end_line} (the chunks holding lines 20-23), not the file's "
                        "current lines; re-index it to read exact lines")
    (docs / "fixtures.rst").unlink()
    gone = read(shelf, "fixtures.rst", lines="20-23")
    assert gone.note.startswith(f"fixtures.rst is not on disk under {docs} any more: this is the indexed text")
    whole = read(shelf, "fixtures.rst")  # no line range: the indexed text, nothing to warn about
    assert whole.note == ""


def test_a_passage_inside_one_very_long_line_cites_its_characters_and_get_reads_them(shelf, tmp_path, write):
    """A 700 KB one-line file is hundreds of chunks; 'lines 1-1' on each does not find one. Each hit
    cites its characters in the line, those characters hold its text, and get reads exactly them."""
    import json
    import random

    from docshelf.interfaces.output import citation

    rng = random.Random(7)
    words = "alpha beta gamma delta rotate token ingest server client backup restore widget".split()
    prose = " ".join(rng.choice(words) for _ in range(60_000)) + " zeppelinmarker " + " ".join(words)
    records = [{"id": i, "name": f"item{i}", "desc": " ".join(rng.choice(words) for _ in range(8))} for i in range(6000)]
    docs = tmp_path / "docs"
    write(docs, "dump.txt", "# Dump\n\n" + prose + "\n")
    write(docs, "data.json", json.dumps(records))
    write(docs, "short.md", "# Short\n\nA zeppelinmarker on a short line.\n")
    assert len(prose) > 350_000 and len(json.dumps(records)) > 500_000
    shelf.index([docs])

    for query, path, line, source in (("zeppelinmarker", "dump.txt", 3, prose),
                                      ("item4321", "data.json", 1, json.dumps(records))):
        hits = shelf.search(query, mode="keyword", k=3, path_prefix=path).hits
        hit = hits[0]
        assert (hit.path, hit.start_line, hit.end_line) == (path, line, line)
        assert hit.start_col is not None and hit.end_col is not None, hit
        cited = source[hit.start_col - 1 : hit.end_col]
        assert query in cited and cited.split() == hit.text.split()
        assert citation(hit).endswith(f"(line {line}, chars {hit.start_col}-{hit.end_col})")
        got = read(shelf, path, lines=f"{line}:{hit.start_col}-{hit.end_col}")
        assert (got.text, got.start_line, got.end_line) == (cited, line, line)
        assert len({(h.start_col, h.end_col) for h in hits}) == len(hits)  # each hit its own place

    short = shelf.search("zeppelinmarker", mode="keyword", k=1, path_prefix="short").hits  # a short line: lines only
    assert short and short[0].start_col is None and citation(short[0]).endswith("(lines 3-3)")
    with pytest.raises(NotFound, match="has 1000000 characters|characters 2000000-2000001 hold none"):
        read(shelf, "dump.txt", lines="3:2000000-2000001")

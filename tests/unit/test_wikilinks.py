"""Obsidian wikilinks: readable text in chunks, targets kept as the note's outgoing links."""

from __future__ import annotations

from pathlib import Path

from docshelf.pipeline.parsers.markdown import MarkdownParser
from docshelf.pipeline.parsers.wikilinks import find_wikilinks, render_wikilinks


def test_rendering_reads_as_obsidian_shows_it():
    text = "See [[Apollo budget|the budget]], [[Apollo budget]], [[notes/Q3 plan.md#Risks]] and ![[diagram.png]]."
    assert render_wikilinks(text) == "See the budget, Apollo budget, Q3 plan > Risks and diagram.png."


def test_links_inside_code_spans_are_code():
    text = "Write `[[not a link]]` to link, like [[Real note]]."
    assert render_wikilinks(text) == "Write `[[not a link]]` to link, like Real note."
    assert [l.target for l in find_wikilinks(text)] == ["Real note"]


def test_link_parts():
    (a, b, c, d) = find_wikilinks("[[A|x]] [[dir/B#H 2]] ![[C]] [[#Local]]")
    assert (a.target, a.alias, a.embed) == ("A", "x", False)
    assert (b.target, b.heading) == ("dir/B", "H 2")
    assert c.embed and c.target == "C"
    assert d.target == "" and d.heading == "Local" and d.readable == "Local"


def test_markdown_notes_keep_links_readable_and_record_targets():
    note = (
        "---\nrelated: \"[[Mission log]]\"\n---\n"
        "# Apollo\n\n"
        "The [[Apollo budget|budget]] was cut; see [[Apollo budget#Q3]] and [[#Timeline]].\n\n"
        "## Timeline with [[Saturn V]]\n\n"
        "```\n[[inside code]]\n```\n"
    )
    doc = MarkdownParser().parse(Path("apollo.md"), note.encode())
    para = next(b for b in doc.blocks if b.kind == "paragraph")
    assert para.text == "The budget was cut; see Apollo budget > Q3 and Timeline."
    assert para.start_line == 6  # citations still point at the source line
    heading = [b for b in doc.blocks if b.kind == "heading"][1]
    assert heading.heading_path == ("Apollo", "Timeline with Saturn V")
    code = next(b for b in doc.blocks if b.kind == "code")
    assert "[[inside code]]" in code.text
    assert doc.metadata["links"] == ["Mission log", "Apollo budget", "Saturn V"]
    assert "Timeline" not in doc.metadata.get("tags", [])  # [[#Timeline]] is a link, not a tag

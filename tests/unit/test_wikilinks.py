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


def test_obsidian_comments_and_excalidraw_drawings_are_not_indexed():
    drawing = (
        "---\nexcalidraw-plugin: parsed\ntags: [excalidraw]\n---\n"
        "==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠==\n\n"
        "# Excalidraw Data\n## Text Elements\nLaunch window opens in July ^a1b2c3\n\n"
        "%%\n## Drawing\n```compressed-json\nN4IgLgngDgpiBcIYA2AA\n```\n%%\n"
    )
    doc = MarkdownParser().parse(Path("plan.excalidraw.md"), drawing.encode())
    text = "\n".join(b.text for b in doc.blocks)
    assert "Launch window opens in July" in text
    assert "N4Ig" not in text and "compressed-json" not in text and "EXCALIDRAW VIEW" not in text
    para = next(b for b in doc.blocks if "Launch" in b.text)
    assert para.start_line == 9 and para.text == "Launch window opens in July"


def test_canvas_text_cards_are_read_in_order_with_their_group():
    import json

    from docshelf.pipeline.parsers import default_registry

    board = {"nodes": [
        {"id": "g1", "type": "group", "label": "Risks", "x": 0, "y": 500, "width": 800, "height": 400},
        {"id": "n2", "type": "text", "text": "Budget overrun, see [[Apollo budget]]", "x": 10, "y": 600},
        {"id": "n1", "type": "text", "text": "# Goals\nLand on the moon", "x": 10, "y": 0},
        {"id": "f1", "type": "file", "file": "notes/other.md", "x": 900, "y": 0},
    ], "edges": []}
    data = json.dumps(board, indent=2).encode()
    doc = default_registry().parse(Path("board.canvas"), data)
    assert [b.text for b in doc.blocks] == ["# Goals\nLand on the moon", "Budget overrun, see Apollo budget"]
    assert doc.blocks[1].heading_path == ("Risks",)
    assert doc.metadata["links"] == ["Apollo budget"]
    lines = data.decode().split("\n")
    assert '"n2"' in lines[doc.blocks[1].start_line - 1]


def test_template_folders_of_a_vault_are_skipped(tmp_path):
    import json

    from docshelf.pipeline.discover import IgnoreRules

    (tmp_path / ".obsidian").mkdir()
    assert IgnoreRules(tmp_path).is_ignored("templates/daily.md")
    assert not IgnoreRules(tmp_path).is_ignored("notes/daily.md")
    (tmp_path / ".obsidian" / "templates.json").write_text(json.dumps({"folder": "Meta/Templates"}))
    rules = IgnoreRules(tmp_path)
    assert rules.is_ignored("Meta/Templates/daily.md") and not rules.is_ignored("templates/daily.md")
    plain = tmp_path / "plain"
    plain.mkdir()
    assert not IgnoreRules(plain).is_ignored("templates/page.md")  # not a vault: a folder like any other


def test_para_folder():
    from docshelf.pipeline.obsidian import para_folder

    assert para_folder("1_Projects/apollo/plan.md") == "1_Projects"
    assert para_folder("3 Resources/definitions/api.md") == "3 Resources"
    assert para_folder("Archive/old.md") == "Archive"
    assert para_folder("notes/x.md") is None and para_folder("1_Projects.md") is None


def test_percent_signs_in_ordinary_docs_are_text():
    doc = MarkdownParser().parse(Path("printf.md"), (
        "# printf\n\nUse %%d for a literal, 100%% sure.\n\n```matlab\n%%\nx = 1\n%%\n```\n\n"
        "%%\na hidden comment\n%%\n\nVisible again.\n").encode())
    text = "\n".join(b.text for b in doc.blocks)
    assert "Use %%d for a literal, 100%% sure." in text and "x = 1" in text
    assert "hidden comment" not in text and "Visible again." in text

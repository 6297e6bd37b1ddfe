"""A note-taker's vault as a new user writes it (third new-user pass): slips in frontmatter and
links must not lose a note or hide it from get_note."""

from __future__ import annotations

from pathlib import Path

from docshelf.requests import DocumentRequest


def test_a_note_with_an_impossible_frontmatter_date_is_indexed_not_failed(shelf, write, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, "2_Areas/Running.md", "---\ndate: 2024-13-45\ntags: [health]\n---\nRan along the riverbank.\n")
    report = shelf.index([vault])
    assert report.failed == {} and report.added == ["2_Areas/Running.md"]
    hits = shelf.search("riverbank", mode="keyword").hits
    assert [h.path for h in hits] == ["2_Areas/Running.md"] and hits[0].tags == ("health",)


def test_a_pdf_hit_cites_its_outline_section_and_get_reads_the_section(shelf, tmp_path: Path) -> None:
    from tests.unit.test_parsers import make_manual_with_outline

    docs = tmp_path / "office"
    docs.mkdir()
    (docs / "manual.pdf").write_bytes(make_manual_with_outline())
    assert shelf.index([docs]).failed == {}
    hit = shelf.search("brown wire terminal", mode="keyword").hits[0]
    assert (hit.path, hit.page, hit.heading_path) == ("manual.pdf", 2, ("Installation", "Wiring"))
    section = shelf.get_document(DocumentRequest(path="manual.pdf", section="Maintenance"))
    assert "impeller seal" in section.text and "brown wire" not in section.text and section.pages == (3,)


def test_get_note_takes_a_link_target_written_without_brackets(shelf, write, tmp_path: Path) -> None:
    """Agents copy ``Note#Heading`` or ``Note|alias`` out of a note's text; a file name with a ``#`` still wins."""
    vault = tmp_path / "vault"
    write(vault, "1_Projects/Brand guide.md", "# Brand guide\n\n## Colours\n\nPrimary is teal.\n")
    write(vault, "3_Resources/C# notes.md", "Pattern matching in C#.\n")
    shelf.index([vault])
    for name in ("Brand guide#Colours", "Brand guide|the colours", "Brand guide#Colours|the colours",
                 "[[Brand guide#Colours|the colours]]", "Brand guide#^a1b2"):
        assert shelf.get_note(name).record.path == "1_Projects/Brand guide.md", name
    assert shelf.get_note("C# notes").record.path == "3_Resources/C# notes.md"


def test_search_vault_finds_a_para_folder_by_its_category_and_refuses_one_the_vault_lacks(shelf, write,
                                                                                           tmp_path: Path) -> None:
    """An agent does not know the vault writes "1 Projects": "Projects" finds it, "Inbox" is an error
    naming the folders there are, never a silent empty answer."""
    import pytest

    from docshelf import profiles
    from docshelf.errors import InvalidRequest

    vault = tmp_path / "vault"
    write(vault, "1 Projects/Website.md", "The landing page uses the teal palette.\n")
    write(vault, "3_Resources/Colours.md", "Teal is a blue-green colour.\n")
    shelf.index([vault])
    assert shelf.para_folders() == ["1 Projects", "3_Resources"]
    for name in ("Projects", "project", "1 projects", "1 Projects"):
        request = profiles.vault_request("teal", 5, name, None, para_folders=shelf.para_folders(), mode="keyword")
        assert [h.path for h in shelf.search(request).hits] == ["1 Projects/Website.md"], name
    with pytest.raises(InvalidRequest, match=r"no PARA folder 'Inbox'; its PARA folders: '1 Projects', '3_Resources'"):
        profiles.vault_request("teal", 5, "Inbox", None, para_folders=shelf.para_folders())


def test_broken_frontmatter_is_a_warning_naming_the_note_and_the_line(shelf, write, tmp_path: Path) -> None:
    """The note is indexed (its body searchable), and the user learns why its tags and title did not take."""
    vault = tmp_path / "vault"
    write(vault, "2_Areas/Sleep.md", "---\ntitle: Sleep log\ntags: [health\n---\nSlept seven hours.\n")
    report = shelf.index([vault])
    assert report.added == ["2_Areas/Sleep.md"] and report.failed == {}
    assert [w for w in report.warnings if "Sleep.md" in w] == [
        "2_Areas/Sleep.md: invalid YAML frontmatter at line 3: expected ',' or ']', but got '<stream end>'; "
        "indexed without its frontmatter (title, tags, type, date, aliases)"]

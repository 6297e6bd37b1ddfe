"""Reading documents back through the service: ranges, sections, notes, paging and the response budget."""

from __future__ import annotations

import pytest

from docshelf.documents import heading_key, resolve_note
from docshelf.errors import NotFound
from docshelf.models import DocumentRecord, Hit
from docshelf.requests import DocumentListRequest, DocumentRequest, SearchRequest
from docshelf.search.budget import fit_hits, hit_overhead


def _hit(rank: int, text: str) -> Hit:
    return Hit(chunk_id=f"c{rank}", path=f"d{rank}.md", root="/r", title="T", heading_path=(), collection="default",
               doc_type="doc", text=text, score=0.5, mode="keyword")


def test_fit_hits_leaves_small_responses_alone():
    hits = [_hit(1, "short"), _hit(2, "also short")]
    assert fit_hits(hits, 20_000) == (hits, False)


def test_fit_hits_shortens_the_longest_texts_first():
    hits = [_hit(1, "a" * 100), _hit(2, "b" * 9000), _hit(3, "c" * 9000)]
    out, cut = fit_hits(hits, 6000)
    assert cut is True
    assert out[0] == hits[0]
    assert out[1].text_truncated and out[2].text_truncated and out[1].text.endswith(" …")
    assert len(out[1].text) == len(out[2].text)
    assert sum(len(h.text) + hit_overhead(h) for h in out) <= 6000


def _rec(path: str, title: str = "", aliases: tuple[str, ...] = ()) -> DocumentRecord:
    return DocumentRecord(root="/r", path=path, sha256="", size=0, mtime_ns=0, status="indexed",
                          collection="default", doc_type="doc", title=title, aliases=aliases)


def test_resolve_note_by_path_name_link_and_title():
    records = [_rec("Projects/Alpha.md", "Alpha plan"), _rec("Daily/2024-01-01.md"), _rec("Beta.md", "Beta")]
    assert resolve_note(records, "Projects/Alpha.md").path == "Projects/Alpha.md"
    assert resolve_note(records, "Projects/Alpha").path == "Projects/Alpha.md"
    assert resolve_note(records, "[[alpha|the plan]]").path == "Projects/Alpha.md"
    assert resolve_note(records, "Alpha plan").path == "Projects/Alpha.md"
    with pytest.raises(NotFound, match="no note named 'Gamma'"):
        resolve_note(records, "Gamma")
    with pytest.raises(NotFound, match="matches several notes"):
        resolve_note(records + [_rec("Other/Gamma.md"), _rec("Sub/gamma.md")], "[[Gamma]]")
    # An exact path wins over a same-named note deeper down.
    assert resolve_note(records + [_rec("Other/Beta.md")], "beta").path == "Beta.md"


def test_resolve_note_by_frontmatter_alias():
    records = [_rec("Resources/Ingest token.md", "Ingest token", aliases=("API key", "ait")), _rec("Beta.md", "Beta")]
    assert resolve_note(records, "[[API key]]").path == "Resources/Ingest token.md"
    assert resolve_note(records, "AIT").path == "Resources/Ingest token.md"
    with pytest.raises(NotFound):
        resolve_note(records, "API")


def test_heading_key_ignores_how_a_heading_is_written():
    assert {heading_key(h) for h in ("The `tokens` command", "## the tokens command", "2. The **tokens** command",
                                     "3.1 The tokens   command:")} == {"the tokens command"}
    # DocBook's labels (PostgreSQL's manual): `get --section Indexes` found no "Chapter 11. Indexes"
    assert {heading_key(h) for h in ("Chapter 11. Indexes", "Part II. Indexes", "Appendix F. Indexes",
                                     "F.29. Indexes", "11.3. Indexes", "Indexes")} == {"indexes"}
    assert heading_key("Partial Indexes") == "partial indexes" and heading_key("A note") == "a note"


def test_service_reads_by_doc_id_section_path_and_note(shelf, tmp_path, write):
    write(tmp_path / "docs", "guide.md", "---\naliases: [handbook]\ntags: [ops]\n---\n# Guide\n\nintro\n\n"
                                         "## Setup\n\n### Tokens\n\nrotate\n\n## Tokens\n\nlimits")
    shelf.index([tmp_path / "docs"])
    record = shelf.find_document("guide.md")
    by_id = shelf.get_document(DocumentRequest(doc_id=record.doc_id))
    assert by_id.text == shelf.get_document("guide.md").text and by_id.doc_id == record.doc_id
    # A heading path picks one of two same-named sections; the bare name picks both.
    assert shelf.get_document("guide.md", section="Setup > Tokens").text == "### Tokens\n\nrotate"
    assert shelf.get_document("guide.md", section="tokens").text == "### Tokens\n\nrotate\n\n## Tokens\n\nlimits"
    with pytest.raises(NotFound, match="^no document with doc_id 'nope'"):
        shelf.get_document(DocumentRequest(doc_id="nope"))
    note = shelf.get_note("[[handbook]]", max_chars=100)
    assert (note.record.path, note.aliases, note.metadata["tags"], note.truncated) == (
        "guide.md", ("handbook",), ["ops"], False)


def test_reading_a_document_without_text_says_why(shelf, tmp_path, write):
    """An empty file and a broken PDF read back as no text with the reason, not as a blank page."""
    write(tmp_path / "docs", "empty.md", "")
    write(tmp_path / "docs", "guide.md", "# Guide\n\ntext")
    (tmp_path / "docs" / "broken.pdf").write_bytes(b"not a pdf at all")
    shelf.index([tmp_path / "docs"])
    empty = shelf.get_document("empty.md")
    assert (empty.text, empty.note) == ("", "this file holds no text to index (it is empty, or markup only)")
    broken = shelf.get_document("broken.pdf")
    assert broken.text == "" and broken.note.startswith("this file failed to index: not a valid PDF")
    assert shelf.get_document("guide.md").note == ""


def test_service_search_applies_the_response_budget(shelf, tmp_path, write):
    for i in range(6):
        words = " ".join(f"w{i}x{j}" for j in range(200))  # distinct texts: near-duplicates would be merged
        write(tmp_path / "docs", f"d{i}.md", f"# D{i}\n\nzeppelin hangar maintenance. {words}")
    shelf.index([tmp_path / "docs"])
    whole = shelf.search(SearchRequest(query="zeppelin", mode="keyword", k=6))
    fitted = shelf.search(SearchRequest(query="zeppelin", mode="keyword", k=6, max_chars=5000))
    assert [h.chunk_id for h in fitted.hits] == [h.chunk_id for h in whole.hits]
    assert len(fitted.hits) == 6
    assert all(h.text_truncated for h in fitted.hits) and not any(h.text_truncated for h in whole.hits)
    assert sum(len(h.text) + hit_overhead(h) for h in fitted.hits) <= 5000
    assert "shortened to keep this response under 5000 characters" in fitted.note and whole.note == ""


def test_an_empty_search_in_an_unknown_collection_says_which_collections_exist(shelf, tmp_path, write):
    """``--collection vendor-doc`` (a slip for ``default``) answered "No results. Try --mode fuzzy",
    as if the query were wrong: the note names the collection the index does not hold."""
    write(tmp_path / "docs", "a.md", "# A\n\nzeppelin hangar maintenance.")
    shelf.index([tmp_path / "docs"])
    missed = shelf.search(SearchRequest(query="zeppelin", mode="keyword", collections=("vendor-doc",)))
    assert missed.hits == () and missed.note == "no collection named 'vendor-doc'; the index holds: default"
    found = shelf.search(SearchRequest(query="zeppelin", mode="keyword", collections=("default",)))
    assert found.hits and found.note == ""
    nothing = shelf.search(SearchRequest(query="submarine", mode="keyword", collections=("default",)))
    assert nothing.hits == () and nothing.note == ""
    assert (missed.empty_reason, found.empty_reason, nothing.empty_reason) == ("unknown_collection", "", "no_match")


def test_an_empty_result_says_why_it_is_empty(shelf, tmp_path, write):
    """The interfaces' hints depend on it: a fuzzy-mode hint fits a query no word of which is
    indexed, not filters that leave no document or a --min-score above every hit."""
    def why(**kw):
        result = shelf.search(SearchRequest(**kw))
        return result.empty_reason if not result.hits else "hits"

    assert why(query="zeppelin") == why(query="zeppelin", tags_any=("ops",)) == "empty_index"  # nothing indexed yet
    write(tmp_path / "docs", "a.md", "---\ntags: [ops]\n---\n# A\n\nzeppelin hangar maintenance.")
    shelf.index([tmp_path / "docs"])

    assert why(query="zeppelin", mode="keyword") == "hits"
    assert why(query="submarine", mode="keyword") == "no_match"
    assert why(query="zeppelin", mode="keyword", tags_any=("finance",)) == "empty_scope"
    assert why(query="zeppelin", path_prefix="guides/") == "empty_scope"
    # a glob that matches no document is an empty scope too (it was "no_match": "check the spelling")
    assert why(query="zeppelin", mode="keyword", path_glob="guides/*.md") == "empty_scope"
    assert why(query="submarine", mode="keyword", path_glob="*.md") == "no_match"
    assert why(query="zeppelin", mode="keyword", min_score=1.0) == "below_min_score"


def test_a_field_no_document_has_is_an_empty_scope_naming_it(shelf, tmp_path, write):
    """`--field status=drat` (a typo) answered "No results. Check the spelling" of the query:
    a field filter no document in scope matches is the filter's doing, and the note names it."""
    write(tmp_path / "docs", "a.md", "---\nstatus: draft\n---\n# A\n\nzeppelin hangar maintenance.")
    shelf.index([tmp_path / "docs"])
    assert shelf.search("zeppelin", mode="keyword", fields={"status": "draft"}).hits
    for mode in ("keyword", "hybrid"):
        result = shelf.search("zeppelin", mode=mode, fields={"status": "drat"})
        assert (result.hits, result.empty_reason) == ((), "empty_scope")
        assert result.note == "no indexed document in this scope has status=drat in its frontmatter"
    # a field that matches, with a query that does not: still the query's doing
    assert shelf.search("submarine", mode="keyword", fields={"status": "draft"}).empty_reason == "no_match"


def test_list_documents_pages_on_root_and_path(shelf, tmp_path, write):
    for root in ("one", "two"):
        write(tmp_path / root, "same.md", f"# {root}\n\ntext")
        shelf.index([tmp_path / root])
    first = shelf.list_documents(DocumentListRequest(limit=1))
    second = shelf.list_documents(DocumentListRequest(limit=1, cursor=first.next_cursor))
    assert [(d.path, d.root) for d in first.documents + second.documents] == [
        ("same.md", str((tmp_path / "one").resolve())), ("same.md", str((tmp_path / "two").resolve()))]
    assert (first.total, second.total, second.next_cursor) == (2, 2, None)


def test_document_dates_are_days_at_index_time_and_filters_compare_days(shelf, tmp_path, write):
    docs = tmp_path / "docs"
    write(docs, "late.md", "---\ndate: 2024-01-05T23:30:00+01:00\n---\n# Late\n\nzeppelin landed late at night")
    write(docs, "plain.md", "---\ndate: 2024-01-06\n---\n# Plain\n\nplain zeppelin report of the day")
    write(docs, "vague.md", "---\ndate: yesterday\n---\n# Vague\n\nsome zeppelin sighting, date unknown")
    shelf.index([docs])
    assert {p: shelf.find_document(p).date for p in ("late.md", "plain.md", "vague.md")} == {
        "late.md": "2024-01-05", "plain.md": "2024-01-06", "vague.md": None}

    def found(**dates: str) -> list[str]:
        return sorted(h.path for h in shelf.search(SearchRequest(query="zeppelin", mode="keyword", **dates)).hits)

    assert found(date_from="2024-01-05T12:00:00Z") == ["late.md", "plain.md"]
    assert found(date_to="2024-01-05T00:00:00-05:00") == ["late.md"]
    assert found() == ["late.md", "plain.md", "vague.md"]


def test_a_whole_document_or_section_read_keeps_headings_that_hold_no_text(shelf, tmp_path, write):
    """A page title right above its first section holds no text of its own, so no chunk ends in
    it: ``get`` printed an RST or Markdown page from its first ``##`` section, without the title."""
    write(tmp_path / "docs", "guide.rst", "Guide\n=====\n\nSetup\n-----\n\nInstall it.\n\nUsage\n-----\n\nRun it.\n")
    write(tmp_path / "docs", "notes.md", "# Notes\n\n## Setup\n\n### Linux\n\nUse apt.\n\n## Usage\n\nRun it.\n")
    shelf.index([tmp_path / "docs"])
    assert shelf.get_document("guide.rst").text == "# Guide\n\n## Setup\n\nInstall it.\n\n## Usage\n\nRun it."
    # a section starts at its own heading, and a subsection's chunk brings the heading above it
    assert shelf.get_document("notes.md", section="Notes").text == (
        "# Notes\n\n## Setup\n\n### Linux\n\nUse apt.\n\n## Usage\n\nRun it.")
    assert shelf.get_document("notes.md", section="setup").text == "## Setup\n\n### Linux\n\nUse apt."
    assert shelf.get_document("notes.md", section="Linux").text == "### Linux\n\nUse apt."


def test_a_refused_range_names_only_ranges_the_document_has(shelf, tmp_path, write):
    """A Word file has neither lines nor pages: "no pages; read it by lines" and "no line numbers;
    use page" sent a reader from one refusal to the other. A notebook's pages are its cells."""
    import json

    import docx

    folder = tmp_path / "docs"
    folder.mkdir()
    document = docx.Document()
    document.add_heading("Expenses", 1)
    document.add_paragraph("Submit expense reports within 30 days.")
    document.save(folder / "handbook.docx")
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "# Training\n\nWe fit a model."}]
    write(folder, "train.ipynb", json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    write(folder, "plain.md", "no headings here")
    shelf.index([folder])
    with pytest.raises(NotFound, match=r"^handbook.docx has no pages \(docx format\); read it by section, or whole$"):
        shelf.get_document("handbook.docx", page=1)
    with pytest.raises(NotFound, match=r"^handbook.docx has no line numbers \(docx format\); read it by section, or whole$"):
        shelf.get_document("handbook.docx", lines="1-3")
    with pytest.raises(NotFound, match=r"; read it by page \(its cell number\) or section, or whole$"):
        shelf.get_document("train.ipynb", lines="1-3")
    with pytest.raises(NotFound, match=r"^plain.md has no sections \(no headings\); read it by lines, or whole$"):
        shelf.get_document("plain.md", section="Setup")


def test_a_code_block_cut_across_chunks_reads_back_as_one_block(make_shelf, fake_embedder, tmp_path, write):
    """The chunker fences each part of an oversized code block; a whole read rejoins them, or an
    example read as two blocks broken mid-way (seen on attrs' api-attr.rst doctest)."""
    code = "\n".join(f"value_{i} = compute({i})" for i in range(60))
    write(tmp_path / "docs", "guide.md", f"# Guide\n\nIntro.\n\n```python\n{code}\n```\n\nAfter.\n\n```sh\nls\n```\n")
    shelf = make_shelf(fake_embedder, chunk_tokens=96)
    shelf.index([tmp_path / "docs"])
    assert shelf.find_document("guide.md").chunk_count > 3  # the block was cut
    assert shelf.get_document("guide.md").text == f"# Guide\n\nIntro.\n\n```python\n{code}\n```\n\nAfter.\n\n```sh\nls\n```"


def test_a_page_of_headings_only_reads_each_heading_once(shelf, tmp_path, write):
    """Such a page's chunks stand in for their headings (their text is the heading), so a read
    printed every heading twice."""
    write(tmp_path / "docs", "todo.md", "# Roadmap\n\n## Later\n")
    shelf.index([tmp_path / "docs"])
    assert shelf.get_document("todo.md").text == "# Roadmap\n\n## Later"
    assert shelf.get_document("todo.md", section="later").text == "## Later"


def test_a_heading_with_no_text_before_the_next_is_shown_by_get(shelf, tmp_path, write):
    """No chunk holds such a heading (nothing to embed), so `get --section Empty` said the file
    had no section 'Empty' although the file shows one: it is read from the file, with a note."""
    write(tmp_path / "docs", "g.md", "# Guide\n\nIntro.\n\n## Empty\n\n## Next\n\nNext text.\n\n## Trailing\n")
    shelf.index([tmp_path / "docs"])
    for section, line in (("Empty", 5), ("Guide > Trailing", 11)):
        page = shelf.get_document("g.md", section=section)
        assert (page.text, page.start_line, page.end_line, page.chunk_ids) == (f"## {section.split(' > ')[-1]}",
                                                                                line, line, ())
        assert page.note == (f"section {section!r} is only its heading (line {line}): "
                             "it has no text before the next heading")
    with pytest.raises(NotFound, match="has no section 'Nope'; its sections are: Guide; Next"):
        shelf.get_document("g.md", section="Nope")


def test_a_section_asked_on_a_page_it_is_not_on_says_where_it_is(shelf, tmp_path):
    """`get --section Maintenance --page 2` listed page 2's sections as if the whole document
    had no such section."""
    from test_parsers import make_manual_with_outline  # tests/unit is on the path (rootdir conftest)

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "manual.pdf").write_bytes(make_manual_with_outline())
    shelf.index([tmp_path / "docs"])
    assert "impeller" in shelf.get_document("manual.pdf", section="Maintenance", page=3).text
    with pytest.raises(NotFound) as info:
        shelf.get_document("manual.pdf", section="Maintenance", page=2)
    assert str(info.value) == ("page 2 of manual.pdf has no section 'Maintenance' (it is on page 3); "
                               "its sections are: Installation; Wiring")
    with pytest.raises(NotFound, match="^page 2 of manual.pdf has no section 'Nope'; its sections are: Installation"):
        shelf.get_document("manual.pdf", section="Nope", page=2)


def test_get_of_a_file_that_now_fails_says_its_text_is_the_last_good_version(shelf, tmp_path):
    """A manual replaced by a broken PDF stays searchable as it was (documented), but `get`
    showed that text with no word that the file on disk no longer reads."""
    from test_parsers import make_pdf

    (tmp_path / "docs").mkdir()
    manual = tmp_path / "docs" / "m.pdf"
    manual.write_bytes(make_pdf([["The manatee manual says rotate weekly."]]))
    shelf.index([tmp_path / "docs"])
    assert shelf.get_document("m.pdf").note == ""
    manual.write_bytes(b"%PDF-1.4\ngarbage")
    shelf.index([tmp_path / "docs"])
    page = shelf.get_document("m.pdf")
    assert "manatee" in page.text
    assert page.note.startswith("this is the last version that indexed; the file now fails to: not a valid PDF")


def test_a_pasted_citation_reads_what_it_cites(shelf, tmp_path, write):
    """`docshelf get "g.md › Guide › Next (lines 9-9)"`, the line a search printed, said there
    was no document at that path; an agent passing a hit's citation as the path met the same."""
    write(tmp_path / "docs", "g.md", "# Guide\n\nIntro.\n\n## Empty\n\n## Next\n\nNext text.\n\nMore next text.\n")
    shelf.index([tmp_path / "docs"])
    hit = shelf.search("more next text", mode="keyword").hits[0]
    from docshelf.interfaces.output import citation

    cited = shelf.get_document(citation(hit))
    assert (cited.path, cited.start_line, cited.end_line) == ("g.md", hit.start_line, hit.end_line)
    assert shelf.get_document("g.md › Guide › Next").text == "## Next\n\nNext text.\n\nMore next text."
    assert shelf.get_document("g.md (lines 9-9)").text == "Next text."


@pytest.mark.parametrize(("path", "fields"), [
    ("manual.pdf › Wiring (p. iv, PDF page 4)", ("manual.pdf", None, 4, None, None)),
    ("m.pdf (p. iv)", ("m.pdf", None, None, "iv", None)),
    ("data.json (line 1, chars 52001-54000)", ("data.json", "1:52001-54000", None, None, None)),
    ("g.md › Guide › Empty", ("g.md", None, None, None, "Guide > Empty")),
    ("notes (draft).md", ("notes (draft).md", None, None, None, None)),
])
def test_a_citation_as_path_is_read_into_the_request_fields(path, fields):
    r = DocumentRequest(path=path)
    assert (r.path, r.lines, r.page, r.page_label, r.section) == fields
    assert DocumentRequest(path=path, section="Other").path == path  # given fields: taken as written


def test_a_path_that_names_no_document_says_what_it_probably_meant(shelf, tmp_path, write):
    """`get markdown-features.mdx`, `get docs/guides/install` (the page's URL) or `get docs/guides`
    (a folder) answered only "no indexed document at …"; now the documents meant are named."""
    for rel in ("docs/guides/install.mdx", "docs/guides/upgrade.md", "docs/intro.md"):
        write(tmp_path / "site", rel, "# Page\n\ntext")
    shelf.index([tmp_path / "site"])

    def why(path: str) -> str:
        with pytest.raises(NotFound) as info:
            shelf.get_document(path)
        return str(info.value).split("; ", 1)[1]

    assert why("install.mdx") == why("docs/guides/install") == why("Install.MDX") == (
        "did you mean 'docs/guides/install.mdx'?")
    assert why("docs/guides") == why("docs/guides/") == (
        "docs/guides/ is a folder holding 2 indexed documents (docs/guides/install.mdx, docs/guides/upgrade.md); "
        "`docshelf documents --path docs/guides/` or list_documents(path_prefix) lists them")
    assert why("nothing.md") == "`docshelf status` or list_documents shows what is indexed"


def test_a_search_hit_from_a_file_that_now_fails_says_its_text_is_the_last_good_version(shelf, tmp_path, write):
    """A page indexed, then saved broken (invalid UTF-8 here; a truncated PDF, a notebook whose
    JSON broke): its last good chunks stay searchable, and a hit from them read as what the file
    says now. Each hit from such a file carries a note saying when and why it failed."""
    docs = tmp_path / "docs"
    write(docs, "ok.md", "# Rotation\n\nThe wombat token rotates monthly.\n")
    write(docs, "p.md", "# Rotation\n\nThe wombat token rotates weekly.\n")
    shelf.index([docs])
    assert all(h.note == "" for h in shelf.search("wombat token", mode="keyword").hits)
    (docs / "p.md").write_bytes(b"# Rotation\n\nThe wombat \xff\xfe\x00\x00 token " + bytes(range(256)) * 40)
    report = shelf.index([docs])
    assert "p.md" in report.failed
    hits = {h.path: h for h in shelf.search("wombat token", mode="keyword").hits}
    assert set(hits) == {"ok.md", "p.md"}
    assert hits["ok.md"].note == ""
    note = hits["p.md"].note
    assert note.startswith("this is the last version that indexed; the file now fails to: ")
    assert report.failed["p.md"] in note and " UTC)" in note
    assert shelf.get_document("p.md").note == note  # get says the same
    lines = shelf.get_document("p.md", lines="3").note  # and does not send the reader to re-index it
    assert lines.startswith(note) and lines.endswith("; fix the file to read exact lines")

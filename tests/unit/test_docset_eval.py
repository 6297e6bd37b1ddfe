"""Docs-folder evaluation sets: the loader's validation and the metrics, against hand-computed values."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from docshelf.errors import ConfigError
from docshelf.eval.docset import KINDS, is_docset, load_docset
from docshelf.eval.docset_runner import Outcome, summarize
from docshelf.eval.metrics import auroc, hit_at_k, lines_overlap, reciprocal_rank

SET_A = Path(__file__).resolve().parents[2] / "benchmarks" / "docsets" / "starlette"


def test_auroc_by_hand():
    # positives 0.9, 0.6, 0.4 vs negatives 0.5, 0.4: pairs won 2 + 2 + (0 + 0.5 for the tie) = 4.5 of 6
    assert auroc([0.9, 0.6, 0.4], [0.5, 0.4]) == pytest.approx(4.5 / 6)
    assert auroc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auroc([0.1], [0.9]) == 0.0
    assert auroc([0.3], []) is None and auroc([], [0.3]) is None


def test_document_hits_and_section_overlap_by_hand():
    ranked = ["a.md", "b.md", "c.md", "d.md"]
    assert (hit_at_k(ranked, "c.md", 1), hit_at_k(ranked, "c.md", 3), hit_at_k(ranked, "d.md", 3)) == (0.0, 1.0, 0.0)
    assert reciprocal_rank(ranked, "c.md") == pytest.approx(1 / 3)
    assert reciprocal_rank(ranked, "z.md") == 0.0
    assert lines_overlap((10, 20), (20, 30)) and lines_overlap((25, 26), (20, 30))
    assert not lines_overlap((10, 19), (20, 30)) and not lines_overlap((None, None), (1, 5))


def _outcome(kind, score, hit1=None, hit3=None, rr=None, section=None):
    return Outcome("q", kind, "query", (), None, (), (None, None), score, None, hit1, hit3, rr, section, 1.0)


def test_summarize_means_per_kind_and_auroc_against_the_unanswerable():
    outcomes = [
        _outcome("howto", 0.9, 1.0, 1.0, 1.0, 1.0),
        _outcome("howto", 0.3, 0.0, 1.0, 0.5, 0.0),
        _outcome("typo", 0.7, 0.0, 0.0, 0.0, 0.0),
        _outcome("unanswerable", 0.5),
        _outcome("unanswerable", 0.2),
    ]
    overall, by_kind = summarize(outcomes)
    # howto 0.9, 0.3 vs 0.5, 0.2: wins 2 + 1 = 3 of 4
    assert by_kind["howto"] == {"hit@1": 0.5, "hit@3": 1.0, "mrr@10": 0.75, "section@1": 0.5, "auroc": 0.75}
    assert by_kind["typo"] == {"hit@1": 0.0, "hit@3": 0.0, "mrr@10": 0.0, "section@1": 0.0, "auroc": 1.0}
    assert by_kind["unanswerable"] == dict.fromkeys(("hit@1", "hit@3", "mrr@10", "section@1", "auroc"))
    # answerable 0.9, 0.3, 0.7 vs 0.5, 0.2: wins 2 + 1 + 2 = 5 of 6
    assert overall == {"hit@1": 0.3333, "hit@3": 0.6667, "mrr@10": 0.5, "section@1": 0.3333, "auroc": 0.8333}


def _write_set(root: Path, rows: list[dict]) -> Path:
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "docs" / "page.md").write_text("# Page\n\nIntro.\n\n## Cookies\n\nSet them.\n")
    (root / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_load_docset_reads_gold_and_unanswerable_questions(tmp_path):
    root = _write_set(tmp_path / "s", [
        {"query": "set a cookie", "kind": "howto", "path": "page.md", "heading": "Cookies", "start_line": 5, "end_line": 7},
        {"query": "banana bread", "kind": "unanswerable"},
    ])
    assert is_docset(root) and not is_docset(tmp_path)
    docset = load_docset(root)
    assert [(q.id, q.kind, q.answerable, q.path, q.start_line, q.end_line) for q in docset.questions] == [
        ("1", "howto", True, "page.md", 5, 7), ("2", "unanswerable", False, None, None, None)
    ]


@pytest.mark.parametrize("row, message", [
    ({"query": "x", "kind": "joke"}, "'kind' must be one of howto, paraphrase"),
    ({"query": "", "kind": "howto"}, "'query' must be a non-empty string"),
    ({"query": "x", "kind": "unanswerable", "path": "page.md"}, "an unanswerable question has no path"),
    ({"query": "x", "kind": "howto", "path": "page.md", "heading": "Cookies", "start_line": 4, "end_line": 7},
     "line 4 of page.md should hold the heading 'Cookies'"),
    ({"query": "x", "kind": "howto", "path": "nope.md", "heading": "Cookies", "start_line": 5, "end_line": 7},
     "gold path 'nope.md' is not a file"),
    ({"query": "x", "kind": "howto", "path": "page.md", "heading": "Cookies", "start_line": 5, "end_line": 2},
     "1 <= start_line <= end_line"),
])
def test_load_docset_rejects_bad_questions_with_the_line_number(tmp_path, row, message):
    root = _write_set(tmp_path / "s", [{"query": "ok", "kind": "unanswerable"}, row])
    with pytest.raises(ConfigError) as err:
        load_docset(root)
    assert str(err.value).startswith("questions.jsonl:2: ")
    assert message in str(err.value)


def test_an_html_gold_heading_is_read_as_the_page_shows_it(tmp_path):
    root = tmp_path / "s"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "faq.html").write_text(
        "<html><body><main>\n<h1>FAQ</h1>\n<h2>Why is <code>sleep()</code> blocking?<a class=\"headerlink\">¶</a></h2>\n"
        "<p>It holds the loop.</p>\n</main></body></html>\n")
    row = {"query": "q", "kind": "howto", "path": "faq.html", "heading": "Why is sleep() blocking?",
           "start_line": 3, "end_line": 4}
    (root / "questions.jsonl").write_text(json.dumps(row) + "\n")
    assert load_docset(root).questions[0].heading == "Why is sleep() blocking?"
    (root / "questions.jsonl").write_text(json.dumps({**row, "start_line": 2}) + "\n")
    with pytest.raises(ConfigError, match="line 2 of faq.html should hold the heading"):
        load_docset(root)


def _write_pdf_set(root: Path, rows: list[dict]) -> Path:
    """A set whose one document is a two-page PDF manual: an outline entry "Installation" on
    page 1 and "Wiring fixes" on page 2."""
    import io

    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    pdf.bookmarkPage("install")
    pdf.addOutlineEntry("Installation", "install", level=0)
    pdf.drawString(72, 750, "Installation")
    pdf.drawString(72, 734, "Bolt the pump to a level plinth.")
    pdf.showPage()
    pdf.bookmarkPage("wiring")
    pdf.addOutlineEntry("Wiring fixes", "wiring", level=0)
    pdf.drawString(72, 750, "Wiring fixes")
    pdf.drawString(72, 734, "Connect the brown wire to L1.")
    pdf.showPage()
    pdf.save()
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "docs" / "pump.pdf").write_bytes(buf.getvalue())
    (root / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_a_pdf_question_has_gold_pages_and_an_optional_heading(tmp_path):
    root = _write_pdf_set(tmp_path / "s", [
        {"query": "brown wire", "kind": "howto", "path": "pump.pdf", "heading": "Wiring fixes",
         "start_page": 2, "end_page": 2},
        {"query": "plinth", "kind": "howto", "path": "pump.pdf", "start_page": 1, "end_page": 2},
        {"query": "L1", "kind": "howto", "path": "pump.pdf", "heading": "Installation", "start_page": 2, "end_page": 2},
    ])
    a, b, _ = load_docset(root).questions  # a section begun on page 1 may answer on page 2
    assert (a.by_page, a.heading, a.start_page, a.end_page, a.start_line) == (True, "Wiring fixes", 2, 2, None)
    assert (b.by_page, b.heading, b.start_page, b.end_page) == (True, None, 1, 2)


@pytest.mark.parametrize("row, message", [
    ({"heading": "Wiring fixes", "start_page": 1, "end_page": 1}, "should print the heading 'Wiring fixes' .* on page 1 or before"),
    ({"heading": "Wiring faxes", "start_page": 2, "end_page": 2}, "should print the heading 'Wiring faxes'"),
    ({"start_page": 2, "end_page": 3}, "pump.pdf has 2 pages, not 3"),
    ({"start_page": 2, "end_page": 1}, "1 <= start_page <= end_page"),
    ({"start_line": 2, "end_line": 3}, "a PDF is cited by page"),
    ({"heading": "", "start_page": 1, "end_page": 1}, "'heading' must be a non-empty string or absent"),
])
def test_a_pdf_question_with_bad_pages_or_heading_is_refused(tmp_path, row, message):
    root = _write_pdf_set(tmp_path / "s", [{"query": "q", "kind": "howto", "path": "pump.pdf", **row}])
    with pytest.raises(ConfigError, match=message):
        load_docset(root)


def test_a_pdf_hit_is_the_gold_section_when_its_page_and_heading_match():
    from docshelf.eval.docset import Question
    from docshelf.eval.docset_runner import pdf_section_hit

    gold = Question("q", "x", "howto", "m.pdf", "Citation Aliasing", start_page=10, end_page=11)
    assert pdf_section_hit(gold, 10, ("Using this Package", "Citation Aliasing"))
    assert pdf_section_hit(gold, 11, ("2.6 Citation Aliasing",))  # the title with its number
    assert pdf_section_hit(gold, 11, ("Citation  aliasing",))  # spacing and case as the text layer has them
    assert not pdf_section_hit(gold, 12, ("Citation Aliasing",))  # another page
    assert not pdf_section_hit(gold, None, ("Citation Aliasing",))
    assert not pdf_section_hit(gold, 10, ("Using this Package", "Forcing Upper Cased Name"))  # the section before
    assert pdf_section_hit(gold, 10, ())  # a PDF without outline: the page alone
    numbered = Question("q", "x", "howto", "m.pdf", "2.6 Citation Aliasing", start_page=10, end_page=10)
    assert pdf_section_hit(numbered, 10, ("Citation Aliasing",)) and not pdf_section_hit(numbered, 10, ("Aliasing",))
    anywhere = Question("q", "x", "howto", "m.pdf", None, start_page=10, end_page=10)
    assert pdf_section_hit(anywhere, 10, ("Anything",)) and not pdf_section_hit(anywhere, 9, ())


def test_a_line_gold_is_scored_by_lines_as_before(tmp_path):
    from docshelf.eval.docset_runner import ask
    from docshelf.models import Hit

    class Service:
        def __init__(self, hit):
            self.hit = hit

        def search(self, query, **kw):
            return type("R", (), {"hits": [self.hit], "confidence": "high", "note": ""})()

    def hit(**kw):
        return Hit("c", "page.md", "/r", "T", kw.pop("heading_path", ("Cookies",)), "docs", "doc", "t", 0.9, "hybrid", **kw)

    root = _write_set(tmp_path / "s", [
        {"query": "set a cookie", "kind": "howto", "path": "page.md", "heading": "Cookies", "start_line": 5, "end_line": 7}])
    q = load_docset(root).questions[0]
    assert ask(Service(hit(start_line=6, end_line=9)), q, "hybrid").section == 1.0
    assert ask(Service(hit(start_line=1, end_line=4, heading_path=("Cookies",))), q, "hybrid").section == 0.0
    pdf_root = _write_pdf_set(tmp_path / "p", [
        {"query": "wire", "kind": "howto", "path": "pump.pdf", "heading": "Wiring fixes", "start_page": 2, "end_page": 2}])
    pq = load_docset(pdf_root).questions[0]
    pdf_hit = Hit("c", "pump.pdf", "/r", "T", ("Wiring fixes",), "docs", "pdf", "t", 0.9, "hybrid", page=2)
    outcome = ask(Service(pdf_hit), pq, "hybrid")
    assert (outcome.section, outcome.top_page) == (1.0, 2)
    assert ask(Service(Hit("c", "pump.pdf", "/r", "T", ("Installation",), "docs", "pdf", "t", 0.9, "hybrid", page=2)),
               pq, "hybrid").section == 0.0


SHIPPED_SETS = sorted(p for p in SET_A.parent.iterdir() if (p / "questions.jsonl").is_file())


@pytest.mark.parametrize("root", SHIPPED_SETS, ids=lambda p: p.name)
def test_every_shipped_set_is_valid_and_covers_every_kind(root):
    docset = load_docset(root)  # validates every gold heading against its start line
    kinds = [q.kind for q in docset.questions]
    assert len(kinds) >= 50 and set(kinds) == set(KINDS)
    assert kinds.count("unanswerable") >= 8
    assert len({q.id for q in docset.questions}) == len(kinds)
    assert (root / "SOURCE.md").is_file() and list(root.glob("LICENSE*"))


def test_the_fourteen_sets_are_shipped():
    names = ["click", "coverage", "drf", "git", "hatch", "marshmallow", "pip", "postgresql", "pytest", "sqlmodel",
             "starlette", "texpdf", "tornado", "werkzeug"]
    assert [p.name for p in SHIPPED_SETS] == names


def test_a_cached_docset_index_holds_one_copy_shared_by_every_checkout(tmp_path):
    """The cache is keyed on the folder's content, not its place: the same set evaluated
    from another checkout reuses the index. It indexes one copy of the folder kept in the
    cache, so a second checkout's run neither re-indexes nor removes the folder a first run
    (still searching, from another worktree) is using, and a deleted checkout leaves nothing
    behind (every page would otherwise be in the index twice)."""
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.eval.docset_runner import open_docset_index

    rows = [{"query": "how to start", "kind": "howto", "path": "guide.md", "heading": "Start",
             "start_line": 1, "end_line": 3}]
    first, second = tmp_path / "checkout-a" / "guide", tmp_path / "checkout-b" / "guide"
    for folder in (first, second):
        _write_set(folder, rows)
        (folder / "docs" / "guide.md").write_text("# Start\n\nRun the server with one command.\n")
    cache = tmp_path / "cache"
    running = open_docset_index(load_docset(first), cache_dir=cache, embedder=FakeEmbedder())
    chunks = running.service.store.count_chunks()
    (root,) = [i.path for i in running.service.root_infos()]
    assert Path(root).is_relative_to(cache.resolve()) and (Path(root) / "guide.md").is_file()
    index = open_docset_index(load_docset(second), cache_dir=cache, embedder=FakeEmbedder())
    assert index.reused
    assert [i.path for i in index.service.root_infos()] == [root]
    assert running.service.search("start the server", k=1).hits  # the first run still finds its pages
    shutil.rmtree(first)  # a deleted worktree
    index = open_docset_index(load_docset(second), cache_dir=cache, embedder=FakeEmbedder())
    assert {r.root for r in index.service.store.records()} == {root}
    assert index.service.store.count_chunks() == chunks

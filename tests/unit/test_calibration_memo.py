"""The calibration background recorded per index version (``search/calibration_memo.py``).

Real LanceDB index; the fake embedder is enough here (this is about when the background is
measured and reused, not about search quality).
"""

from __future__ import annotations

import json
from pathlib import Path

from docshelf.config import Settings
from docshelf.search.calibrate import NULL_QUERIES, Calibrator
from docshelf.search.calibration_memo import FILE, CalibrationMemo
from docshelf.service import Docshelf



def write_file(root: Path, rel: str, text: str) -> Path:
    # not imported from conftest: with the whole suite collected, ``conftest`` names
    # tests/backends/conftest.py, and the import fails
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


DOCS = {
    "install.md": "# Installing\n\nRun pip install widgetron to get the toolkit.\n",
    "faq.md": "# FAQ\n\nThe quasar module needs Python 3.11 and a frobnicator.\n",
    "terms.md": "# Terms\n\nA frobnicator polishes widgets before they ship.\n",
}


def _fresh(tmp_path, fake_embedder) -> tuple[Docshelf, list[str]]:
    """A new Docshelf on the index (as a new process would have) and the null queries it measures."""
    shelf = Docshelf(Settings(index_dir=tmp_path / "index"), embedder=fake_embedder)
    calibrator = shelf.searcher.calibrator
    measured: list[str] = []
    real = calibrator._top_cosine

    def counting(query: str):
        measured.append(query)
        return real(query)

    calibrator._top_cosine = counting
    return shelf, measured


def _indexed(tmp_path, fake_embedder) -> None:
    for rel, text in DOCS.items():
        write_file(tmp_path / "docs", rel, text)
    Docshelf(Settings(index_dir=tmp_path / "index"), embedder=fake_embedder).index([tmp_path / "docs"])


def test_the_next_process_reads_the_background_instead_of_measuring_it(tmp_path, fake_embedder):
    _indexed(tmp_path, fake_embedder)
    first, measured = _fresh(tmp_path, fake_embedder)
    before = first.search("how do I install widgetron")
    assert measured == list(NULL_QUERIES)
    recorded = json.loads((tmp_path / "index" / FILE).read_text())
    # What was recorded is what measuring gives.
    assert recorded["background"] == Calibrator(first.searcher._top_cosine).background()

    second, measured = _fresh(tmp_path, fake_embedder)
    after = second.search("how do I install widgetron")
    assert measured == []
    assert [(h.path, h.score) for h in after.hits] == [(h.path, h.score) for h in before.hits]
    assert second.searcher.calibrator.background() == recorded["background"]


def test_a_write_to_the_index_means_measuring_again(tmp_path, fake_embedder):
    _indexed(tmp_path, fake_embedder)
    _fresh(tmp_path, fake_embedder)[0].search("widgets")
    old = json.loads((tmp_path / "index" / FILE).read_text())
    write_file(tmp_path / "docs", "more.md", "# More\n\nChocolate cake baking temperature is 180 degrees.\n")
    Docshelf(Settings(index_dir=tmp_path / "index"), embedder=fake_embedder).index([tmp_path / "docs"])

    shelf, measured = _fresh(tmp_path, fake_embedder)
    shelf.search("widgets")
    assert measured == list(NULL_QUERIES)
    new = json.loads((tmp_path / "index" / FILE).read_text())
    assert new["key"]["store"] != old["key"]["store"]
    assert new["background"] == Calibrator(shelf.searcher._top_cosine).background()


def test_another_model_or_a_garbled_file_is_not_used(tmp_path, fake_embedder):
    _indexed(tmp_path, fake_embedder)
    shelf, _ = _fresh(tmp_path, fake_embedder)
    shelf.search("widgets")
    memo = shelf.searcher.calibrator.memo
    assert memo.load(memo.key()) is not None
    other = CalibrationMemo(tmp_path / "index", shelf.store, "another-model")
    assert other.load(other.key()) is None
    (tmp_path / "index" / FILE).write_text("{not json")
    shelf, measured = _fresh(tmp_path, fake_embedder)
    shelf.search("widgets")
    assert measured == list(NULL_QUERIES)
    assert memo.load(memo.key()) is not None  # measured and recorded again


def test_a_background_measured_while_the_index_changed_is_not_recorded(tmp_path, fake_embedder):
    _indexed(tmp_path, fake_embedder)
    shelf = Docshelf(Settings(index_dir=tmp_path / "index"), embedder=fake_embedder)
    memo = shelf.searcher.calibrator.memo
    key = memo.key()
    write_file(tmp_path / "docs", "more.md", "# More\n\nAnother page.\n")
    shelf.index([tmp_path / "docs"])
    memo.save(key, 0.5)
    assert not (tmp_path / "index" / FILE).exists()
    memo.save(memo.key(), 0.5)
    assert memo.load(memo.key()) == 0.5

"""``import_lancedb`` (stores/lancedb_import.py): lighter, and LanceDB and pyarrow work as before.

Each check runs in a fresh interpreter, since the point is what the first import of a process
loads. ``pyarrow.dataset`` and ``pyarrow.compute`` are registered as lazy modules: a search
(every mode, written and read through LanceDB) must never run them, and any use must find
the real modules, the same objects a plain import gives.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

PENDING = """
    def pending(name):
        return "_docshelf_lazy_spec" in sys.modules[name].__dict__
"""


def run(code: str, tmp_path: Path) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    script = "import sys\n" + textwrap.dedent(PENDING) + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_search_in_every_mode_never_runs_pyarrow_compute_or_dataset(tmp_path):
    """Nor builds the chunker, whose tokenizer (and its JSON) a cold search would otherwise
    load on the main thread: a search needs only the model's own tokenizer."""
    (tmp_path / "docs").mkdir()
    for i in range(30):
        (tmp_path / "docs" / f"d{i}.md").write_text(f"# Doc {i}\n\nanimal{i} lives in habitat{i % 7}.\n")
    run("""
        from docshelf.config import Settings
        from docshelf.embedders.fake import FakeEmbedder
        from docshelf.service import Docshelf

        Docshelf(Settings(index_dir="index"), embedder=FakeEmbedder()).index(["docs"])
    """, tmp_path)  # writing may use them: a process of its own (pyarrow keeps the module once used)
    out = run("""
        from docshelf.config import Settings
        from docshelf.embedders.fake import FakeEmbedder
        from docshelf.service import Docshelf

        shelf = Docshelf(Settings(index_dir="index"), embedder=FakeEmbedder(), create=False)
        for mode in ("hybrid", "semantic", "keyword", "fuzzy"):
            assert shelf.search("animal7 habitat3", k=5, mode=mode).hits, mode
        print(pending("pyarrow.compute"), pending("pyarrow.dataset"), "chunker" in vars(shelf))
    """, tmp_path)
    assert out.split() == ["True", "True", "False"]  # nor builds the chunker (Docshelf.chunker)


def test_the_lazy_modules_are_the_real_ones_once_used(tmp_path):
    out = run("""
        from docshelf.stores.lancedb_import import import_lancedb

        lancedb = import_lancedb()
        import pyarrow
        import pyarrow._dataset
        assert pending("pyarrow.compute") and pending("pyarrow.dataset")
        assert pyarrow.dataset is sys.modules["pyarrow.dataset"]
        # lancedb registered its converters on the real classes, served without running the module
        assert pyarrow.dataset.Dataset is pyarrow._dataset.Dataset and pending("pyarrow.dataset")
        import pyarrow.compute as pc
        assert pc.sum(pyarrow.array([1, 2, 3])).as_py() == 6 and not pending("pyarrow.compute")
        table = pyarrow.table({"id": ["a", "b"], "vector": [[1.0, 0.0], [0.0, 1.0]]})
        dataset = pyarrow.dataset.dataset(table)  # runs pyarrow.dataset
        assert not pending("pyarrow.dataset") and isinstance(dataset, pyarrow._dataset.Dataset)
        db = lancedb.connect("db")
        db.create_table("t", dataset)  # lancedb's Dataset converter, registered on the lazy module's class
        found = db.open_table("t").search([1.0, 0.0]).limit(1).to_list()
        print(found[0]["id"], pyarrow.compute.__name__)
    """, tmp_path)
    assert out.split() == ["a", "pyarrow.compute"]


def test_vectors_read_without_pyarrow_compute_are_the_columns_values():
    """``lance_queries.matrix`` slices the child array instead of ``flatten()``: sliced,
    chunked and null-holding columns read the same numbers as the rows themselves."""
    import numpy as np
    import pyarrow as pa

    from docshelf.stores.lance_queries import matrix

    rows = np.arange(40, dtype=np.float32).reshape(10, 4) / 7
    column = pa.FixedSizeListArray.from_arrays(pa.array(rows.ravel()), 4)
    cases = [column, column.slice(3, 5), pa.chunked_array([column.slice(0, 2), column.slice(5, 3)])]
    for case in cases:
        assert np.array_equal(matrix(case, 4), np.array(case.to_pylist(), dtype=np.float32))
    listed = pa.array([list(r) for r in rows[:3]], type=pa.list_(pa.float32()))  # not fixed-size: flatten()
    assert np.array_equal(matrix(listed, 4), rows[:3])

"""The vector index's rule by table size (``stores/vector_index.py``) and its use by the store.

The rule's numbers come from recall studies (benchmarks/ann_index.py, README); here: the rule
itself, that ``optimize`` builds the index it names (replacing an older kind, e.g. the
IVF-HNSW-SQ index earlier versions built), and that the store's vector queries use the
settings of the index actually built.
"""

from __future__ import annotations

import numpy as np
import pytest

from docshelf.stores import vector_index as vi
from docshelf.stores.vector_index import VectorIndex, index_for, needs_rebuild, probes, query_settings
from docshelf.stores.ties import best_k, tie_key


@pytest.mark.parametrize(("rows", "partitions", "nprobes"), [
    (250_000, 250, 20), (400_000, 400, 20), (1_000_000, 1000, 40), (2_000_000, 2000, 80),
])
def test_rule_by_table_size(rows, partitions, nprobes):
    index = index_for(rows)
    assert index == VectorIndex("ivf_flat", partitions)
    assert query_settings(index, 10) == {"nprobes": nprobes}
    assert probes(index.partitions) == nprobes


@pytest.mark.parametrize(("rows", "partitions"), [(50_000, 1), (100_000, 2), (249_999, 4)])
def test_smaller_tables_keep_the_graph_index_and_its_settings(rows, partitions):
    index = index_for(rows)
    assert index == VectorIndex("ivf_hnsw_sq", partitions)
    assert index.name == f"vector_ivf_hnsw_sq_p{partitions}" and VectorIndex.parse(index.name) == index
    assert query_settings(index, 10) == {"refine_factor": 1, "ef": 200}
    from lancedb.index import IvfHnswSq

    assert isinstance(index.config(), IvfHnswSq)
    assert needs_rebuild(index, 260_000)  # crossing to IVF-FLAT replaces it


def test_names_round_trip_and_older_indexes_are_unnamed():
    index = index_for(1_000_000)
    assert index.name == "vector_ivf_flat_p1000"
    assert VectorIndex.parse(index.name) == index
    assert VectorIndex.parse("vector_idx") is None  # what IVF-HNSW-SQ builds were called
    assert query_settings(None, 10) == {"refine_factor": 1, "ef": 200}  # their settings stay


def test_rebuild_when_the_kind_differs_or_the_table_outgrew_the_index():
    assert needs_rebuild(None, 60_000)
    assert needs_rebuild(VectorIndex("ivf_flat", 60), 60_000)
    assert not needs_rebuild(index_for(60_000), 60_000)
    assert not needs_rebuild(index_for(60_000), 200_000)  # new rows join the old partitions
    assert not needs_rebuild(index_for(300_000), 1_000_000)  # 3.3x
    assert needs_rebuild(index_for(300_000), 1_500_000)  # 5x
    assert needs_rebuild(index_for(2_000_000), 400_000)  # shrank to a fifth
    assert needs_rebuild(index_for(1_000_000), 200_000)  # shrank below the graph index's limit


@pytest.fixture
def big(write, tmp_path, shelf, monkeypatch):
    """A store past the (lowered) index threshold, with partitions of 40 rows: 5 at 200 chunks."""
    monkeypatch.setattr(vi, "ROWS_PER_PARTITION", 40)
    monkeypatch.setattr(vi, "FLAT_FROM_ROWS", 100)  # the IVF-FLAT side of the rule, at 200 chunks
    shelf.store.vector_index_min_rows = 100  # the real threshold is 50,000 chunks
    docs = tmp_path / "docs"
    for i in range(200):
        write(docs, f"d{i:03d}.md", f"# Doc {i}\n\nspecies{i} lives in habitat{i % 9} near river{i % 13}.")
    shelf.index([docs])
    return shelf


def test_optimize_builds_the_named_index_and_queries_use_its_settings(big):
    store = big.store
    assert store.count_chunks() == 200
    assert store.vector_index() == VectorIndex("ivf_flat", 5)
    with store.snapshot():
        assert store.vector_query_settings(store._reader(), 10) == {"nprobes": 5}  # all 5 partitions: exact
        vector = big.embedder.embed_query("species42 habitat6")
        got = [c.id for c, _ in store.vector_search(vector, 10)]
    table = store._chunks
    exact = table.search(vector, vector_column_name="vector").distance_type("cosine").bypass_vector_index()
    rows = exact.select(["id", "path", "chunk_index", "_distance"]).limit(200).to_list()
    keys = [tie_key(r["path"], r["chunk_index"], r["id"]) for r in rows]
    ranked = best_k([r["_distance"] for r in rows], keys, 10, higher_first=False)
    assert got == [rows[i]["id"] for i in ranked]  # equal distances in path order, as every store orders them


def test_optimize_replaces_an_older_kind_of_index(big):
    from lancedb.index import IvfHnswSq

    store = big.store
    for name in store._vector_indexes(store._chunks):
        store._chunks.drop_index(name)
    store._chunks.create_index("vector", config=IvfHnswSq(distance_type="cosine", num_partitions=1), replace=True)
    assert store.has_vector_index() and store.vector_index() is None  # unnamed: the old settings apply
    with store.snapshot():
        assert store.vector_query_settings(store._reader(), 10) == {"refine_factor": 1, "ef": 200}
        old = [c.id for c, _ in store.vector_search(np.asarray(big.embedder.embed_query("species7"), np.float32), 5)]
    store.optimize()
    assert store.vector_index() == VectorIndex("ivf_flat", 5)
    assert [i.index_type for i in store._chunks.list_indices() if i.columns == ["vector"]] == ["IvfFlat"]
    hits = big.search("species7 lives in habitat7", k=5, mode="semantic").hits
    assert hits and len(old) == 5

"""The PostgreSQL vector index rule (``stores/pg_index.py``) at the sizes it was chosen on."""

from __future__ import annotations

from docshelf.stores import pg_index
from docshelf.stores.pg_index import PgVectorIndex


def test_hnsw_below_the_threshold_with_a_search_breadth_that_grows_with_the_table():
    assert pg_index.index_for(399_999) == PgVectorIndex("hnsw")
    assert [pg_index.ef_search(rows, 10) for rows in (1_000, 100_000, 300_000, 399_999)] == [200, 250, 750, 1000]
    assert pg_index.ef_search(1_000, 300) == 600  # a larger k asks for 2 k
    assert pg_index.ef_search(10_000_000, 10) == 1000  # pgvector's ceiling


def test_ivfflat_with_thousand_row_lists_from_the_threshold():
    assert pg_index.index_for(1_000_000) == PgVectorIndex("ivfflat", (("lists", 1000),))
    assert pg_index.index_for(400_000) == PgVectorIndex("ivfflat", (("lists", 400),))
    assert [pg_index.probes(lists) for lists in (5, 400, 1000, 5000)] == [5, 30, 30, 150]
    settings = pg_index.query_settings(pg_index.index_for(1_000_000), 1_000_000, 10)
    assert settings["ivfflat.probes"] == "30" and settings["ivfflat.iterative_scan"] == "relaxed_order"


def test_rebuild_only_for_another_method_or_lists_trained_for_another_size():
    hnsw, ivf = PgVectorIndex("hnsw"), pg_index.index_for(1_000_000)
    assert pg_index.needs_rebuild(None, 10)
    assert not pg_index.needs_rebuild(hnsw, 399_999)
    assert pg_index.needs_rebuild(hnsw, 400_000)
    assert not pg_index.needs_rebuild(ivf, 3_000_000) and pg_index.needs_rebuild(ivf, 5_000_000)
    assert pg_index.needs_rebuild(ivf, 100_000)


def test_catalog_options_read_back():
    assert PgVectorIndex.from_catalog("ivfflat", ["lists=1000"]) == PgVectorIndex("ivfflat", (("lists", 1000),))
    assert PgVectorIndex.from_catalog(None, None) is None
    assert PgVectorIndex("ivfflat", (("lists", 7),)).ddl("t", "i") == (
        "CREATE INDEX i ON t USING ivfflat (embedding vector_cosine_ops) WITH (lists = 7)")


def test_a_chosen_method_overrides_the_size_rule():
    """``vector_index=hnsw|ivfflat`` in the store URL: the method is the operator's, its
    parameters still follow the table's size (IVFFlat's lists, HNSW's search breadth)."""
    assert pg_index.index_for(1_000_000, "hnsw") == PgVectorIndex("hnsw")
    assert pg_index.index_for(50_000, "ivfflat") == PgVectorIndex("ivfflat", (("lists", 50),))
    assert pg_index.index_for(500, "ivfflat") == PgVectorIndex("ivfflat", (("lists", 1),))
    assert pg_index.index_for(50_000, "auto") == pg_index.index_for(50_000)
    assert not pg_index.needs_rebuild(PgVectorIndex("hnsw"), 5_000_000, "hnsw")
    assert pg_index.needs_rebuild(PgVectorIndex("hnsw"), 1_000, "ivfflat")

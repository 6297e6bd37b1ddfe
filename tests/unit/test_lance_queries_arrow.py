"""``lance_queries.arrow`` runs a query without lancedb's per-query schema round trip: the same
rows, columns and order as the public ``to_arrow`` for every kind of query the store runs."""

from __future__ import annotations

import numpy as np

from docshelf.stores.lance_queries import HIT_COLUMNS, arrow


def test_arrow_equals_to_arrow_for_every_query_kind(shelf, write, tmp_path):
    from lancedb.background_loop import LOOP
    from lancedb.query import MatchQuery

    docs = tmp_path / "docs"
    for i in range(30):
        write(docs, f"d{i}.md", f"# Doc {i}\n\nThe coral reef survey {i} counted {i * 3} fish near the glacier.")
    shelf.index([docs])
    table = shelf.store._chunks._table  # the engine's async handle, as the store uses it
    vector = np.asarray(shelf.embedder.embed_query("coral reef"), dtype=np.float32)
    row_ids = LOOP.run(table.query().select(["id"]).with_row_id().limit(5).to_arrow()).column("_rowid").to_pylist()
    queries = [
        lambda: table.query().nearest_to_text(MatchQuery("coral survey", "search_text")).select(HIT_COLUMNS + ["_score"]).limit(7),
        lambda: table.query().nearest_to_text(MatchQuery("reef", "search_text")).where("chunk_index = 0")
        .select(["id", "vector", "_score"]).with_row_id().limit(50),
        lambda: table.query().nearest_to(vector).column("vector").distance_type("cosine").select(["id", "_distance"]).limit(9),
        lambda: table.take_row_ids(row_ids).select(HIT_COLUMNS),
    ]
    for make in queries:
        mine, public = LOOP.run(arrow(make())), LOOP.run(make().to_arrow())
        assert mine.num_rows > 0
        assert mine.equals(public) and mine.schema == public.schema


def test_a_query_without_the_engine_handle_goes_the_public_way():
    import asyncio

    import pyarrow as pa

    class Plain:
        async def to_arrow(self):
            return pa.table({"id": ["a"]})

    assert asyncio.run(arrow(Plain())).column("id").to_pylist() == ["a"]

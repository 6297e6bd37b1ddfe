"""PostgreSQL-only mechanics the backend-agnostic suite cannot see: the binary COPY row format,
the vector index deferred during a bulk load and chosen by the table's size, and keyword
pruning that must not change results."""

from __future__ import annotations

import dataclasses
import json
import time
from contextlib import contextmanager

import numpy as np
import pytest

from backend_urls import fresh_url
from docshelf.models import Chunk, DocumentRecord, SearchFilters
from docshelf.stores import open_store, pg_index
from docshelf.stores.postgres_store import _CHUNK_COLUMNS

DIM = 8


@pytest.fixture
def store(request, tmp_path):
    store = open_store(tmp_path / "unused", DIM, fresh_url("postgres", request, tmp_path))
    yield store
    store.close()


def doc(path: str, texts: list[str], rng, **chunk_fields) -> tuple[DocumentRecord, list[Chunk], np.ndarray]:
    chunks = [
        Chunk(id=f"{path}#{i}", root="/r", path=path, collection=chunk_fields.get("collection", "main"),
              doc_type="doc", title=path, heading_path=(path,), chunk_index=i, text=t, embed_text=t,
              **{k: v for k, v in chunk_fields.items() if k != "collection"})
        for i, t in enumerate(texts)
    ]
    vectors = rng.standard_normal((len(texts), DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    record = DocumentRecord(root="/r", path=path, sha256="0" * 64, size=1, mtime_ns=1, status="indexed",
                            collection="main", doc_type="doc", chunk_count=len(chunks))
    return record, chunks, vectors


def has_hnsw(store) -> bool:
    with store._read() as cur:
        cur.execute("SELECT to_regclass(%s) IS NOT NULL", (store._t("chunks_embedding"),))
        return cur.fetchone()[0]


def test_binary_copy_keeps_every_field_and_the_exact_vector(store):
    rng = np.random.default_rng(1)
    hostile = "tab\there, new\nline, back\\slash, 'quote' \"dq\" {brace} [1,2] — café ☃ 𝄞"
    record, chunks, vectors = doc("a b/ü.md", [hostile, "plain"], rng, tags=("Ops", "x,y"), page=3, start_line=7,
                                  end_line=9, date="2024-02-29", metadata_json='{"k": "v\\n", "n": [1, 2]}', overlap=5)
    chunks[0] = dataclasses.replace(chunks[0], heading_path=('He said "hi"', "{a,b}", ""))
    chunks[1] = dataclasses.replace(chunks[1], page=None, date=None, heading_path=())
    store.replace_documents([(record, chunks, vectors)])
    got = store.get_chunks([c.id for c in chunks])
    assert [g.text for g in got] == [hostile, "plain"]
    assert got[0].heading_path == ('He said "hi"', "{a,b}", "")
    assert (got[0].tags, got[0].page, got[0].start_line, got[0].end_line, got[0].date, got[0].overlap) == (
        ("ops", "x,y"), 3, 7, 9, "2024-02-29", 5)
    assert (got[1].page, got[1].date, got[1].heading_path, got[1].tags) == (None, None, (), ("ops", "x,y"))
    assert json.loads(got[0].metadata_json) == {"k": "v\n", "n": [1, 2]}
    stored = store.document_vectors("/r", "a b/ü.md")
    assert np.array_equal(stored[hostile], vectors[0]) and np.array_equal(stored["plain"], vectors[1])
    assert [c.id for c, _ in store.text_search("café quote", 5)] == [chunks[0].id]
    assert [c.id for c, _ in store.text_search("plain", 5, SearchFilters(tags_all=("x,y",)))] == [chunks[1].id]


def test_bulk_load_builds_the_vector_index_once_at_the_end(store):
    rng = np.random.default_rng(2)
    first = [doc(f"d{i}.md", [f"text {i} {j}" for j in range(3)], rng) for i in range(20)]
    assert has_hnsw(store)
    store.replace_documents(first)
    assert not has_hnsw(store)  # dropped for the load into an empty table
    query = first[3][2][1]
    exact = [c.id for c, _ in store.vector_search(query, 5)]
    assert exact[0] == "d3.md#1"
    store.optimize()
    assert has_hnsw(store)
    assert [c.id for c, _ in store.vector_search(query, 5)] == exact
    store.replace_documents([doc("late.md", ["later"], rng)])
    assert has_hnsw(store)  # a table with rows keeps its index: later writes update it in place
    assert store.count_chunks() == 61


def vector_index_of(store) -> tuple[str | None, list[str]]:
    """The vector index's access method and build options, as the catalog has them."""
    with store._read() as cur:
        cur.execute(pg_index.DESCRIBE.format(stats=store._t("stats")), (store._t("chunks_embedding"),))
        method, options, _ = cur.fetchone()
    return method, sorted(options or [])


def settings_in_searches(store, monkeypatch) -> list[tuple[str, str, str, str]]:
    """Record, at the end of every read transaction, the vector settings in force in it
    (``SET LOCAL`` values vanish with the transaction, so they are read back inside it)."""
    seen, read = [], store._read

    @contextmanager
    def reading():
        with read() as cur:
            yield cur
            cur.execute("SELECT current_setting('hnsw.ef_search'), current_setting('hnsw.iterative_scan'), "
                        "current_setting('ivfflat.probes'), current_setting('ivfflat.iterative_scan')")
            seen.append(cur.fetchone())

    monkeypatch.setattr(store, "_read", reading)
    return seen


def test_vector_index_and_its_search_settings_follow_the_table_size(store, monkeypatch):
    """HNSW with a search breadth that grows with the rows, then IVFFlat once the table passes
    ``IVFFLAT_FROM_ROWS`` (thresholds scaled down here: 60 rows act as 300k, 120 as 1.2M)."""
    monkeypatch.setattr(pg_index, "IVFFLAT_FROM_ROWS", 100)
    monkeypatch.setattr(pg_index, "ROWS_PER_LIST", 10)
    monkeypatch.setattr(pg_index, "ROWS_PER_EF", 0.1)  # 60 rows: ef_search 600, as 300k rows get
    rng = np.random.default_rng(9)
    first = [doc(f"v{i}.md", [f"chunk {i} {j}" for j in range(3)], rng, collection=f"c{i % 2}") for i in range(20)]
    store.replace_documents(first)
    store.optimize()
    assert vector_index_of(store) == ("hnsw", [])
    seen = settings_in_searches(store, monkeypatch)
    query = first[4][2][2]
    assert [c.id for c, _ in store.vector_search(query, 5)][0] == "v4.md#2"
    assert seen[-1][:2] == ("600", "relaxed_order")  # the old code searched with 200 at any size

    more = [doc(f"w{i}.md", [f"more {i} {j}" for j in range(3)], rng, collection=f"c{i % 2}") for i in range(20)]
    store.replace_documents(more)  # a table with rows keeps its index: HNSW until optimize
    store.optimize()
    assert vector_index_of(store) == ("ivfflat", ["lists=12"])
    with store._read() as cur:  # the exact top 10 (an IVFFlat scan at its default reads one list)
        cur.execute("SET LOCAL enable_indexscan = off")
        cur.execute(f"SELECT id FROM {store._t('chunks')} ORDER BY embedding <=> %s::vector, id LIMIT 10",
                    ("[" + ",".join(map(str, query)) + "]",))
        exact = [r[0] for r in cur.fetchall()]
    assert [c.id for c, _ in store.vector_search(query, 10)] == exact  # 12 lists: every one probed
    assert seen[-1][2:] == ("12", "relaxed_order")
    only_c1 = store.vector_search(query, 10, SearchFilters(collections=("c1",)))
    assert len(only_c1) == 10 and {c.collection for c, _ in only_c1} == {"c1"}


def test_optimize_keeps_an_index_that_fits_and_rebuilds_one_trained_for_another_size(store, monkeypatch):
    monkeypatch.setattr(pg_index, "IVFFLAT_FROM_ROWS", 10)
    monkeypatch.setattr(pg_index, "ROWS_PER_LIST", 2)
    rng = np.random.default_rng(10)
    store.replace_documents([doc(f"g{i}.md", [f"t {i} {j}" for j in range(2)], rng) for i in range(10)])
    store.optimize()
    assert vector_index_of(store) == ("ivfflat", ["lists=10"])
    store.replace_documents([doc(f"h{i}.md", [f"u {i}"], rng) for i in range(10)])  # 30 rows: lists 15 would fit
    store.optimize()
    assert vector_index_of(store) == ("ivfflat", ["lists=10"])  # within a factor of REBUILD_GROWTH: kept
    store.replace_documents([doc(f"k{i}.md", [f"w {i} {j}" for j in range(5)], rng) for i in range(30)])
    store.optimize()  # 180 rows want 90 lists: more than 4 × 10
    assert vector_index_of(store) == ("ivfflat", ["lists=90"])
    assert store.count_chunks() == 180 and len(store.vector_search(np.ones(DIM, np.float32), 10)) == 10


def postings_of(store) -> list[tuple]:
    """The postings table, and what it must hold: each chunk's term frequencies and length."""
    with store._read() as cur:
        cur.execute(f"SELECT term, n, tf, tlen FROM {store._t('postings')} ORDER BY 1, 2")
        have = cur.fetchall()
        cur.execute(f"SELECT t.key, c.n, t.value::int, c.tlen FROM {store._t('chunks')} c, jsonb_each(c.tf) t ORDER BY 1, 2")
        return [have, cur.fetchall()]


RECOUNT = """
SELECT (SELECT count(*) FROM {chunks}), (SELECT coalesce(sum(tlen), 0) FROM {chunks}),
       (SELECT chunks FROM {stats}), (SELECT terms FROM {stats}),
       (SELECT array_agg(ROW(k, n) ORDER BY k) FROM (SELECT k, count(*) n FROM {chunks} c, jsonb_object_keys(c.tf) k GROUP BY k) a),
       (SELECT array_agg(ROW(term, df) ORDER BY term) FROM {terms})
"""


def statistics_of(store) -> tuple:
    """The keyword statistics kept (stats row, terms, postings) and the same recounted from
    the chunks themselves; equal pairs when the writer kept them exactly."""
    t = store._t
    with store._read() as cur:
        cur.execute(RECOUNT.format(chunks=t("chunks"), stats=t("stats"), terms=t("terms")))
        n, length, kept_n, kept_length, counted_df, kept_df = cur.fetchone()
    have, want = postings_of(store)

    def df(rows) -> dict[str, int]:
        return {term: int(count) for term, count in rows or ()}

    return ((kept_n, kept_length), df(kept_df), have), ((n, length), df(counted_df), want)


def triggers_on_chunks(store) -> list[str]:
    with store._read() as cur:
        cur.execute("SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal ORDER BY 1",
                    (store._t("chunks"),))
        return [r[0] for r in cur.fetchall()]


def test_the_writer_keeps_postings_and_statistics_without_triggers(store, monkeypatch):
    """No triggers on the chunks (Citus runs none on a distributed table): the writer keeps
    ``postings``, ``terms`` and ``stats`` itself, equal to a recount from the chunks after
    inserts, replacements (more, fewer, no chunks), deletes and a replacement that fails half
    way (rolled back with its chunks)."""
    from docshelf.stores import pg_stats

    assert triggers_on_chunks(store) == []
    rng = np.random.default_rng(5)
    store.replace_documents([doc(f"p{i}.md", [f"alpha beta {i}", f"beta gamma gamma {i}"], rng) for i in range(4)])
    store.replace_documents([doc("p1.md", ["delta alpha alpha alpha"], rng), doc("p9.md", ["omega"] * 3, rng)])
    store.replace_documents([doc("p0.md", [], rng)])
    store.delete_documents([("/r", "p2.md"), ("/r", "absent.md")])
    kept, counted = statistics_of(store)
    assert kept == counted
    assert kept[0][0] == 6 and kept[1]["beta"] == 2 and kept[1]["omega"] == 3
    assert {(t, tf) for t, _, tf, _ in kept[2]} >= {("alpha", 3), ("omega", 1), ("gamma", 2)}
    assert "2" not in kept[1] and "0" not in kept[1]  # the deleted documents' own terms went with them
    before = [(c.id, s) for c, s in store.text_search("alpha gamma", 5)]

    def crash(*_):
        raise RuntimeError("killed half way")

    monkeypatch.setattr(pg_stats, "apply", crash)  # after the chunks and postings were written
    with pytest.raises(RuntimeError, match="half way"):
        store.replace_documents([doc("p3.md", ["alpha " * 9], rng), doc("p5.md", ["quokka zebra"], rng)])
    monkeypatch.undo()
    assert statistics_of(store) == (kept, counted)
    assert [(c.id, s) for c, s in store.text_search("alpha gamma", 5)] == before
    store.replace_documents([doc("p3.md", ["alpha " * 9], rng), doc("p5.md", ["quokka zebra"], rng)])
    kept, counted = statistics_of(store)
    assert kept == counted and kept[0][0] == 6 and kept[1]["quokka"] == 1


def test_a_search_reads_statistics_and_chunks_of_one_moment(store, monkeypatch, request, tmp_path):
    """A write committed while a keyword search runs (after it read the statistics, before it
    read the chunks) is invisible to that search: it scores as before the write, not the new
    chunks by the old statistics (each search is one REPEATABLE READ snapshot)."""
    rng = np.random.default_rng(8)
    store.replace_documents([doc(f"k{i}.md", [f"kestrel hovers {i}", f"heron waits {i}"], rng) for i in range(3)])
    reader = open_store(tmp_path / "unused", DIM, f"{store.url}{'&' if '?' in store.url else '?'}prefix={store.prefix}")
    try:
        before = [(c.id, s) for c, s in reader.text_search("kestrel", 5)]
        weights = reader._weights

        def write_in_between(cur, weighted):
            found = weights(cur, weighted)
            store.replace_documents([doc("k9.md", ["kestrel kestrel kestrel"], rng)])
            return found

        monkeypatch.setattr(reader, "_weights", write_in_between)
        assert [(c.id, s) for c, s in reader.text_search("kestrel", 5)] == before
        monkeypatch.undo()
        after = [(c.id, s) for c, s in reader.text_search("kestrel", 5)]
        assert after[0][0] == "k9.md#0" and len(after) == 4
    finally:
        reader.close()


def test_per_query_settings_are_set_local_and_passed_to_citus_workers(store, monkeypatch):
    """Every search mode sets its planner and index settings with ``SET LOCAL``, after
    ``citus.propagate_set_commands = 'local'`` (Citus passes such settings on to the workers;
    a ``set_config()`` changes the coordinator only), and they end with the transaction."""
    import psycopg

    rng = np.random.default_rng(12)
    docs = [doc(f"s{i}.md", [f"kestrel hovers {i}", f"heron waits {i}"], rng, collection=f"c{i % 2}") for i in range(6)]
    store.replace_documents(docs)
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def spy(cur, query, *args, **kwargs):
        sent.append(str(query))
        return execute(cur, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", spy)
    store.vector_search(docs[0][2][0], 3)
    store.vector_search(docs[0][2][0], 3, SearchFilters(paths=("s1.md",)))  # too few: the exact fallback
    store.text_search("kestrel heron", 3)
    store.prune_above_matches = 0
    store.text_search("kestrel heron", 3)  # the postings path
    store.text_search("kestrl", 3, fuzziness=None)
    setting = [q for q in sent if q.lstrip().upper().startswith("SET") or "set_config" in q]
    assert setting and not any("set_config" in q for q in setting)
    assert all(q.startswith("SET LOCAL citus.propagate_set_commands = 'local'; SET LOCAL ") for q in setting)
    named = " ".join(setting)
    for name in ("hnsw.ef_search", "ivfflat.probes", "enable_indexscan", "enable_seqscan", "enable_hashagg",
                 "pg_trgm.similarity_threshold"):
        assert f"SET LOCAL {name} = " in named
    with store._read() as cur:
        cur.execute("SELECT current_setting('enable_seqscan'), current_setting('citus.propagate_set_commands', true)")
        seqscan, propagate = cur.fetchone()
    assert seqscan == "on" and propagate in (None, "")  # nothing outlived its transaction


def test_schema_1_index_is_migrated_to_postings(store):
    """An index written by the previous store schema (no postings) gets them on opening."""
    from docshelf.stores import postgres_store

    rng = np.random.default_rng(6)
    store.replace_documents([doc(f"m{i}.md", [f"old index words {i}", "more words"], rng) for i in range(3)])
    before = [(c.id, s) for c, s in store.text_search("words index", 5)]
    t = store._t
    with store._write() as cur:
        cur.execute(f"DROP TABLE {t('postings')}")
        cur.execute(f"ALTER TABLE {t('chunks')} DROP COLUMN n")
        cur.execute(f"UPDATE {t('meta')} SET value = '1' WHERE key = 'store_schema'")
    again = postgres_store.PostgresStore(f"{store.url}{'&' if '?' in store.url else '?'}prefix={store.prefix}", DIM)
    try:
        have, want = postings_of(again)
        assert have == want and len(have) > 10
        assert [(c.id, s) for c, s in again.text_search("words index", 5)] == before
    finally:
        again.close()


def test_schema_4_index_kept_by_triggers_is_migrated_to_the_writer_keeping_them(store):
    """An index of the previous store schema (statistics kept by statement triggers, written
    through them) loses its triggers on opening, keeps its statistics and search results, and
    later writes keep them exact (triggers left in place would count every write twice)."""
    import re

    from docshelf.stores import postgres_store
    from docshelf.stores.pg_schema import migrations

    rng = np.random.default_rng(13)
    store.replace_documents([doc(f"m{i}.md", [f"old index words {i}", "more words here"], rng) for i in range(4)])
    t = store._t
    with store._write() as cur:  # back to schema 4: its triggers, and writes that rely on them
        for step in migrations(store.prefix, DIM)[:2]:
            for ddl in re.findall(r"CREATE FUNCTION .*?\$\$;|CREATE TRIGGER .*?;", step, re.S):
                cur.execute(ddl)
        cur.execute(f"UPDATE {t('meta')} SET value = '4' WHERE key = 'store_schema'")
        columns = ", ".join(c for c in _CHUNK_COLUMNS.split(", ") if c not in ("id", "doc_key", "path"))
        cur.execute(f"INSERT INTO {t('chunks')} (id, doc_key, path, {columns}) SELECT id || 'copy', doc_key || 'copy', "
                    f"path || 'copy', {columns} FROM {t('chunks')} WHERE path = 'm0.md'")
        cur.execute(f"DELETE FROM {t('chunks')} WHERE path = 'm1.md'")
    assert len(triggers_on_chunks(store)) == 7
    kept, counted = statistics_of(store)
    assert kept[0] == counted[0] and kept[2] == counted[2] and kept[0][0] == 8  # the triggers counted those writes…
    assert kept[1] == counted[1] | {"1": 0}  # …but left the term only m1.md held at df 0
    kept = (kept[0], counted[1], kept[2])
    before = [(c.id, s) for c, s in store.text_search("words index", 5)]
    again = postgres_store.PostgresStore(f"{store.url}{'&' if '?' in store.url else '?'}prefix={store.prefix}", DIM)
    try:
        assert triggers_on_chunks(again) == []
        assert again.read_manifest() is None and statistics_of(again) == (kept, counted)
        assert [(c.id, s) for c, s in again.text_search("words index", 5)] == before
        again.replace_documents([doc("m2.md", ["words words words"], rng), doc("m7.md", ["index"], rng)])
        again.delete_documents([("/r", "m3.md")])
        kept, counted = statistics_of(again)
        assert kept == counted and kept[0][0] == 6
    finally:
        again.close()


def test_pruned_keyword_search_returns_exactly_what_scoring_every_match_returns(store):
    """Zipf-like vocabulary: common words match most chunks. Both fast paths (MaxScore over the
    postings index unfiltered, the GIN threshold queries with a filter) must return exactly
    what scoring every matching row returns, scores to the last bit."""
    rng = np.random.default_rng(3)
    vocab = [f"w{i}" for i in range(300)]
    weights = 1.0 / np.arange(1, 301)
    weights /= weights.sum()
    docs = []
    for d in range(60):
        texts = [" ".join(rng.choice(vocab, size=int(rng.integers(5, 40)), p=weights)) for _ in range(5)]
        docs.append(doc(f"z{d}.md", texts, rng, collection=f"c{d % 3}"))
    store.replace_documents(docs)
    store.optimize()
    queries = [" ".join(rng.choice(vocab, size=int(rng.integers(2, 7)), p=weights)) for _ in range(40)]
    queries += ["w0 w1 w2 w250", "w299 w0", "w0"]
    seen: list[str] = []
    scored: list[tuple[int, int]] = []  # postings path: rows scored, rows matching
    passes: list[int] = []
    original = store._bm25_rows

    def spy(cur, terms, *rest):
        required, match, params = rest[3], rest[4], rest[5]
        if required is None:
            cur.execute(f"SELECT count(*) FROM {store._t('chunks')} WHERE tsv @@ %s::tsquery", (" | ".join(terms),))
            scored.append((len(params[0]), cur.fetchone()[0]))
        else:
            seen.append(required)  # the tsquery the scored rows must match
        return original(cur, terms, *rest)

    few = SearchFilters(paths=tuple(f"z{d}.md" for d in range(0, 60, 10)))  # 30 of 300 chunks
    for filters in (None, SearchFilters(collections=("c1",)), few):
        store.prune_above_matches = 10**9
        full = [[(c.id, s) for c, s in store.text_search(q, 7, filters)] for q in queries]
        store.prune_above_matches, store.probe_matches = 0, 5
        store._bm25_rows = spy
        pruned = []
        for q in queries:
            before = len(seen)
            pruned.append([(c.id, s) for c, s in store.text_search(q, 7, filters)])
            passes.append(len(seen) - before)
        store._bm25_rows = original
        assert pruned == full
        assert sum(len(r) for r in full) > (60 if filters is few else 150)
    assert len(scored) == len(queries)  # unfiltered: always the postings path
    assert sum(n < matching / 2 for n, matching in scored) > 10  # …which scored few of the matching rows
    assert any("&" in required for required in seen)  # filtered: pruning asked for combinations of terms
    assert max(passes) >= 3  # a filtered probe found too few rows and was widened


def test_threshold_tsquery_keeps_every_row_that_can_reach_the_floor(store):
    """``tsquery_above`` must match every row whose query terms' weights sum past ``theta``
    (else pruning would lose results) and should reject many others; checked by the server's
    own ``@@`` on random term sets, at every size of query the depth limit changes."""
    from docshelf.stores.pg_sql import tsquery_above

    rng = np.random.default_rng(4)
    checked = rejected = 0
    with store._read() as cur:
        for n_terms in (1, 2, 3, 5, 8, 12, 16):
            terms = [f"t{i}" for i in range(n_terms)]
            weights = list(rng.uniform(0.5, 12.0, n_terms))
            for fraction in (0.0, 0.2, 0.5, 0.8, 0.99, 1.0):
                theta = fraction * sum(weights)
                query = tsquery_above(terms, weights, theta)
                rows = [[t for t in terms if rng.random() < p] for p in (0.2, 0.5, 0.8) for _ in range(15)]
                rows = [r for r in rows if r]
                if query is None:
                    assert all(sum(weights[terms.index(t)] for t in r) <= theta for r in rows)
                    continue
                cur.execute("SELECT v::tsvector @@ %s::tsquery FROM unnest(%s::text[]) v", (query, [" ".join(r) for r in rows]))
                for r, (matched,) in zip(rows, cur.fetchall(), strict=True):
                    needed = sum(weights[terms.index(t)] for t in r) > theta
                    assert matched or not needed, (terms, weights, theta, r, query)
                    checked += needed
                    rejected += not matched
    assert checked > 100 and rejected > 100


def test_runs_on_the_key_citus_needs(request, tmp_path, write):
    """The README's Citus recipe makes the chunks' primary key (doc_key, id); docshelf must not
    rely on ``id`` alone being the key (index, edit, delete, search, get by id)."""
    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf

    url = fresh_url("postgres", request, tmp_path)
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nThe kestrel hovers over the field.\n")
    write(docs, "b.md", "# B\n\nThe heron waits in the reeds.\n")
    shelf = Docshelf(Settings(index_dir=tmp_path / "i", store=url), embedder=FakeEmbedder())
    shelf.index([docs])
    store = shelf.store
    with store._write() as cur:
        cur.execute(f"ALTER TABLE {store._t('chunks')} DROP CONSTRAINT {store._t('chunks_pkey')}, "
                    "ADD PRIMARY KEY (doc_key, id)")
        cur.execute(f"CREATE INDEX {store._t('chunks_id')} ON {store._t('chunks')} (id)")
    write(docs, "a.md", "# A\n\nThe kestrel hovers over the meadow at dawn.\n")
    (docs / "b.md").unlink()
    write(docs, "c.md", "# C\n\nThe heron and the kestrel share the marsh.\n")
    report = shelf.index([docs])
    assert (len(report.added), len(report.updated), len(report.removed)) == (1, 1, 1)
    hits = shelf.search("kestrel", mode="keyword", k=5).hits
    assert sorted(h.path for h in hits) == ["a.md", "c.md"]
    assert [c.text for c in store.get_chunks([hits[0].chunk_id])] == [hits[0].text]
    assert [h.path for h in shelf.search("heron reeds", mode="keyword").hits] == ["c.md"]
    shelf.release_writer()
    store.close()


def test_the_store_url_can_choose_the_vector_index_method(request, tmp_path, monkeypatch):
    """``?vector_index=ivfflat`` builds IVFFlat on a table the size rule gives HNSW, and
    ``hnsw`` keeps HNSW past the rule's switch; any other value is a configuration error."""
    from docshelf.errors import ConfigError

    monkeypatch.setattr(pg_index, "IVFFLAT_FROM_ROWS", 10)
    rng = np.random.default_rng(11)
    docs = [doc(f"o{i}.md", [f"text {i} {j}" for j in range(3)], rng) for i in range(10)]
    for method, want in (("ivfflat", ("ivfflat", ["lists=1"])), ("hnsw", ("hnsw", [])), ("auto", ("ivfflat", ["lists=1"]))):
        store = open_store(tmp_path / "unused", DIM, fresh_url("postgres", request, tmp_path) + f"&vector_index={method}")
        try:
            store.replace_documents(docs)
            store.optimize()
            assert vector_index_of(store) == want, method
            assert [c.id for c, _ in store.vector_search(docs[2][2][1], 3)][0] == "o2.md#1"
        finally:
            store.close()
    with pytest.raises(ConfigError, match="vector_index must be auto, hnsw or ivfflat"):
        open_store(tmp_path / "unused", DIM, fresh_url("postgres", request, tmp_path) + "&vector_index=flat")
    began = time.monotonic()  # a misspelt libpq parameter: said at once, not after the pool's 30 s
    with pytest.raises(ConfigError, match='invalid PostgreSQL URL .*invalid URI query parameter: "sslmod"'):
        open_store(tmp_path / "unused", DIM, fresh_url("postgres", request, tmp_path) + "&sslmod=require")
    assert time.monotonic() - began < 5


def test_searches_go_to_the_read_url_and_the_writer_plans_from_the_primary(request, tmp_path, write):
    """``store_read_url``: readers search the replica; the writer reads the primary, which it just
    wrote (a replica lags: planning a run from it re-indexed what the last run had added).
    The "replica" here is a second database holding a copy that never catches up."""
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf

    primary = fresh_url("postgres", request, tmp_path)
    parts = urlsplit(primary)
    name = f"replica_{parts.query.rsplit('prefix=', 1)[1].rstrip('_')}"
    replica = urlunsplit(parts._replace(path=f"/{name}"))
    with psycopg.connect(urlunsplit(parts._replace(query="&".join(
            q for q in parts.query.split("&") if not q.startswith("prefix=")))), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nThe kestrel hovers.\n")
    write(docs, "b.md", "# B\n\nThe heron waits.\n")
    first = Docshelf(Settings(index_dir=tmp_path / "i", store=primary), embedder=FakeEmbedder())
    first.index([docs])
    assert first.migrate_to(replica, sample=2).ok  # the replica's copy: a.md and b.md
    first.release_writer()
    first.store.close()

    write(docs, "c.md", "# C\n\nThe cormorant dives.\n")
    settings = Settings(index_dir=tmp_path / "i", store=primary, store_read_url=replica)
    writer, reader = (Docshelf(settings, embedder=FakeEmbedder()) for _ in range(2))
    try:
        assert writer.try_become_writer()  # as a server's writer loop holds it
        assert writer.index([docs]).added == ["c.md"]
        again = writer.index([docs])
        assert (again.added, again.updated, again.unchanged) == ([], [], 3)
        assert [h.path for h in writer.search("cormorant", mode="keyword").hits] == ["c.md"]
        assert not reader.search("cormorant", mode="keyword").hits  # the replica has not caught up
        assert [h.path for h in reader.search("heron", mode="keyword").hits] == ["b.md"]
    finally:
        for shelf in (writer, reader):
            shelf.release_writer()
            shelf.store.close()


def test_an_index_run_with_nothing_changed_still_builds_a_missing_or_unwanted_vector_index(request, tmp_path, write):
    """``optimize`` runs after runs that change enough; a vector index that is missing (a bulk
    load dropped it and the process died before building it: every search then scans) or of
    another method than ``vector_index=`` asks for is built by the next run, changed or not."""
    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf

    url = fresh_url("postgres", request, tmp_path)
    docs = tmp_path / "docs"
    for i in range(5):
        write(docs, f"d{i}.md", f"# D{i}\n\nThe grebe number {i} dives.\n")
    shelf = Docshelf(Settings(index_dir=tmp_path / "i", store=url), embedder=FakeEmbedder())
    shelf.index([docs])
    assert vector_index_of(shelf.store)[0] == "hnsw"
    with shelf.store._write() as cur:
        cur.execute(f"DROP INDEX {shelf.store._t('chunks_embedding')}")
    assert shelf.index([docs]).unchanged == 5
    assert vector_index_of(shelf.store)[0] == "hnsw"
    shelf.store.close()

    shelf = Docshelf(Settings(index_dir=tmp_path / "i", store=url + "&vector_index=ivfflat"), embedder=FakeEmbedder())
    assert shelf.index([docs]).unchanged == 5
    assert vector_index_of(shelf.store) == ("ivfflat", ["lists=1"])
    shelf.release_writer()
    shelf.store.close()


def test_a_writer_whose_lock_session_ended_writes_nothing_beside_the_one_that_took_over(request, tmp_path, write):
    """The advisory lock lives as long as its session: when that session ends (the database
    restarted or failed over, an idle connection was cut), another server takes the lock. The
    old writer must not go on writing beside it: its writes go through the lock's session, so
    they fail with ``IndexLocked`` (before: both wrote, two writers on one index)."""
    import psycopg

    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.errors import IndexLocked
    from docshelf.service import Docshelf

    url = fresh_url("postgres", request, tmp_path)
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nThe avocet wades.\n")
    old, new = (Docshelf(Settings(index_dir=tmp_path / name, store=url), embedder=FakeEmbedder()) for name in "ab")
    try:
        assert old.try_become_writer()
        old.index([docs])
        key = old.store._lock_key("writer")  # a bigint advisory lock: its high and low halves
        with psycopg.connect(request.getfixturevalue("postgres_url"), autocommit=True) as admin:
            (holder,) = admin.execute(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 "
                "AND classid = %s::oid AND objid = %s::oid", ((key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF)).fetchall()
            admin.execute("SELECT pg_terminate_backend(%s)", holder)
        assert new.try_become_writer()
        write(docs, "b.md", "# B\n\nThe bittern booms.\n")
        with pytest.raises(IndexLocked, match="lost the writer lock"):
            old.index([docs])
        assert [r.path for r in new.store.records()] == ["a.md"]
        assert new.index([docs]).added == ["b.md"]
    finally:
        for shelf in (old, new):
            shelf.release_writer()
            shelf.store.close()

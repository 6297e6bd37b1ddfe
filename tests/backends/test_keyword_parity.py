"""Keyword parity: docshelf's BM25 (``stores/lexical.py``, used by PostgreSQL and Qdrant) scores
as LanceDB's full-text index does, so keyword search ranks the same on every backend.

The corpus holds what used to differ: a query that repeats a word (LanceDB counts it once per
occurrence), ``Å`` (LanceDB drops stop words *before* ASCII folding, so ``å`` is kept and
folded to ``a``), a token of exactly 40 bytes (LanceDB keeps only tokens below 40 bytes) and
chunks of different lengths (the length normalisation)."""

from __future__ import annotations

import pytest

from docshelf.config import Settings
from docshelf.embedders.fake import FakeEmbedder
from docshelf.service import Docshelf
from docshelf.stores import lexical

from backend_urls import fresh_url

LONG = "x" * 36 + "abcd"  # 40 bytes: LanceDB drops it
DOCS = {
    "iron.md": "# Iron\n\nCytosolic proteins bind to iron-responsive elements on mRNAs coding for DMT1.\n",
    "ferritin.md": "# Ferritin\n\nIron storage: ferritin holds iron. Iron release needs proteins and "
                   "reductases, and iron uptake into cells is regulated by iron-responsive elements.\n",
    "angstrom.md": "# Structure\n\nThe helix spans 5 Å to 12 Å, Å by Å, in crystal structures of the proteins.\n",
    "crystal.md": "# Crystal\n\nCrystal structures at high resolution of small proteins, solved in 2010.\n",
    "long.md": f"# Tokens\n\nThe identifier {LONG} appears in the proteins table with iron.\n",
    "short.md": "# Short\n\nproteins\n",
    "mixed.md": "# Mixed\n\nCafé résumé naïve Straße proteins bind elements.\n",
}
QUERIES = [
    "Cytosolic proteins bind to iron-responsive elements. Cytosolic proteins bind iron in iron uptake.",
    "iron iron iron proteins",
    "crystal structures of proteins",
    "helix Å",
    f"{LONG} table",
    "cafe resume strasse",
    "proteins",
]


def lance_bm25(query: str, docs: dict[str, str]) -> dict[str, float]:
    """BM25 of ``query`` over ``docs`` (id → indexed text) from ``lexical`` alone."""
    counted = {i: lexical.term_counts(t) for i, t in docs.items()}
    n = len(counted)
    avgdl = sum(length for _, length in counted.values()) / n
    df: dict[str, int] = {}
    for tf, _ in counted.values():
        for term in tf:
            df[term] = df.get(term, 0) + 1
    out = {}
    for i, (tf, length) in counted.items():
        score = sum(w * lexical.idf(n, df[t]) * lexical.tf_weight(tf.get(t, 0), length, avgdl)
                    for t, w in lexical.query_terms(query).items() if t in df)
        if score > 0:
            out[i] = score
    return out


def test_lexical_bm25_equals_lancedb_fts(tmp_path):
    """The formula and analyser against LanceDB's own index directly (no docshelf search layer)."""
    import lancedb
    import pyarrow as pa
    from lancedb.index import FTS
    from lancedb.query import MatchQuery

    from docshelf.analysis import searchable_text

    texts = {name: searchable_text(body) for name, body in DOCS.items()}
    table = lancedb.connect(tmp_path / "db").create_table(
        "t", pa.table({"id": list(texts), "search_text": list(texts.values())}))
    table.create_index("search_text", config=FTS(with_position=False, stem=True, remove_stop_words=True,
                                                 ascii_folding=True), replace=True)
    for query in QUERIES:
        rows = table.search(MatchQuery(query, "search_text"), query_type="fts").select(["id", "_score"]).limit(10).to_list()
        want = {r["id"]: r["_score"] for r in rows}
        got = lance_bm25(query, texts)
        assert set(got) == set(want), query
        for i, score in want.items():
            assert got[i] == pytest.approx(score, rel=1e-5), (query, i)


def test_analyser_follows_lancedb_order():
    assert lexical.terms("Å") == ["a"]  # not a stop word before folding
    assert lexical.terms("the a") == []
    assert lexical.terms(LONG) == [] and lexical.terms(LONG[:-1]) == [LONG[:-1]]
    assert lexical.terms("Straße Café") == ["strasse", "cafe"]  # stemmed unfolded, then folded
    assert lexical.query_terms("iron iron bind") == {"iron": 2.0, "bind": 1.0}


@pytest.fixture(scope="module")
def shelves(tmp_path_factory, request):
    tmp = tmp_path_factory.mktemp("keyword-parity")
    docs = tmp / "docs"
    docs.mkdir()
    for name, body in DOCS.items():
        (docs / name).write_text(body, encoding="utf-8")
    embedder = FakeEmbedder()
    embedded = Docshelf(Settings(index_dir=tmp / "index"), embedder=embedder)
    embedded.index([docs])
    out = {"embedded": embedded}
    for kind in ("postgres", "qdrant"):
        url = fresh_url(kind, request, tmp)
        assert embedded.migrate_to(url, sample=3).ok
        out[kind] = Docshelf(Settings(index_dir=tmp / f"unused-{kind}", store=url), embedder=embedder)
    yield out
    for shelf in out.values():
        shelf.release_writer()
        close = getattr(shelf.store, "close", None)
        if close:
            close()


@pytest.mark.parametrize("backend", ["postgres", "qdrant"])
def test_keyword_search_ranks_and_scores_as_the_embedded_store(shelves, backend):
    for query in QUERIES:
        want = shelves["embedded"].store.text_search(query, 10)
        got = shelves[backend].store.text_search(query, 10)
        assert [c.id for c, _ in got] == [c.id for c, _ in want], query
        assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-4), query
        hits = shelves[backend].search(query, k=5, mode="keyword").hits
        assert [h.chunk_id for h in hits] == [h.chunk_id for h in shelves["embedded"].search(query, k=5, mode="keyword").hits]


def test_qdrant_optimize_refits_the_average_length(tmp_path, request):
    """Qdrant's sparse vectors are written for the average chunk length of the first write;
    once longer documents arrive, ``optimize`` (run by ``index`` after a large change) rewrites
    them for the true average, so scores equal the embedded store's again."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "short.md").write_text(DOCS["short.md"], encoding="utf-8")
    embedder = FakeEmbedder()
    qdrant = Docshelf(Settings(index_dir=tmp_path / "unused", store=fresh_url("qdrant", request, tmp_path)), embedder=embedder)
    qdrant.index([docs])  # the stored average length: one very short chunk
    for name, body in DOCS.items():
        (docs / name).write_text(body, encoding="utf-8")
    qdrant.index([docs])
    embedded = Docshelf(Settings(index_dir=tmp_path / "index"), embedder=embedder)
    embedded.index([docs])
    try:
        for query in QUERIES:
            want = embedded.store.text_search(query, 10)
            got = qdrant.store.text_search(query, 10)
            assert [c.id for c, _ in got] == [c.id for c, _ in want], query
            assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-4), query
    finally:
        for shelf in (embedded, qdrant):
            shelf.release_writer()
        qdrant.store.close()

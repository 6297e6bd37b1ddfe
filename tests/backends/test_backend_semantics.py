"""The same behaviour from every backend: indexing, every mode and filter, citations, paging,
the manifest refusal and the writer lock (the embedded store's tests are the reference)."""

from __future__ import annotations

import pytest

from docshelf.embedders.fake import FakeEmbedder
from docshelf.errors import EmbedderMismatch, IndexLocked
from docshelf.models import SearchFilters

MODES = ["keyword", "semantic", "fuzzy", "hybrid"]


def note(title: str, body: str, **front: object) -> str:
    lines = ["---"] + [f"{k}: {v}" for k, v in front.items()] + ["---"] if front else []
    return "\n".join(lines + [f"# {title}", "", body, ""])


def paths(shelf, query: str, mode: str = "keyword", **filters) -> list[str]:
    return sorted(h.path for h in shelf.search(query, k=20, mode=mode, filters=SearchFilters(**filters)).hits)


@pytest.fixture
def filtered(backend_shelf, write, tmp_path):
    docs = tmp_path / "docs"
    write(docs, "guides/alpha.md", note("Alpha", "Rotate the signing keys every month.", tags="[security, ops]",
                                        date="2024-01-15", status="draft"))
    write(docs, "guides/beta.md", note("Beta", "Rotate the signing keys with the CLI.", tags="[security]",
                                       date="2024-03-01", status="final"))
    write(docs, "api/gamma.md", note("Gamma", "Rotate signing keys through the API.", tags="[ops]", date="2024-06-30"))
    write(docs, "api/undated.md", note("Undated", "Rotate signing keys, no date given.", type="note"))
    write(docs, "meetings/delta.md", note("Delta", "We discussed how to rotate signing keys.", type="minutes",
                                          date="2024-02-01"))
    shelf = backend_shelf(
        search_doc_types=["doc", "note"],
        collections=[{"name": "api", "include": ["api/**"]}, {"name": "guides", "include": ["guides/**"]}],
    )
    shelf.index([docs])
    return shelf


@pytest.mark.parametrize("mode", MODES)
def test_every_filter_in_every_mode(filtered, mode):
    s, q = filtered, "rotate signing keys"
    assert paths(s, q, mode) == ["api/gamma.md", "api/undated.md", "guides/alpha.md", "guides/beta.md"]
    assert paths(s, q, mode, doc_types=("minutes",)) == ["meetings/delta.md"]
    assert paths(s, q, mode, collections=("api",)) == ["api/gamma.md", "api/undated.md"]
    assert paths(s, q, mode, collections=("api", "guides"), doc_types=("doc",)) == [
        "api/gamma.md", "guides/alpha.md", "guides/beta.md"
    ]
    assert paths(s, q, mode, date_from="2024-01-15", date_to="2024-03-01") == ["guides/alpha.md", "guides/beta.md"]
    assert paths(s, q, mode, date_from="2024-03-01") == ["api/gamma.md", "guides/beta.md"]
    assert paths(s, q, mode, date_to="2024-01-15", doc_types=("doc", "note", "minutes")) == ["guides/alpha.md"]
    assert paths(s, q, mode, path_prefix="guides/") == ["guides/alpha.md", "guides/beta.md"]
    assert paths(s, q, mode, path_prefix="/api") == ["api/gamma.md", "api/undated.md"]
    assert paths(s, q, mode, path_glob="**/*a.md") == ["api/gamma.md", "guides/alpha.md", "guides/beta.md"]
    assert paths(s, q, mode, path_glob="api/*") == ["api/gamma.md", "api/undated.md"]
    assert paths(s, q, mode, tags_any=("ops",)) == ["api/gamma.md", "guides/alpha.md"]
    assert paths(s, q, mode, tags_any=("#Security", "nothing")) == ["guides/alpha.md", "guides/beta.md"]
    assert paths(s, q, mode, tags_all=("security", "ops")) == ["guides/alpha.md"]
    assert paths(s, q, mode, fields=(("status", "Final"),)) == ["guides/beta.md"]
    assert paths(s, q, mode, fields=(("status", "draft"), ("type", "doc"))) == []
    assert paths(s, q, mode, paths=("guides/beta.md", "api/gamma.md")) == ["api/gamma.md", "guides/beta.md"]
    assert paths(s, q, mode, paths=()) == []


def test_links_backlinks_and_linked_to(backend_shelf, write, tmp_path):
    docs = tmp_path / "vault"
    write(docs, "a/Budget.md", "# Budget\n\nThe yearly budget for rockets.\n")
    write(docs, "a/Log.md", "# Log\n\nWe reviewed [[Budget|the budget]] for rockets.\n")
    write(docs, "b/Other.md", "# Other\n\nNothing about [[Missing note]] rockets.\n")
    shelf = backend_shelf()
    shelf.index([docs])
    note = shelf.get_note("Budget")
    assert note.backlinks == ("a/Log.md",)
    assert [(l.target, l.path) for l in shelf.get_note("Log").links] == [("Budget", "a/Budget.md")]
    hits = shelf.search("rockets", k=10, mode="keyword", linked_to=["Budget"]).hits
    assert {h.path for h in hits} == {"a/Log.md"}


@pytest.mark.parametrize("mode", MODES)
def test_a_selective_filter_still_returns_k_hits(backend_shelf, write, tmp_path, mode):
    """Eighty loud documents outrank the six that match the filter: a post-filter would find none."""
    docs = tmp_path / "docs"
    for i in range(80):
        write(docs, f"loud/{i:02d}.md", f"# Loud {i}\n\nrotate signing keys rotate signing keys rotate keys {i}")
    topics = ["gardening tomatoes", "baking bread", "sailing knots", "tax forms", "bird songs", "chess openings"]
    for i, topic in enumerate(topics):
        write(docs, f"quiet/{i}.md", f"# Quiet {i}\n\nA long note on {topic} and other things, and once: rotate keys.")
    shelf = backend_shelf()
    shelf.index([docs])
    assert all(h.path.startswith("loud/") for h in shelf.search("rotate signing keys", k=5, mode=mode).hits)
    hits = shelf.search("rotate signing keys", k=5, mode=mode, filters=SearchFilters(path_prefix="quiet/")).hits
    assert len(hits) == 5 and all(h.path.startswith("quiet/") for h in hits)


def test_incremental_edit_delete_rename(backend_shelf, write, tmp_path):
    docs = tmp_path / "docs"
    a = write(docs, "a.md", "# Alpha\n\nOriginal wording about zebras.")
    gone = write(docs, "gone.md", "# Gone\n\ndelete this walrus")
    old = write(docs, "old/name.md", "# Moving\n\nthe pelican document moves")
    fake = FakeEmbedder()
    shelf = backend_shelf(fake)
    assert sorted(shelf.index([docs]).added) == ["a.md", "gone.md", "old/name.md"]
    embedded = fake.texts_embedded
    again = shelf.index([docs])
    assert (again.unchanged, again.chunks_embedded, fake.texts_embedded) == (3, 0, embedded)

    a.write_text("# Alpha\n\nNew wording about giraffes.")
    gone.unlink()
    (docs / "new").mkdir()
    old.rename(docs / "new/name.md")
    report = shelf.index([docs])
    assert (report.updated, sorted(report.removed), report.added) == (["a.md"], ["gone.md", "old/name.md"], ["new/name.md"])
    assert paths(shelf, "zebras") == [] and paths(shelf, "giraffes") == ["a.md"]
    assert paths(shelf, "walrus") == []
    assert paths(shelf, "pelican") == ["new/name.md"]
    assert shelf.store.count_chunks() == 2
    assert sorted(r.path for r in shelf.store.records()) == ["a.md", "new/name.md"]


def test_editing_one_section_reuses_the_other_vectors(backend_shelf, write, tmp_path):
    docs = tmp_path / "docs"
    sections = [f"## Part {i}\n\n" + f"Paragraph {i} about topic {i}. " * 60 for i in range(3)]
    path = write(docs, "long.md", "# Long\n\n" + "\n\n".join(sections))
    fake = FakeEmbedder()
    shelf = backend_shelf(fake)
    shelf.index([docs])
    chunks = shelf.store.count_chunks()
    assert chunks >= 3
    before = fake.texts_embedded
    path.write_text("# Long\n\n" + "\n\n".join(sections[:2] + [sections[2].replace("topic 2", "subject 2")]))
    shelf.index([docs])
    assert 0 < fake.texts_embedded - before < chunks


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_scores_in_unit_range_and_cites(backend_shelf, write, tmp_path, mode):
    docs = tmp_path / "docs"
    write(docs, "guide.md", "# Guide\n\n## Keys\n\nparseHTTPHeader rotates the signing keys.\n\nMore text here.\n")
    write(docs, "other.md", "# Other\n\nNothing about that at all, just bread and butter.\n")
    shelf = backend_shelf()
    shelf.index([docs])
    result = shelf.search("parse http header signing keys", k=5, mode=mode)
    assert result.mode == mode and result.hits
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    top = result.hits[0]
    assert (top.path, top.title, top.heading_path, top.start_line) == ("guide.md", "Guide", ("Guide", "Keys"), 5)
    assert shelf.neighbors(top.chunk_id)[0].path == "guide.md"
    assert "parseHTTPHeader rotates the signing keys." in shelf.get_document("guide.md").text


def test_keyword_and_fuzzy_semantics(backend_shelf, write, tmp_path):
    docs = tmp_path / "docs"
    write(docs, "k8s.md", "# Cluster\n\nDeploy the service on Kubernetes with the PIC-SURE adapter.")
    write(docs, "misc.md", "# Misc\n\nA note on gardening and tomatoes.")
    shelf = backend_shelf()
    shelf.index([docs])
    # Identifier parts and joined names meet; stemming makes "deploying" find "Deploy".
    assert paths(shelf, "picsure") == ["k8s.md"]
    assert paths(shelf, "deploying") == ["k8s.md"]
    assert paths(shelf, "kubermetes", "keyword") == []
    assert paths(shelf, "kubermetes", "fuzzy") == ["k8s.md"]
    assert paths(shelf, "pic sure", "fuzzy") == ["k8s.md"]
    assert paths(shelf, "tomatos", "fuzzy") == ["misc.md"]


def test_text_scores_are_bm25_like_the_embedded_store(backend_shelf, write, tmp_path):
    """Raw keyword scores feed the fusion: rarer terms and shorter chunks score higher, on a BM25 scale."""
    docs = tmp_path / "docs"
    write(docs, "rare.md", "# R\n\nzeppelin")
    write(docs, "common.md", "# C\n\nballoon balloon zeppelin " + "filler words here " * 30)
    for i in range(8):
        write(docs, f"b{i}.md", f"# B{i}\n\nballoon number {i}")
    shelf = backend_shelf()
    shelf.index([docs])
    rows = shelf.store.text_search("zeppelin", 10)
    assert [c.path for c, _ in rows] == ["rare.md", "common.md"]
    assert 0.5 < rows[0][1] < 5  # idf(df=2 of 10) ≈ 1.5, tf part ≈ 1.3: a BM25-sized number
    scores = shelf.store.text_scores("zeppelin balloon", [c.id for c, _ in rows])
    assert set(scores) == {c.id for c, _ in rows}
    assert scores[rows[1][0].id] > rows[1][1] and scores[rows[0][0].id] == pytest.approx(rows[0][1], rel=1e-4)


def test_paging_documents(backend_shelf, write, tmp_path):
    docs = tmp_path / "docs"
    for name in ["c", "a", "e", "b", "d"]:
        write(docs, f"{name}.md", f"# {name}\n\ntext {name}")
    shelf = backend_shelf()
    shelf.index([docs])
    first = shelf.list_documents(limit=2)
    second = shelf.list_documents(limit=2, cursor=first.next_cursor)
    third = shelf.list_documents(limit=2, cursor=second.next_cursor)
    pages = first.documents + second.documents + third.documents
    assert [r.path for r in pages] == ["a.md", "b.md", "c.md", "d.md", "e.md"]
    assert (first.total, third.next_cursor) == (5, None)


def test_manifest_is_kept_in_the_backend_and_a_mismatch_is_refused(backend_shelf, write, tmp_path):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\ntext")
    shelf = backend_shelf()
    shelf.index([docs])
    reopened = backend_shelf()
    assert reopened.store.read_manifest()["embedder"]["model_id"] == "fake-64"
    with pytest.raises(EmbedderMismatch, match="docshelf index --force"):
        backend_shelf(FakeEmbedder(dimensions=32))


def test_one_writer_at_a_time_and_the_other_takes_over(backend_shelf, write, tmp_path):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\ntext")
    first, second = backend_shelf(), backend_shelf()
    assert first.try_become_writer()
    with pytest.raises(IndexLocked):
        second.index([docs], lock_timeout=0)
    assert not second.try_become_writer()
    first.release_writer()
    assert second.try_become_writer()
    assert second.index([docs], lock_timeout=0).added == ["a.md"]
    second.release_writer()


def test_concurrent_writer_and_readers(backend, backend_shelf, write, tmp_path):
    """Readers on their own connections search while the writer indexes: no errors, and they
    see every document once the writer is done. On PostgreSQL a document's chunks and record
    commit together, so a hit's document is always complete; LanceDB and Qdrant commit the
    record just after the chunks (see the README), so there a hit may briefly precede it."""
    import threading

    docs = tmp_path / "docs"
    write(docs, "seed.md", "# Seed\n\nthe seed walrus document")
    writer = backend_shelf()
    writer.index([docs])
    readers = [backend_shelf(), backend_shelf()]
    for i in range(30):
        write(docs, f"batch/{i:02d}.md", f"# Doc {i}\n\n" + f"walrus section {i}. " * 150)
    errors: list[BaseException] = []
    done = threading.Event()

    def read(shelf) -> None:
        while not done.is_set():
            try:
                for hit in shelf.search("walrus section", k=10, mode="hybrid").hits:
                    if backend != "postgres":
                        continue
                    record = shelf.find_document(hit.path)
                    assert len(shelf.store.document_chunks(hit.root, hit.path)) == record.chunk_count
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
                return

    threads = [threading.Thread(target=read, args=(r,)) for r in readers]
    for t in threads:
        t.start()
    try:
        report = writer.index([docs])
    finally:
        done.set()
        for t in threads:
            t.join(30)
    assert errors == []
    assert len(report.added) == 30
    for reader in readers:
        reader.store.refresh()
        assert len(reader.store.records()) == 31
        assert reader.store.count_chunks() == writer.store.count_chunks()


def test_another_thread_of_the_writer_process_waits_too(backend_shelf):
    import threading

    shelf = backend_shelf()
    assert shelf.try_become_writer()
    assert shelf.try_become_writer()  # re-entrant in the holding thread
    seen: list[bool] = []
    other = threading.Thread(target=lambda: seen.append(shelf.try_become_writer()))
    other.start()
    other.join()
    assert seen == [False]
    shelf.release_writer()
    other = threading.Thread(target=lambda: (seen.append(shelf.try_become_writer()), shelf.release_writer()))
    other.start()
    other.join()
    assert seen == [False, True]


def test_a_released_writer_lock_is_free_at_once(backend_shelf):
    """``release_writer`` returns once another thread or process can take the lock: PostgreSQL
    frees a closed session's advisory locks only after that session's server process exits,
    and a thread taking over at once found it still held (seen in CI under load)."""
    import threading

    shelf = backend_shelf()
    for _ in range(30):
        assert shelf.try_become_writer()
        shelf.release_writer()
        got: list[bool] = []
        other = threading.Thread(target=lambda: (got.append(shelf.try_become_writer()), shelf.release_writer()))
        other.start()
        other.join()
        assert got == [True]


def test_equal_scores_come_back_in_path_order(backend_shelf, write, tmp_path):
    """Twelve copies of one passage score exactly alike in BM25 and cosine; which of them make a
    top-5 cut, and in what order, must not depend on the engine's scan order (engines return
    ties in any order, and a hybrid pool that differed by one tie at its edge moved answers
    between two runs of one search). Ties up to ``TIE_SLACK`` past the cut are settled by path
    (then chunk index, then id: ``stores/ties.py``)."""
    docs = tmp_path / "docs"
    for i in (7, 3, 11, 0, 5, 9, 1, 10, 4, 8, 2, 6):  # written out of order
        write(docs, f"copies/{i:02d}.md", "# Same\n\nRotate the signing keys every month.")
    shelf = backend_shelf()
    shelf.index([docs])
    store = shelf.store
    first = [f"copies/{i:02d}.md" for i in range(5)]
    lexical = store.text_search("rotate signing keys", 5)
    assert len({s for _, s in lexical}) == 1  # the premise: all tied
    assert [c.path for c, _ in lexical] == first
    dense = store.vector_search(shelf.embedder.embed_query("rotate signing keys"), 5)
    assert len({round(s, 6) for _, s in dense}) == 1
    assert [c.path for c, _ in dense] == first


def test_a_hit_from_a_file_that_now_fails_carries_a_note_on_every_store(backend_shelf, write, tmp_path):
    """A page saved broken keeps its last good chunks; each store lists the failed records
    (``failed_records``) so the hits from them say so, and only those."""
    docs = tmp_path / "docs"
    write(docs, "ok.md", "# Ok\n\nThe quokka rota.")
    bad = write(docs, "bad.md", "# Bad\n\nThe quokka schedule.")
    shelf = backend_shelf()
    shelf.index([docs])
    bad.write_bytes(b"\xff\xfe\x00\x00" + bytes(range(256)) * 40)
    assert "bad.md" in shelf.index([docs]).failed
    assert [r.path for r in shelf.store.failed_records()] == ["bad.md"]
    notes = {h.path: h.note for h in shelf.search("quokka", mode="keyword").hits}
    assert notes["ok.md"] == "" and notes["bad.md"].startswith("this is the last version that indexed; the file now fails")

"""Push ingest in the service: records beside indexed files, replaced atomically, checked once."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from pydantic import ValidationError

from docshelf.errors import EmbedderMismatch, InvalidQuery
from docshelf.ingest import PUSH_ROOT, SelectRequest, UpsertRequest, model_matches


def rec(id_: str, content: str, **meta):
    return {"id": id_, "content": content, "metadata": meta}


def upsert(shelf, *records, model=None):
    return shelf.ingest_upsert(UpsertRequest(records=list(records), model=model))


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_pushed_records_are_searchable_with_their_citation(shelf):
    result = upsert(
        shelf,
        rec("kb-1#0", "Rotate the ingest token every ninety days.", source="https://help.example/kb/1",
            title="Token rotation", heading_path=["Security", "Tokens"], tags=["ops", "Security"], date="2024-05-31"),
        rec("kb-1#1", "Old tokens stop working after a grace period.", source="https://help.example/kb/1"),
    )
    assert (result.upserted, result.embedded, result.sources) == (2, 2, ("https://help.example/kb/1",))
    hits = shelf.search("rotate the ingest token", mode="keyword").hits
    assert [(h.chunk_id, h.root, h.path, h.title, h.heading_path, h.tags, h.date) for h in hits[:1]] == [
        ("push:kb-1#0", PUSH_ROOT, "https://help.example/kb/1", "Token rotation", ("Security", "Tokens"),
         ("ops", "security"), "2024-05-31")
    ]
    doc = shelf.get_document("https://help.example/kb/1")
    assert "Rotate the ingest token" in doc.text and "grace period" in doc.text
    assert doc.text.index("Rotate") < doc.text.index("grace")
    [record] = [r for r in shelf.store.records() if r.root == PUSH_ROOT]
    assert (record.chunk_count, record.format, record.collection, record.doc_type) == (2, "push", "default", "doc")


def test_a_pushed_documents_lines_read_without_a_note_about_a_file(shelf):
    """A pushed source has no file: `get --lines` said it 'is not on disk under push: any more'
    and told the reader to re-index it."""
    upsert(shelf, rec("kb-2#0", "Open Settings and press Rotate.", source="https://help.example/kb/2", start_line=3,
                      end_line=4, chunk_index=0),
           rec("kb-2#1", "Old tokens stop working after an hour.", source="https://help.example/kb/2", start_line=6,
               end_line=6, chunk_index=1))
    doc = shelf.get_document("https://help.example/kb/2", lines="6")
    assert (doc.text, doc.start_line, doc.end_line, doc.note) == ("Old tokens stop working after an hour.", 6, 6, "")


def test_a_record_longer_than_the_model_reads_is_named(shelf):
    """A builder pushing whole pages as records had them embedded from their first 256 tokens
    with no word said; the rest was found by keyword only. The result names such records."""
    page = "Install the agent. " + "Configure the pipeline stage carefully. " * 120 + "Rotate the vault key."
    result = upsert(shelf, rec("kb-3", page, source="kb/3"), rec("kb-4", "A short answer.", source="kb/4"))
    assert (result.embedded, result.cut) == (2, ("kb-3",))
    vec = [0.1] * shelf.embedder.dimensions
    sent = upsert(shelf, {"id": "kb-5", "content": page, "embedding": vec, "metadata": {"source": "kb/5"}},
                  model=shelf.embedder.model_id)
    assert (sent.embedded, sent.cut) == (0, ())  # its own vector: the builder chose what it covers


def test_given_embedding_is_stored_as_sent(shelf, fake_embedder):
    vector = fake_embedder.embed_query("something else entirely")
    upsert(shelf, {"id": "v1", "content": "alpha beta", "embedding": vector.tolist(), "model": fake_embedder.model_id})
    stored = shelf.store.document_vectors(PUSH_ROOT, "v1")
    assert list(stored) == ["v1\n\nalpha beta"]
    np.testing.assert_allclose(stored["v1\n\nalpha beta"], vector, rtol=1e-6)
    assert fake_embedder.texts_embedded == 0


def test_reupsert_replaces_in_place_and_lookup_reports_hashes(shelf):
    upsert(shelf, rec("a", "first text", source="s", chunk_index=0), rec("b", "second text", source="s", chunk_index=1))
    upsert(shelf, rec("a", "first text, edited", source="s", chunk_index=0))
    chunks = shelf.store.document_chunks(PUSH_ROOT, "s")
    assert [(c.id, c.chunk_index, c.text) for c in chunks] == [
        ("push:a", 0, "first text, edited"), ("push:b", 1, "second text")
    ]
    found = shelf.ingest_lookup(SelectRequest(ids=["a", "zzz"]))
    assert [(e.id, e.source, e.sha256) for e in found.records] == [("a", "s", sha("first text, edited"))]
    assert found.missing == ("zzz",)
    everything = shelf.ingest_lookup(SelectRequest())
    assert [(e.id, e.sha256) for e in everything.records] == [("a", sha("first text, edited")), ("b", sha("second text"))]


def test_unchanged_content_is_not_embedded_again(shelf, fake_embedder):
    upsert(shelf, rec("a", "same words", source="s"), rec("b", "other words", source="s"))
    before = fake_embedder.texts_embedded
    result = upsert(shelf, rec("a", "same words", source="s"), rec("b", "changed words", source="s"))
    assert (result.embedded, fake_embedder.texts_embedded - before) == (1, 1)


def test_a_record_moved_to_another_source_leaves_the_old_one(shelf):
    upsert(shelf, rec("a", "alpha", source="one"), rec("b", "beta", source="one"))
    upsert(shelf, rec("a", "alpha", source="two"))
    docs = {(r.path, r.chunk_count) for r in shelf.store.records() if r.root == PUSH_ROOT}
    assert docs == {("one", 1), ("two", 1)}
    upsert(shelf, rec("b", "beta", source="two"))
    assert {r.path for r in shelf.store.records()} == {"two"}


def test_delete_by_id_and_source_then_gone_from_search(shelf):
    upsert(shelf, rec("a", "zebra crossing", source="one"), rec("b", "yak shaving", source="one"),
           rec("c", "walrus tusks", source="two"))
    gone = shelf.ingest_delete(SelectRequest(ids=["a"], sources=["two"]))
    assert (gone.deleted, gone.sources) == (2, ("one", "two"))
    assert shelf.search("zebra", mode="keyword").hits == ()
    assert shelf.search("walrus", mode="keyword").hits == ()
    assert [h.chunk_id for h in shelf.search("yak", mode="keyword").hits] == ["push:b"]
    with pytest.raises(InvalidQuery, match="ids or sources"):
        shelf.ingest_delete(SelectRequest())


def test_pushed_records_survive_a_folder_reindex_and_reset_spares_files(shelf, tmp_path, write):
    docs = tmp_path / "docs"
    write(docs, "guide.md", "# Guide\n\nInstall the widgetron with care.\n")
    shelf.index([docs])
    upsert(shelf, rec("p", "pushed page about widgetron", source="https://x.example/p"))
    write(docs, "other.md", "# Other\n\nMore words.\n")
    (docs / "guide.md").unlink()
    shelf.index([docs])
    assert sorted((r.root, r.path) for r in shelf.store.records()) == [
        (str(docs.resolve()), "other.md"), (PUSH_ROOT, "https://x.example/p")
    ]
    reset = shelf.ingest_reset()
    assert (reset.deleted, reset.sources) == (1, ("https://x.example/p",))
    assert [r.path for r in shelf.store.records()] == ["other.md"]
    assert [str(r) for r in shelf.roots] == [str(docs.resolve())]
    everything = shelf.ingest_reset(include_indexed=True)
    assert everything.sources == ("other.md",)
    assert (shelf.store.records(), shelf.roots) == ([], [])


def test_metadata_fields_filter_like_files(shelf):
    upsert(shelf, rec("a", "gamma ray", source="s1", collection="kb", doc_type="faq", product="widget", date="2024-01-05"),
           rec("b", "gamma knife", source="s2", collection="wiki", product="gadget"))
    from docshelf.models import SearchFilters

    def ids(**f):
        return [h.chunk_id for h in shelf.search("gamma", mode="keyword", filters=SearchFilters(**f)).hits]

    assert ids(collections=("kb",)) == ["push:a"]
    assert ids(doc_types=("faq",)) == ["push:a"]
    assert ids(fields=(("product", "gadget"),)) == ["push:b"]
    assert ids(date_from="2024-01-01") == ["push:a"]
    assert {c.name: c.documents for c in shelf.collections()} == {"kb": 1, "wiki": 1}


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (rec("x", "t", nested={"a": 1}), "nested: only scalar values"),
        (rec("x", "t", authors=["a", "b"]), "authors: only scalar values (string, number, boolean, null) are allowed, got a list"),
        (rec("x", "t", date="yesterday"), "date must be an ISO 8601 date such as 2024-05-31, got 'yesterday'"),
        (rec("x", "t", date="2024-1-5"), "date must be an ISO 8601 date"),
        (rec("x", "t", tags=[1, 2]), "tags must be a list of strings"),
        (rec("x", "t", chunk_index=-1), "chunk_index must be a whole number >= 0"),
        ({"id": "x", "content": ""}, "content"),
        ({"id": " x", "content": "t"}, "surrounding spaces"),
        ({"id": "x", "content": "t", "embedding": [float("nan")]}, "finite numbers"),
        ({"id": "x", "content": "t", "extra": 1}, "extra"),
    ],
)
def test_bad_records_are_refused_naming_the_field(record, message):
    with pytest.raises(ValidationError) as info:
        UpsertRequest(records=[record])
    assert message in str(info.value)


def test_iso_dates_are_normalised():
    r = UpsertRequest(records=[rec("x", "t", date="2024-05-31T10:00:00Z")]).records[0]
    assert r.metadata["date"] == "2024-05-31"


def test_duplicate_ids_in_a_batch_are_refused():
    with pytest.raises(ValidationError, match=r"records\[1\].id: 'x' appears twice"):
        UpsertRequest(records=[rec("x", "a"), rec("x", "b")])


def test_embedding_model_and_dimension_are_checked(shelf, fake_embedder):
    vec = [0.1] * fake_embedder.dimensions
    with pytest.raises(InvalidQuery, match=r"records\[0\].model: record 'x' has an embedding but names no model"):
        upsert(shelf, {"id": "x", "content": "t", "embedding": vec})
    with pytest.raises(EmbedderMismatch) as info:
        upsert(shelf, {"id": "x", "content": "t", "embedding": vec}, model="text-embedding-3-small")
    assert str(info.value).startswith(
        f"records[0].model: record 'x' was embedded with text-embedding-3-small, but this index holds "
        f"{fake_embedder.model_id} ({fake_embedder.dimensions}-d) vectors"
    )
    with pytest.raises(EmbedderMismatch, match=r"records\[0\].embedding: has 3 dimensions"):
        upsert(shelf, {"id": "x", "content": "t", "embedding": [0.1, 0.2, 0.3], "model": fake_embedder.model_id})
    assert shelf.store.records() == []


def test_model_names_match_without_organisation_or_variant():
    index = "sentence-transformers/all-MiniLM-L6-v2@onnx-int8"
    assert model_matches("all-MiniLM-L6-v2", index)
    assert model_matches("sentence-transformers/all-minilm-l6-v2", index)
    assert not model_matches("all-MiniLM-L12-v2", index)


def test_a_pushed_record_never_cites_columns_of_a_file_on_the_server(shelf, tmp_path):
    """A pushed record has no file: its source names the document, not a path to read. Before, a
    record whose source was an absolute path (or a relative one, read from the server's working
    folder) on a single line was looked up in that file: a hit then cited characters of a file
    outside every root, and a builder could learn whether a text lies in any long line of any file
    the server can read."""
    secret = tmp_path / "elsewhere" / "minified.js"
    secret.parent.mkdir()
    line = "x" * 2500 + " the quokka password is hunter2 " + "y" * 2500
    secret.write_text(line + "\n")
    upsert(shelf, rec("probe", "the quokka password is hunter2", source=str(secret), start_line=1, end_line=1))
    hits = shelf.search("quokka password", mode="keyword").hits
    assert [(h.path, h.start_line, h.end_line) for h in hits] == [(str(secret), 1, 1)]
    assert (hits[0].start_col, hits[0].end_col) == (None, None)
    assert shelf.chunk_columns(shelf.store.get_chunks(["push:probe"])) == {}

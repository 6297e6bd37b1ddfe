"""Push ingest on every backend: pushed records beside indexed files, searched and cited alike."""

from __future__ import annotations

import hashlib

from docshelf.ingest import PUSH_ROOT, SelectRequest, UpsertRequest
from docshelf.models import SearchFilters


def test_push_round_trip_beside_files(backend_shelf, tmp_path):
    shelf = backend_shelf()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nThe widgetron needs a blue cable.\n")
    shelf.index([docs])
    vector = shelf.embedder.embed_query("aardvark lullaby").tolist()
    shelf.ingest_upsert(UpsertRequest(model=shelf.embedder.model_id, records=[
        {"id": "a", "content": "Rotate the token every ninety days.", "metadata": {
            "source": "https://kb.example/1", "title": "Tokens", "heading_path": ["Security"], "collection": "kb",
            "product": "widget", "chunk_index": 0}},
        {"id": "b", "content": "zebra stripes", "embedding": vector, "metadata": {"source": "https://kb.example/1",
                                                                                  "chunk_index": 1}},
    ]))
    shelf.ingest_upsert(UpsertRequest(records=[{"id": "a", "content": "Rotate the token every thirty days.",
                                                "metadata": {"source": "https://kb.example/1", "title": "Tokens",
                                                             "collection": "kb", "chunk_index": 0}}]))
    hits = shelf.search("rotate token thirty", mode="keyword", filters=SearchFilters(collections=("kb",))).hits
    assert [(h.chunk_id, h.root, h.path, h.title) for h in hits[:1]] == [("push:a", PUSH_ROOT, "https://kb.example/1", "Tokens")]
    assert [h.chunk_id for h in shelf.search("aardvark lullaby", mode="semantic", k=1).hits] == ["push:b"]
    assert [c.id for c in shelf.store.document_chunks(PUSH_ROOT, "https://kb.example/1")] == ["push:a", "push:b"]
    found = shelf.ingest_lookup(SelectRequest(sources=["https://kb.example/1"]))
    assert [(e.id, e.sha256) for e in found.records] == [
        ("a", hashlib.sha256(b"Rotate the token every thirty days.").hexdigest()),
        ("b", hashlib.sha256(b"zebra stripes").hexdigest()),
    ]
    assert shelf.ingest_delete(SelectRequest(ids=["b"])).deleted == 1
    assert shelf.search("aardvark lullaby", mode="semantic", k=5).hits[0].chunk_id != "push:b"
    shelf.index([docs])  # a folder re-index keeps pushed records
    assert sorted(r.path for r in shelf.store.records()) == ["guide.md", "https://kb.example/1"]
    assert shelf.ingest_reset().deleted == 1
    assert [r.path for r in shelf.store.records()] == ["guide.md"]

"""A commit's new texts are embedded shortest first, in calls of ``EMBED_BATCH``: each call's
texts are alike in length (little padding, as one big call would give), each text once, and
every chunk still gets its own text's vector."""

from __future__ import annotations

import numpy as np

from docshelf.pipeline.indexer import EMBED_BATCH


def test_texts_are_embedded_in_calls_sorted_by_token_count(shelf, tmp_path, write, monkeypatch):
    docs = tmp_path / "docs"
    # Files of very different lengths, long and short mixed in the files' order.
    for i in range(30):
        words = " ".join(f"word{j}" for j in range(5 + (i * 37) % 60))
        write(docs, f"d{i:02}.md", f"# Doc {i}\n\n{words}\n\n## Part two\n\nshort note {i}")
    calls: list[list[str]] = []
    real = shelf.embedder.embed_documents

    def embed(texts):
        calls.append(list(texts))
        return real(texts)

    monkeypatch.setattr(shelf.embedder, "embed_documents", embed)
    report = shelf.index([docs])
    tok = shelf.embedder.tokenizer
    sizes = [tok.count(t) for call in calls for t in call]
    assert report.chunks_embedded == len(sizes) == 60
    assert [len(c) for c in calls] == [EMBED_BATCH, 60 - EMBED_BATCH]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    # Every stored vector is its own text's.
    for record in shelf.store.records():
        stored = shelf.store.document_vectors(record.root, record.path)
        assert len(stored) == 2
        for text, vector in stored.items():
            np.testing.assert_array_equal(vector, real([text])[0])


def test_a_file_is_done_when_its_last_text_is_embedded(shelf, tmp_path, write):
    docs = tmp_path / "docs"
    write(docs, "a_long.md", "# Long\n\n" + " ".join(f"w{i}" for i in range(60)))
    for i in range(40):
        write(docs, f"b{i:02}.md", f"# B {i}\n\nnote {i}")
    events: list[tuple[str, object]] = []

    class Recorder:
        def planned(self, files: int, to_index: int) -> None:
            events.append(("planned", to_index))

        def file_done(self, path: str) -> None:
            events.append(("file", path))

        def chunks_embedded(self, n: int) -> None:
            events.append(("embedded", n))

    shelf.index([docs], progress=Recorder())
    # The long file's one text is the longest: embedded in the second call, so done after it,
    # while 32 of the short files are done after the first call.
    first, second = events.index(("embedded", 32)), events.index(("embedded", 9))
    done_first = [p for kind, p in events[first:second] if kind == "file"]
    assert done_first == [f"b{i:02}.md" for i in range(32)]
    assert [p for kind, p in events[second:] if kind == "file"] == ["a_long.md"] + [f"b{i:02}.md" for i in range(32, 40)]

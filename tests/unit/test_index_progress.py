"""Progress moves per file (``index_status`` and the CLI bar), not per store commit."""

from __future__ import annotations


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def planned(self, files: int, to_index: int) -> None:
        self.events.append(("planned", to_index))

    def file_done(self, path: str) -> None:
        self.events.append(("file", path))

    def chunks_embedded(self, n: int) -> None:
        self.events.append(("embedded", n))


def test_files_are_reported_done_as_their_chunks_are_embedded(shelf, tmp_path, write):
    # 40 one-chunk files fit one store commit but take two embedding batches (32 + 8 texts).
    for i in range(40):
        write(tmp_path / "docs", f"d{i:02}.md", f"# Doc {i}\n\nnote number {i}")
    progress = Recorder()
    shelf.index([tmp_path / "docs"], progress=progress)
    kinds = [kind for kind, _ in progress.events]
    assert progress.events[0] == ("planned", 40)
    assert kinds[1:] == ["embedded"] + ["file"] * 32 + ["embedded"] + ["file"] * 8
    assert [p for kind, p in progress.events if kind == "file"] == [f"d{i:02}.md" for i in range(40)]

"""Diversity: at most N chunks per document, near-duplicates collapsed, adjacent chunks merged."""

from __future__ import annotations

from docshelf.models import Chunk
from docshelf.search.diversity import diversify, overlap
from docshelf.search.engine import group_to_hit


def chunk(path: str, index: int, text: str, lines: tuple[int, int] | None = None) -> Chunk:
    start, end = lines or (index * 10 + 1, index * 10 + 9)
    return Chunk(id=f"{path}#{index}", root="/r", path=path, collection="default", doc_type="doc", title=path,
                 heading_path=(), chunk_index=index, text=text, embed_text=text, start_line=start, end_line=end)


def ids(groups) -> list[list[str]]:
    return [[c.id for c in g.chunks] for g in groups]


def test_at_most_n_chunks_per_document():
    scored = [(chunk("a.md", i * 2, f"alpha part {i} " + "x" * i), 0.9 - i / 100) for i in range(5)]
    scored.append((chunk("b.md", 0, "beta"), 0.5))
    assert ids(diversify(scored, 10, per_doc=2)) == [["a.md#0"], ["a.md#2"], ["b.md#0"]]
    assert ids(diversify(scored, 10, per_doc=0)) == [["a.md#0"], ["a.md#2"], ["a.md#4"], ["a.md#6"], ["a.md#8"], ["b.md#0"]]


def test_near_duplicate_chunks_collapse_to_the_best_one():
    text = (
        "To rotate the signing keys run keyctl rotate with the new key id and restart the service afterwards. "
        "Old keys stay valid for one day so that tokens issued before the rotation keep working until they expire, "
        "and the audit log records who rotated which key and when."
    )
    scored = [
        (chunk("copy1.md", 0, text), 0.9),
        (chunk("copy2.md", 0, text.upper() + " See also: keys."), 0.8),
        (chunk("other.md", 0, "Signing keys live in the vault; only admins can read them."), 0.7),
    ]
    assert ids(diversify(scored, 10)) == [["copy1.md#0"], ["other.md#0"]]
    assert ids(diversify(scored, 10, dup_threshold=1.01)) == [["copy1.md#0"], ["copy2.md#0"], ["other.md#0"]]


def test_adjacent_matching_chunks_merge_into_one_hit():
    first = "Step one: install the agent on every node of the cluster and check that it starts up cleanly."
    second = "and check that it starts up cleanly. Step two: register the node with the control plane."
    scored = [
        (chunk("a.md", 3, second, (20, 28)), 0.8),
        (chunk("a.md", 2, first, (12, 20)), 0.7),
        (chunk("b.md", 0, "unrelated hit about apples"), 0.65),
        (chunk("a.md", 7, "a far away chunk of a.md"), 0.5),
    ]
    groups = diversify(scored, 3)
    assert ids(groups) == [["a.md#2", "a.md#3"], ["b.md#0"], ["a.md#7"]]
    hit = group_to_hit(groups[0], "hybrid", "register node")
    assert (hit.chunk_id, hit.chunk_index, hit.start_line, hit.end_line, hit.score) == ("a.md#3", 3, 12, 28, 0.8)
    # The chunker's overlap ("and check that it starts up cleanly.") appears once in the merged text.
    assert hit.text == first + "\n\nStep two: register the node with the control plane."
    assert [hit.text[s:e] for s, e in hit.highlights] == ["node", "register", "node"]
    # A neighbour that scores well below the hit's best chunk did not really match: no merge.
    weak = [(c, 0.5 if c.id == "a.md#2" else s) for c, s in scored]
    assert ids(diversify(weak, 3)) == [["a.md#3"], ["b.md#0"], ["a.md#2"]]


def test_merging_stops_at_max_merge_and_k_counts_hits_not_chunks():
    scored = [(chunk("a.md", i, f"part {i} of a long page about one topic {'y' * i}"), 1 - i / 50) for i in range(6)]
    assert ids(diversify(scored, 2, max_merge=3, per_doc=3)) == [["a.md#0", "a.md#1", "a.md#2"], ["a.md#3", "a.md#4", "a.md#5"]]
    assert ids(diversify(scored, 1, max_merge=1, per_doc=3)) == [["a.md#0"]]


def test_min_score_cuts_before_shaping():
    scored = [(chunk("a.md", 0, "one"), 0.9), (chunk("b.md", 0, "two"), 0.4)]
    assert ids(diversify(scored, 10, min_score=0.5)) == [["a.md#0"]]


def test_overlap_finds_the_repeated_prefix():
    assert overlap("aaaa the quick brown fox jumps over the lazy dog", "the quick brown fox jumps over the lazy dog. Then") == 43
    assert overlap("nothing shared here at all, really nothing", "completely different text follows now here") == 0


def test_service_results_respect_the_per_document_default(make_shelf, fake_embedder, write, tmp_path):
    docs = tmp_path / "docs"
    body = "\n\n".join(f"## Part {i}\n\n" + f"walrus facts number {i} " * 40 for i in range(8))
    write(docs, "walrus.md", "# Walrus\n\n" + body)
    write(docs, "other.md", "# Other\n\nA single walrus mention.")
    shelf = make_shelf(fake_embedder, max_chunks_per_doc=2)
    shelf.index([docs])
    hits = shelf.search("walrus facts", k=10, mode="keyword").hits
    assert sum(h.path == "walrus.md" for h in hits) == 2
    assert "other.md" in [h.path for h in hits]
    assert sum(h.path == "walrus.md" for h in shelf.search("walrus facts", k=10, mode="keyword", max_per_doc=4).hits) == 4

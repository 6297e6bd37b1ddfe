"""Where a search's time goes: py-spy samples of repeated searches on a cached big index.

    python benchmarks/profile_search.py --chunks 100000 --mode hybrid --out profile-hybrid-100k.txt
    python benchmarks/profile_search.py --summarize benchmarks/results/profile-hybrid-100k.txt.gz

Runs ``py-spy record --format raw`` (collapsed stacks, needs ``py-spy``: the ``bench`` extra)
on a child that opens the cached index (``corpus.py``), loads the model, warms up and then
searches the real SciFact questions in a loop; then prints each frame's share of the samples
taken inside ``Docshelf.search`` (inclusive: the frame or anything it calls; self: the frame
itself), which is what benchmarks/README.md quotes. ``--summarize FILE`` re-reads a profile.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def child(chunks: int, mode: str, seconds: float) -> None:
    import corpus

    qs, _ = corpus.query_set(100)
    shelf = corpus.cached_index(chunks).open()
    shelf.embedder.load()
    for q in qs[:5]:
        shelf.search(q, k=10, mode=mode)
    end, i = time.perf_counter() + seconds, 0
    while time.perf_counter() < end:
        shelf.searcher.forget_query_embeddings()  # the model runs on every query, as in a real session
        shelf.search(qs[i % len(qs)], k=10, mode=mode)
        i += 1
    print(f"{i} searches", file=sys.stderr)


def _frame_name(frame: str) -> str:
    # py-spy raw frames look like "search (docshelf/service.py:505)"; drop the line number
    name, _, where = frame.partition(" (")
    return f"{name} ({where.rsplit(':', 1)[0]})" if where else name


def summarize(path: Path, root: str = "search (docshelf/service.py", top: int = 25) -> str:
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    import gzip

    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = [_frame_name(f) for f in stack.split(";")]
        start = next((i for i, f in enumerate(frames) if root in f or f.startswith(root)), None)
        if start is None:
            continue
        n = int(count)
        total += n
        for f in set(frames[start:]):
            inclusive[f] += n
        own[frames[-1]] += n
    if not total:
        return f"no samples under {root!r}"
    out = [f"{total} samples inside {root}…)", "", "| inclusive | self | frame |", "|---:|---:|---|"]
    for f, n in inclusive.most_common(top):
        out.append(f"| {100 * n / total:.0f}% | {100 * own[f] / total:.0f}% | `{f}` |")
    out += ["", "Top self time:", ""]
    out += [f"- {100 * n / total:.1f}% `{f}`" for f, n in own.most_common(12)]
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--mode", default="hybrid")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--rate", type=int, default=100, help="py-spy samples per second")
    ap.add_argument("--out", type=Path, default=Path("profile-search.txt"))
    ap.add_argument("--summarize", type=Path, help="only summarize this collapsed-stack file")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.chunks, args.mode, args.seconds)
        return
    if not args.summarize:
        import corpus

        corpus.cached_index(args.chunks)  # build outside the profile
        corpus.query_set(100)
        subprocess.run(["py-spy", "record", "--format", "raw", "--rate", str(args.rate), "--nonblocking",
                        "-o", str(args.out), "--", sys.executable, __file__, "--child", "--chunks", str(args.chunks),
                        "--mode", args.mode, "--seconds", str(args.seconds)], check=True)
    print(summarize(args.summarize or args.out))


if __name__ == "__main__":
    main()

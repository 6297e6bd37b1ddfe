"""How long the typo check's "does a candidate hold this word" test takes: the plain substring
test it replaced against ``typos.holds_word`` (whole tokens), on a candidate pool's worth of
real documentation text.

    python benchmarks/typo_known_check.py [benchmarks/docsets/click]

The pool is the docs set's text cut into 1,500-character pieces, 200 of them (a hybrid pool is
~200 candidates), lowered and joined as ``typos.correct`` joins them. Words: known ones (the
common case: the check answers at the first whole-token occurrence), words only inside longer
tokens (now checked occurrence by occurrence), and unknown ones (both read the whole pool).
Prints the median microseconds per check over 2,000 repetitions, per word and overall.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from docshelf.search.typos import holds_word
from docshelf.stores.lexical import stem


def pool(folder: Path, pieces: int = 200, size: int = 1500) -> str:
    text = "\n".join(p.read_text(errors="replace") for p in sorted(folder.rglob("*")) if p.is_file())
    return "\x00".join(text[i : i + size].lower() for i in range(0, min(len(text), pieces * size), size))


def per_call_us(check, n: int = 2000) -> float:
    start = time.perf_counter()
    for _ in range(n):
        check()
    return (time.perf_counter() - start) / n * 1e6


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/docsets/click") / "docs"
    texts = pool(folder)
    words = ["option", "command", "callback", "parameter", "decorator", "context",  # known
             "pand", "allback", "ommand",  # only inside longer tokens
             "optoin", "comand", "calback", "paramter"]  # typos: unknown
    rows = []
    for word in words:
        old = per_call_us(lambda: word in texts or stem(word) in texts)
        new = per_call_us(lambda: holds_word(texts, word))
        rows.append((word, word in texts or stem(word) in texts, holds_word(texts, word), old, new))
        print(f"{word:12s} substring {rows[-1][1]!s:5s} token {rows[-1][2]!s:5s}  {old:7.1f} us  {new:7.1f} us")
    print(f"pool {len(texts):,} chars; median substring {statistics.median(r[3] for r in rows):.1f} us, "
          f"whole token {statistics.median(r[4] for r in rows):.1f} us; worst {max(r[3] for r in rows):.1f} / "
          f"{max(r[4] for r in rows):.1f} us")


if __name__ == "__main__":
    main()

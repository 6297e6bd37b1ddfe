"""Replay which section a docs set's top hit cites under within-page rules, offline (issue 8).

``dump`` asks every question of a docs set in the default mode with the lead-in rule off
(``subsection_band`` 0) and keeps each question's ranked candidates (page, heading path, lines,
chunk index, fused score); ``replay`` re-applies rules that trade scores within the top page and
prints section@1 and hit@1 per set, with the questions each rule changes. A rule is judged on
every training set at once in seconds, before any code changes:

    python benchmarks/section_replay.py dump benchmarks/docsets/sqlmodel /tmp/replay-sqlmodel.pkl
    python benchmarks/section_replay.py replay /tmp/replay-*.pkl

The replay's top hit is the top page's best candidate, merged with adjacent chunks of its section
as ``diversity.diversify`` merges them; it reproduces the eval's section@1 on sets A, C, D, E, F.
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

Rule = Callable[[list[dict]], None]


def dump(root: str, out: str) -> None:
    from docshelf.eval.docset import load_docset
    from docshelf.eval.docset_runner import ask, open_docset_index
    from docshelf.search import engine

    docset = load_docset(Path(root))
    service = open_docset_index(docset).service
    searcher = service.searcher
    searcher.options = replace(searcher.options, fusion=replace(searcher.options.fusion, subsection_band=0.0))
    captured: dict[str, list] = {}
    real = engine.diversify

    def spy(scored, *args, **kwargs):  # the ranked candidates, before grouping
        captured["scored"] = list(scored)
        return real(scored, *args, **kwargs)

    engine.diversify = spy
    rows = []
    try:
        for q in docset.questions:
            ask(service, q, "hybrid")
            rows.append({"id": q.id, "kind": q.kind, "path": q.path, "lines": (q.start_line, q.end_line), "candidates": [
                {"path": c.path, "heading": tuple(c.heading_path), "title": c.title, "index": c.chunk_index,
                 "lines": (c.start_line, c.end_line), "score": s}
                for c, s in captured["scored"]]})
    finally:
        engine.diversify = real
    with open(out, "wb") as f:
        pickle.dump({"name": docset.name, "rows": rows}, f)


def _overlaps(lines: tuple, gold: tuple) -> bool:
    return lines[0] is not None and lines[1] is not None and lines[0] <= gold[1] and gold[0] <= lines[1]


def cited_lines(ranked: list[dict]) -> tuple:
    """The top hit's lines: its chunk merged with adjacent ones of its section (``diversify``)."""
    top = ranked[0]
    other = next((c["score"] for c in ranked if c["path"] != top["path"]), 0.0)
    group, lo, hi = [top], top["index"], top["index"]
    for c in ranked[1:]:
        if c["score"] < other or len(group) == 3:
            break
        if (c["path"] == top["path"] and c["heading"] == top["heading"] and c["score"] >= 0.8 * top["score"]
                and c["index"] in (lo - 1, hi + 1)):
            group.append(c)
            lo, hi = min(lo, c["index"]), max(hi, c["index"])
    starts = [c["lines"][0] for c in group if c["lines"][0] is not None]
    ends = [c["lines"][1] for c in group if c["lines"][1] is not None]
    return (min(starts) if starts else None, max(ends) if ends else None)


def score(rows: list[dict], rule: Rule | None) -> dict[str, tuple[bool, bool]]:
    """Per answerable question: (section@1, hit@1) after ``rule`` reorders the ranking in place."""
    out = {}
    for row in rows:
        if row["path"] is None:
            continue
        ranked = [dict(c) for c in row["candidates"]]
        if rule is not None:
            rule(ranked)
        ranked.sort(key=lambda c: -c["score"])
        page = ranked[0]["path"] == row["path"]
        out[row["id"]] = (page and _overlaps(cited_lines(ranked), row["lines"]), page)
    return out


def _under(lead: dict, other: dict) -> bool:
    """``fuse.opens_subsection`` on candidate dicts."""
    lh, oh = lead["heading"], other["heading"]
    if not lh or lh == (lead["title"],):
        return bool(oh) and oh != lh
    return len(oh) > len(lh) and oh[: len(lh)] == lh


def following(band: float, child_only: bool = True) -> Rule:
    """The top chunk trades scores with the next chunk of its page when that one opens another
    section (a subsection of the top chunk's, when ``child_only``: the landed rule) within ``band``."""
    def rule(ranked: list[dict]) -> None:
        ranked.sort(key=lambda c: -c["score"])
        top = ranked[0]
        nxt = next((c for c in ranked if c["path"] == top["path"] and c["index"] == top["index"] + 1), None)
        if (nxt is not None and nxt["heading"] != top["heading"] and (not child_only or _under(top, nxt))
                and nxt["score"] >= (1 - band) * top["score"]):
            top["score"], nxt["score"] = nxt["score"], top["score"]
    return rule


def best_subsection(band: float) -> Rule:
    """The top chunk trades scores with the best-scored chunk anywhere under its section."""
    def rule(ranked: list[dict]) -> None:
        ranked.sort(key=lambda c: -c["score"])
        top = ranked[0]
        sub = next((c for c in ranked[1:] if c["path"] == top["path"] and _under(top, c)), None)
        if sub is not None and sub["score"] >= (1 - band) * top["score"]:
            top["score"], sub["score"] = sub["score"], top["score"]
    return rule


def replay(paths: list[str]) -> None:
    sets = [pickle.load(open(p, "rb")) for p in paths]
    base = {s["name"]: score(s["rows"], None) for s in sets}
    variants: list[tuple[str, Rule]] = [(f"lead-in -> following subsection, band {b}", following(b)) for b in
                                        (0.05, 0.1, 0.15, 0.2, 0.3)]
    variants += [(f"any following section, band {b}", following(b, child_only=False)) for b in (0.1, 0.2)]
    variants += [(f"best subsection anywhere, band {b}", best_subsection(b)) for b in (0.1, 0.2)]
    for name, rule in [("off", None), *variants]:
        cells, changed = [], []
        for s in sets:
            got = score(s["rows"], rule)
            n = len(got)
            cells.append(f"{s['name']} {sum(a for a, _ in got.values()) / n:.3f} / {sum(b for _, b in got.values()) / n:.3f}")
            changed += [f"{q}{'+' if got[q][0] else '-'}" for q in got if got[q][0] != base[s["name"]][q][0]]
        print(f"{name:42s} " + " | ".join(cells) + (f"   changed: {' '.join(changed)}" if changed else ""))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "replay":
        replay(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "dump":
        dump(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)

"""Confidence labels against the truth: per docs set, how many answerable and unanswerable
questions each label (``high`` / ``medium`` / ``low`` / ``none``) was given (issue 8 item 3).

An agent acts on the label: ``high``/``medium`` → answer from the docs; ``low``/``none`` →
say the documentation does not cover it. The two costly mistakes are an unanswerable question
labelled ``high`` (the agent answers from a neighbouring page) and an answerable one labelled
``low``/``none`` (it gives up on an answer that is there). Reads the run files of
``docshelf eval SET --modes hybrid --run-file F``:

    python benchmarks/confidence_labels.py /tmp/run-starlette.json /tmp/run-click.json ...

``--cuts 0.85,0.5,0.3`` re-labels every question from its top score with other cut points,
capped at ``medium`` when the note names a word no indexed document mentions (at ``low`` for
an identifier), as ``calibrate.confidence`` does (a what-if; the run file's own ``confidence`` is used otherwise).
``--grid`` prints the what-if's totals for a range of ``high`` and ``medium`` floors.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

LEVELS = ("high", "medium", "low", "none")


def auroc(positives: list[float], negatives: list[float]) -> float | None:
    if not positives or not negatives:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


ABSENT_NOTE = "no indexed document mentions"  # engine.Searcher.search's note for WordCheck.absent


def absent_words(note: str) -> list[str]:
    """The words a run file's note says no indexed document mentions."""
    for part in note.split("; "):
        if part.startswith(ABSENT_NOTE):
            return part.removeprefix(ABSENT_NOTE).strip().split(", ")
    return []


def label(outcome: dict, cuts: tuple[float, float, float] | None) -> str:
    """The run's own label, or (``cuts``) the label ``calibrate.confidence`` would give with those floors."""
    if cuts is None:
        return outcome.get("confidence") or "none"
    absent = absent_words(outcome.get("note", ""))
    cap = LEVELS.index("low" if any("_" in w for w in absent) else "medium" if absent else "high")
    for floor, level in zip(cuts, LEVELS, strict=False):
        if outcome["top_score"] >= floor:
            return LEVELS[max(LEVELS.index(level), cap)]
    return "none"


def table(outcomes: list[dict], cuts: tuple[float, float, float] | None) -> dict:
    counts = {(lv, side): 0 for lv in LEVELS for side in ("ans", "unans")}
    pos, neg = [], []
    for o in outcomes:
        side = "unans" if o["kind"] == "unanswerable" else "ans"
        level = label(o, cuts)
        counts[(level, side)] += 1
        (neg if side == "unans" else pos).append(o["top_score"])
    return {
        "counts": counts, "auroc": auroc(pos, neg), "answerable": len(pos), "unanswerable": len(neg),
        "unans_high": counts[("high", "unans")],
        "unans_acted": counts[("high", "unans")] + counts[("medium", "unans")],
        "ans_dropped": counts[("low", "ans")] + counts[("none", "ans")],
        "ans_medium": counts[("medium", "ans")],
    }


def grid(runs: list[list[dict]]) -> None:
    """Totals over ``runs`` for each pair of floors: what choosing the cut points trades."""
    print("| high ≥ | medium ≥ | unans. high | unans. high+medium | ans. medium | ans. low+none | cost |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for high in (0.7, 0.75, 0.8, 0.85, 0.9, 0.95):
        for medium in (0.4, 0.5, 0.6):
            t = [table(r, (high, medium, min(0.3, medium))) for r in runs]
            uh, ua, am, ad = (sum(x[k] for x in t) for k in ("unans_high", "unans_acted", "ans_medium", "ans_dropped"))
            print(f"| {high} | {medium} | {uh} | {ua} | {am} | {ad} | {uh + ad + 0.1 * am:.1f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run files of `docshelf eval --run-file` (hybrid)")
    parser.add_argument("--mode", default="hybrid")
    parser.add_argument("--cuts", help="high,medium,low floors to re-label top scores with (a what-if)")
    parser.add_argument("--rows", action="store_true", help="also list every mislabelled question")
    parser.add_argument("--grid", action="store_true", help="totals for a range of high and medium floors")
    args = parser.parse_args(argv)
    if args.grid:
        grid([json.loads(p.read_text())[args.mode] for p in args.runs])
        return 0
    cuts = tuple(float(c) for c in args.cuts.split(",")) if args.cuts else None
    if cuts is not None and len(cuts) != 3:
        parser.error("--cuts takes three floors: high,medium,low")
    print("| set | answerable: high / medium / low / none | unanswerable: high / medium / low / none "
          "| unans. high | unans. high+medium | ans. low+none | AUROC |")
    print("|---|---|---|---:|---:|---:|---:|")
    wrong: list[str] = []
    total = {"unans_high": 0, "unans_acted": 0, "ans_dropped": 0, "answerable": 0, "unanswerable": 0}
    for path in args.runs:
        outcomes = json.loads(path.read_text())[args.mode]
        t = table(outcomes, cuts)
        name = path.stem.removeprefix("run-")
        ans = " / ".join(str(t["counts"][(lv, "ans")]) for lv in LEVELS)
        unans = " / ".join(str(t["counts"][(lv, "unans")]) for lv in LEVELS)
        area = "–" if t["auroc"] is None else f"{t['auroc']:.4f}"
        print(f"| {name} | {ans} | {unans} | {t['unans_high']} of {t['unanswerable']} "
              f"| {t['unans_acted']} | {t['ans_dropped']} of {t['answerable']} | {area} |")
        for key in total:
            total[key] += t[key]
        if args.rows:
            for o in outcomes:
                level = label(o, cuts)
                unans = o["kind"] == "unanswerable"
                if (unans and level in ("high", "medium")) or (not unans and level in ("low", "none")):
                    wrong.append(f"{name:<12} {o['id']:<5} {o['kind']:<12} {level:<6} {o['top_score']:.3f}  {o['query']}")
    if len(args.runs) > 1:
        print(f"| all | | | {total['unans_high']} of {total['unanswerable']} | {total['unans_acted']} "
              f"| {total['ans_dropped']} of {total['answerable']} | |")
    if wrong:
        print("\nmislabelled (unanswerable high/medium, answerable low/none):")
        print("\n".join(wrong))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

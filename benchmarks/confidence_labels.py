"""Confidence labels against the truth: per docs set, how many answerable and unanswerable
questions each label (``high`` / ``medium`` / ``low`` / ``none``) was given (issue 8 item 3).

An agent acts on the label: ``high``/``medium`` → answer from the docs; ``low``/``none`` →
say the documentation does not cover it. The two costly mistakes are an unanswerable question
labelled ``high`` (the agent answers from a neighbouring page) and an answerable one labelled
``low``/``none`` (it gives up on an answer that is there). Reads the run files of
``docshelf eval SET --modes hybrid --run-file F``:

    python benchmarks/confidence_labels.py /tmp/run-starlette.json /tmp/run-click.json ...

``--cuts 0.7,0.5,0.3`` re-labels every question from its top score with other cut points
(a what-if; the run file's own ``confidence`` is used otherwise).
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


def label(score: float, cuts: tuple[float, float, float]) -> str:
    for floor, level in zip(cuts, LEVELS, strict=False):
        if score >= floor:
            return level
    return "none"


def table(outcomes: list[dict], cuts: tuple[float, float, float] | None) -> dict:
    counts = {(lv, side): 0 for lv in LEVELS for side in ("ans", "unans")}
    pos, neg = [], []
    for o in outcomes:
        side = "unans" if o["kind"] == "unanswerable" else "ans"
        level = label(o["top_score"], cuts) if cuts else (o.get("confidence") or "none")
        counts[(level, side)] += 1
        (neg if side == "unans" else pos).append(o["top_score"])
    return {
        "counts": counts, "auroc": auroc(pos, neg), "answerable": len(pos), "unanswerable": len(neg),
        "unans_high": counts[("high", "unans")],
        "unans_acted": counts[("high", "unans")] + counts[("medium", "unans")],
        "ans_dropped": counts[("low", "ans")] + counts[("none", "ans")],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run files of `docshelf eval --run-file` (hybrid)")
    parser.add_argument("--mode", default="hybrid")
    parser.add_argument("--cuts", help="high,medium,low floors to re-label top scores with (a what-if)")
    parser.add_argument("--rows", action="store_true", help="also list every mislabelled question")
    args = parser.parse_args(argv)
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
                level = label(o["top_score"], cuts) if cuts else (o.get("confidence") or "none")
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

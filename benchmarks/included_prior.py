"""Sweep ``FusionParams.included_penalty`` (a file another candidate page includes ranks as if
scored 1 - p) on docs-folder sets, default mode, one index per set (the eval cache).

    python benchmarks/included_prior.py benchmarks/docsets/sqlmodel benchmarks/docsets/marshmallow \\
        --penalties 0,0.1,0.2,0.3,0.5

Prints, per set and penalty, hit@1 / hit@3 / mrr@10 / section@1 / auroc overall and for the
question kinds whose top hit moved, and how many top hits are included files.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from docshelf.eval.docset import load_docset
from docshelf.eval.docset_runner import open_docset_index, run_docset
from docshelf.search.fuse import included_paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--penalties", default="0,0.1,0.2,0.3,0.5")
    args = parser.parse_args()
    penalties = [float(p) for p in args.penalties.split(",")]
    for root in args.sets:
        docset = load_docset(Path(root))
        index = open_docset_index(docset)
        service = index.service
        included = {p for r in service.store.records() for p in r.includes}
        base = service.searcher.options
        runs = {}
        for p in penalties:
            service.searcher.options = replace(base, fusion=replace(base.fusion, included_penalty=p))
            report = run_docset(docset, index, ["hybrid"])
            result = report.modes[0]
            outcomes = report.runs["hybrid"]
            runs[p] = outcomes
            top_included = sum(1 for o in outcomes if o.top_path in included)
            print(json.dumps({"set": docset.name, "penalty": p, "overall": result.overall,
                              "by_kind": result.by_kind, "top_hits_included_files": top_included,
                              "included_files": len(included)}), flush=True)
        service.searcher.options = base
        first = runs[penalties[0]]
        for p in penalties[1:]:
            moved = [(a.kind, a.query[:60], a.top_path, b.top_path, a.hit1, b.hit1)
                     for a, b in zip(first, runs[p], strict=True) if a.top_path != b.top_path]
            print(json.dumps({"set": docset.name, "penalty": p, "moved_top": moved}), flush=True)


if __name__ == "__main__":
    assert included_paths('{"includes": ["a.py"]}') == ("a.py",)
    main()

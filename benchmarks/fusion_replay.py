"""Hybrid on the training sets with ``FusionParams`` variants, in one process (training only).

Each set's cached index is opened once and every variant runs the engine's own hybrid code with
the given fields changed; the first variant is the reference, and every question whose outcome
differs from it is printed (FAQ: the gold's rank; docs sets: hit@1, hit@3, section@1):

    DOCSHELF_EVAL_CACHE=... python benchmarks/fusion_replay.py \
        '{"main": {}, "prior 0.2": {"short_penalty": 0.2}}' [faq,starlette,click,werkzeug,marshmallow,sqlmodel]

The FAQ sets (``faq``, ``faq-python``: ``benchmarks/beir/<name>``) run their ``train`` split
(``FAQ_SPLIT`` to change it for ``faq``; its test half is for reports, never for choosing). Per-question results go to ``REPLAY_OUT`` (JSON, default
``fusion-replay.json``).
"""
from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

from docshelf.eval.beir import load_dataset
from docshelf.eval.runner import open_eval_index, run_eval
from docshelf.eval.docset import load_docset
from docshelf.eval.docset_runner import open_docset_index, run_docset
from docshelf.search.fuse import FusionParams

variants = json.loads(sys.argv[1])
sets = sys.argv[2].split(",") if len(sys.argv) > 2 else ["faq", "starlette", "click", "werkzeug", "marshmallow", "sqlmodel"]
split = os.environ.get("FAQ_SPLIT", "train")
cache = Path(os.environ["DOCSHELF_EVAL_CACHE"]) if os.environ.get("DOCSHELF_EVAL_CACHE") else None
root = Path(__file__).resolve().parent
out = {}
for s in sets:
    if s.startswith("faq"):
        ds = load_dataset(root / "beir" / s, split if s == "faq" else "train")
        idx = open_eval_index(ds, cache_dir=cache)
    else:
        ds = load_docset(root / "docsets" / s)
        idx = open_docset_index(ds, cache_dir=cache)
    svc = idx.service
    base_opts = svc.searcher.options
    for name, over in variants.items():
        svc.searcher.options = dataclasses.replace(base_opts, fusion=dataclasses.replace(FusionParams(), **over))
        if s.startswith("faq"):
            rep = run_eval(ds, idx, ["hybrid"])
            m = rep.modes[0].metrics
            run = rep.runs["hybrid"]
            ranks = {}
            for q, docs in run.items():
                gold = [d for d, r in ds.qrels[q].items() if r > 0]
                ranks[q] = min((docs.index(g) + 1 for g in gold if g in docs), default=99)
            out.setdefault(s, {})[name] = {"ndcg": m["ndcg@10"], "ranks": ranks, "run": run}
            print(f"{s:12s} {name:24s} nDCG@10 {m['ndcg@10']:.4f}", flush=True)
        else:
            rep = run_docset(ds, idx, ["hybrid"])
            o = rep.modes[0].overall
            per = {x.id: (x.hit1, x.hit3, x.section, round(x.top_score, 4), x.top_path) for x in rep.runs["hybrid"]}
            out.setdefault(s, {})[name] = {"overall": o, "per": per}
            print(f"{s:12s} {name:24s} " + " ".join(f"{k} {v:.4f}" for k, v in o.items() if v is not None), flush=True)
    if len(variants) > 1:
        names = list(variants)
        b = out[s][names[0]]
        for n in names[1:]:
            v = out[s][n]
            if s.startswith("faq"):
                diff = {q: (b["ranks"][q], v["ranks"][q]) for q in b["ranks"] if b["ranks"][q] != v["ranks"][q]}
            else:
                diff = {q: (b["per"][q][:3], v["per"][q][:3]) for q in b["per"] if b["per"][q][:3] != v["per"][q][:3]}
            print(f"   {n} vs {names[0]}: {diff}", flush=True)
json.dump(out, open(os.environ.get("REPLAY_OUT", "fusion-replay.json"), "w"))

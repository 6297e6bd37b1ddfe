"""Offline comparison of hybrid fusions on dumped candidate lists (see dump_candidates.py).

    python benchmarks/fusion_study.py /tmp/scifact.pkl train test
It simulates the engine exactly: top-N chunks from each list, fused per chunk, a document
scored by its best chunk, nDCG@10 over the judged queries of each split.
"""

from __future__ import annotations

import pickle
import sys

import numpy as np

from docshelf.eval.metrics import evaluate_run
from docshelf.search import fuse

N = 300


def load(path):
    with open(path, "rb") as f:
        d = pickle.load(f)
    d["vectors"] = np.asarray(d["vectors"], dtype=np.float32)
    return d


def lists(d, qid, n=N, qvec=None):
    qv = d["qvecs"][qid] if qvec is None else qvec
    dense_all = d["vectors"] @ qv
    top = np.argsort(-dense_all)[:n]
    dense = {int(i): float(dense_all[i]) for i in top}
    lex = {int(i): float(s) for i, s in d["bm25"][qid][:n]}
    return lex, dense, dense_all


def doc_rank(d, fused, depth=100):
    best: dict[str, float] = {}
    for i, s in fused.items():
        doc = d["chunk_doc"][i]
        if s > best.get(doc, -1e18):
            best[doc] = s
    return [doc for doc, _ in sorted(best.items(), key=lambda kv: -kv[1])[:depth]]


def run_method(d, qids, method, **kw):
    run = {}
    for q in qids:
        lex, dense, dense_all = lists(d, q)
        run[q] = doc_rank(d, method(d, q, lex, dense, dense_all, **kw))
    return run


def score(d, split, method, **kw):
    qrels = {q: j for q, j in d["qrels"][split].items() if q in d["queries"]}
    return evaluate_run(run_method(d, list(qrels), method, **kw), qrels)


# -- methods ----------------------------------------------------------------------------
def m_bm25(d, q, lex, dense, dense_all):
    return lex


def m_dense(d, q, lex, dense, dense_all):
    return dense


def m_rrf(d, q, lex, dense, dense_all, k=60):
    return fuse.rrf([sorted(lex, key=lambda x: -lex[x]), sorted(dense, key=lambda x: -dense[x])], k)


def m_convex(d, q, lex, dense, dense_all, w=0.5):
    return fuse.convex([lex, dense], [w, 1 - w])


def m_library(d, q, lex, dense, dense_all, **params):
    return fuse.fuse_hybrid(lex, dense, fuse.FusionParams(**params))


METHODS = {"bm25": m_bm25, "dense": m_dense, "rrf": m_rrf, "convex": m_convex, "library": m_library}



# -- candidate methods under study ------------------------------------------------------
def zs(scores, fill=None):
    v = np.array(list(scores.values()))
    mu, sd = v.mean(), v.std() + 1e-9
    return {k: (s - mu) / sd for k, s in scores.items()}, (v.min() - mu) / sd


def m_z(d, q, lex, dense, dense_all, wl=0.5, fill_dense=False, fill_lex=False, conf=None, m=5):
    if fill_dense:
        dense = dict(dense)
        for i in lex:
            dense.setdefault(i, float(dense_all[i]))
    if fill_lex:
        full = dict(d["bm25"][q])
        lex = dict(lex)
        for i in dense:
            lex.setdefault(i, float(full.get(i, 0.0)))
    if not lex:
        return dense
    zl, lmin = zs(lex)
    zd, dmin = zs(dense)
    a, b = wl, 1 - wl
    if conf == "top":
        # a list's confidence: how far its top-m stand above its own distribution
        cl = np.mean(sorted(zl.values(), reverse=True)[:m])
        cd = np.mean(sorted(zd.values(), reverse=True)[:m])
        a, b = a * cl, b * cd
    keys = set(zl) | set(zd)
    return {k: a * zl.get(k, lmin) + b * zd.get(k, dmin) for k in keys}


def m_prf(d, q, lex, dense, dense_all, beta=0.5, m=3, base=m_z, **kw):
    first = base(d, q, lex, dense, dense_all, **kw)
    top = [i for i, _ in sorted(first.items(), key=lambda kv: -kv[1])[:m]]
    qv = d["qvecs"][q] + beta * d["vectors"][top].mean(axis=0)
    qv = qv / np.linalg.norm(qv)
    _, dense2, dense_all2 = lists(d, q, qvec=qv)
    return base(d, q, lex, dense2, dense_all2, **kw)


METHODS2 = {
    "z": (m_z, {}),
    "z_fill": (m_z, {"fill_dense": True, "fill_lex": True}),
    "z_conf": (m_z, {"conf": "top"}),
    "z_conf_fill": (m_z, {"conf": "top", "fill_dense": True, "fill_lex": True}),
    "prf_z": (m_prf, {}),
    "prf_zconf": (m_prf, {"conf": "top"}),
}


def study(path, splits):
    d = load(path)
    for split in splits:
        for name, (m, kw) in METHODS2.items():
            r = score(d, split, m, **kw)
            print(f"{split:6s} {name:12s} " + " ".join(f"{k}={v:.4f}" for k, v in r.items()), flush=True)


def m_doc(d, q, lex, dense, dense_all, wl=0.5, fill=True, agg="max", norm="z"):
    """Fuse at document level: each list's best chunk per document, then z-scores."""
    cd = d["chunk_doc"]
    full = dict(d["bm25"][q])
    if fill:
        lex = dict(lex)
        dense = dict(dense)
        for i in list(dense):
            lex.setdefault(i, float(full.get(i, 0.0)))
        for i in list(lex):
            dense.setdefault(i, float(dense_all[i]))
    def per_doc(scores):
        out = {}
        for i, s in scores.items():
            out.setdefault(cd[i], []).append(s)
        return {k: max(v) for k, v in out.items()}
    ld, dd = per_doc(lex), per_doc(dense)
    if norm == "z":
        zl, lmin = zs(ld)
        zd, dmin = zs(dd)
    else:
        zl, zd = fuse.min_max(ld), fuse.min_max(dd)
        lmin = dmin = 0.0
    docs = set(zl) | set(zd)
    fused_doc = {k: wl * zl.get(k, lmin) + (1 - wl) * zd.get(k, dmin) for k in docs}
    # hand back one "chunk" per doc: pick its first chunk index seen
    rep = {}
    for i in list(lex) + list(dense):
        rep.setdefault(cd[i], i)
    return {rep[k]: s for k, s in fused_doc.items()}


def m_engine(d, q, lex, dense, dense_all, **params):
    """What the engine does by default: fill both scores over the union pool, then zconf."""
    full = dict(d["bm25"][q])
    pool = set(lex) | set(dense)
    lex_f = {i: float(full.get(i, 0.0)) for i in pool}
    den_f = {i: float(dense_all[i]) for i in pool}
    return fuse.fuse_hybrid(lex_f, den_f, fuse.FusionParams(**params))


METHODS["engine"] = m_engine


if __name__ == "__main__":
    d = load(sys.argv[1])
    for split in sys.argv[2:]:
        for name, m in METHODS.items():
            r = score(d, split, m)
            print(f"{split:6s} {name:10s} " + " ".join(f"{k}={v:.4f}" for k, v in r.items()))

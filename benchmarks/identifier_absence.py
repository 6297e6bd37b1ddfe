"""How often the absent-identifier probe (``typos.check_words``, ``WordCheck.absent``) calls a
real identifier absent: every snake_case identifier a docs set's chunks hold (up to 150), asked
as ``how do I use NAME`` and with one letter dropped (a typo of a real name, which must not
count as absent either). Candidates are the question's BM25 top 100, fewer than a hybrid
search's pool, so this errs towards calling names absent. Training sets only (issue 8 roles):

    DOCSHELF_EVAL_CACHE=... python benchmarks/identifier_absence.py starlette click werkzeug marshmallow sqlmodel
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from docshelf.eval.docset import load_docset
from docshelf.eval.docset_runner import open_docset_index
from docshelf.search.typos import TypoParams, check_words, identifiers

DOCSETS = Path(__file__).resolve().parent / "docsets"


def absent(store, query: str) -> tuple[str, ...]:
    pool = [c for c, _ in store.text_search(query.replace("_", " "), 100, None)]
    return check_words(query, store, pool, TypoParams()).absent


def main(names: list[str]) -> None:
    for name in names:
        rng = random.Random(0)
        store = open_docset_index(load_docset(DOCSETS / name)).service.store
        rows = store._chunks.to_arrow().select(["text"]).to_pylist()  # the embedded store's table
        held = sorted({i for r in rows for i in identifiers(r["text"])})
        sample = rng.sample(held, min(150, len(held)))
        whole = [i for i in sample if absent(store, f"how do I use {i}")]
        typos = []
        for ident in sample:
            at = rng.randrange(1, len(ident) - 1) if len(ident) >= 6 else 0
            if at and "_" not in ident[at - 1 : at + 1]:
                typos.append((ident, ident[:at] + ident[at + 1 :]))
        wrong = [(i, t) for i, t in typos if t in absent(store, f"how do I use {t}")]
        print(f"{name}: {len(held)} identifiers, {len(sample)} asked: held but called absent {len(whole)} {whole[:5]}; "
              f"one letter dropped: {len(wrong)} of {len(typos)} called absent {wrong[:5]}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["starlette", "click", "werkzeug", "marshmallow", "sqlmodel"])

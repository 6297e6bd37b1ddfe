"""``docshelf eval DATASET_DIR``: retrieval quality, mode by mode, on a BEIR folder or a docs-folder set
(``docs/`` + ``questions.jsonl``, detected by the latter)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .cli_app import app, err, out, state
from .output import to_jsonable

METRIC_NAMES = ("ndcg@10", "recall@10", "recall@100", "mrr@10")


@app.command("eval")
def eval_command(
    dataset_dir: Annotated[
        Path,
        typer.Argument(help="A docs-folder set (docs/ + questions.jsonl) or a BEIR folder (corpus.jsonl, "
                       "queries.jsonl, qrels/SPLIT.tsv)."),
    ],
    modes: Annotated[
        str, typer.Option("--modes", help="Comma-separated modes to compare: keyword, semantic, fuzzy, hybrid.")
    ] = "keyword,semantic,hybrid",
    split: Annotated[str, typer.Option("--split", help="BEIR: which qrels file to use (qrels/SPLIT.tsv).")] = "test",
    max_queries: Annotated[
        Optional[int], typer.Option("--max-queries", help="Evaluate only the first N judged queries (or questions).")
    ] = None,
    cache_dir: Annotated[
        Optional[Path],
        typer.Option("--cache-dir", envvar="DOCSHELF_EVAL_CACHE", help="Where embedded corpora are cached."),
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Index into a temporary folder instead of the cache.")
    ] = False,
    run_file: Annotated[
        Optional[Path],
        typer.Option("--run-file", help="Also write each mode's ranked documents (docs sets: every question's outcome) as JSON."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Evaluate search quality per mode: BEIR nDCG@10, recall@10/@100, MRR@10; docs-folder sets
    hit@1, hit@3, MRR@10, section accuracy@1 and no-answer AUROC per question kind; latency.

    The documents go through the real pipeline into an index cached per corpus, model and
    chunker, so re-runs skip the embedding.
    """
    from ..eval.beir import load_dataset
    from ..eval.docset import is_docset
    from ..eval.runner import open_eval_index, run_eval
    from ..search.engine import MODES
    from .progress import IndexProgressBar

    wanted = [m.strip() for m in modes.split(",") if m.strip()]
    bad = [m for m in wanted if m not in MODES]
    if bad or not wanted:
        raise typer.BadParameter(f"unknown mode(s) {', '.join(bad) or '(none)'}; use {', '.join(MODES)}", param_hint="--modes")
    model = state.model or "all-MiniLM-L6-v2"
    if is_docset(dataset_dir):
        _eval_docset(dataset_dir, wanted, model, cache_dir, no_cache, max_queries, run_file, as_json)
        return
    dataset = load_dataset(dataset_dir, split)
    with IndexProgressBar(err.console, enabled=sys.stderr.isatty()) as bar:
        index = open_eval_index(dataset, model=model, cache_dir=cache_dir, use_cache=not no_cache, progress=bar)
    report = run_eval(dataset, index, wanted, max_queries=max_queries)  # type: ignore[arg-type]
    if run_file:
        run_file.write_text(json.dumps(report.runs))
    data = to_jsonable(report)
    data.pop("runs", None)
    if as_json or not sys.stdout.isatty():
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return
    from rich.table import Table

    table = Table(title=f"{report.dataset} ({report.split}): {report.queries} queries, {report.documents} documents, "
                  f"{report.chunks} chunks")
    table.add_column("mode")
    for name in METRIC_NAMES:
        table.add_column(name, justify="right")
    table.add_column("p50 ms", justify="right")
    table.add_column("p95 ms", justify="right")
    for r in report.modes:
        table.add_row(r.mode, *(f"{r.metrics[n]:.4f}" for n in METRIC_NAMES), f"{r.latency_p50_ms:.1f}",
                      f"{r.latency_p95_ms:.1f}")
    out.print(table)
    reuse = "reused" if report.reused_index else f"built in {report.index_seconds:.0f}s"
    err.print(f"model {report.model}; index {reuse} at {report.index_dir}")


def _eval_docset(root: Path, modes: list[str], model: str, cache_dir: Optional[Path], no_cache: bool,
                 max_queries: Optional[int], run_file: Optional[Path], as_json: bool) -> None:
    from ..eval.docset import load_docset
    from ..eval.docset_runner import QA_METRICS, open_docset_index, run_docset
    from .progress import IndexProgressBar

    docset = load_docset(root)
    with IndexProgressBar(err.console, enabled=sys.stderr.isatty()) as bar:
        index = open_docset_index(docset, model=model, cache_dir=cache_dir, use_cache=not no_cache, progress=bar)
    report = run_docset(docset, index, modes, max_queries=max_queries)  # type: ignore[arg-type]
    if run_file:
        run_file.write_text(json.dumps(to_jsonable(report.runs), indent=1))
    data = to_jsonable(report)
    data.pop("runs", None)
    if as_json or not sys.stdout.isatty():
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return
    from rich.table import Table

    table = Table(title=f"{report.dataset}: {report.questions} questions, {report.documents} documents, "
                  f"{report.chunks} chunks")
    for name in ("mode", "kind", "n", *QA_METRICS):
        table.add_column(name, justify="left" if name in ("mode", "kind") else "right")
    for r in report.modes:
        rows = [*r.by_kind.items(), ("all", r.overall)]
        for kind, values in rows:
            n = sum(r.counts.values()) if kind == "all" else r.counts[kind]
            table.add_row(r.mode, kind, str(n), *("-" if values[m] is None else f"{values[m]:.3f}" for m in QA_METRICS))
        table.add_section()
    out.print(table)
    reuse = "reused" if report.reused_index else f"built in {report.index_seconds:.0f}s"
    err.print(f"model {report.model}; index {reuse} at {report.index_dir}; "
              + "; ".join(f"{r.mode} p50 {r.latency_p50_ms:.0f} ms" for r in report.modes))

"""``docshelf`` command line: index, search, status, get, documents (Typer + Rich).

Data goes to stdout (``--json`` for scripts); progress, logs and errors go to stderr.
"""

from __future__ import annotations

import logging
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import typer

from .. import allocator, collector
from ..errors import DocshelfError, InvalidRequest
from ..requests import DocumentListRequest, DocumentRequest, SearchRequest
from .cli_app import GlobalOptionsGroup, app, err, escape, main_options, out, settings, state
from .cli_args import command_of, settings_args_of, typed_path
from .cli_app import print_json as _print_json
from .cli_app import service as _service
from .output import citation, plural, to_jsonable

__all__ = ["app", "main"]

log = logging.getLogger("docshelf.cli")


@app.command()
def index(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Folders or files to index (default: known roots).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Re-embed PATHs (or everything); rebuilds the index after a model change.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List what would be indexed and skipped; change nothing.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when a file failed to index (default: 0, with a summary).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Index folders: only new or changed files are parsed and embedded; vanished files are pruned."""
    from .progress import IndexProgressBar

    # --force may start over, so an index built with another model or schema is no obstacle.
    if dry_run:  # creates nothing, even when there is no index yet
        from ..service import Docshelf

        report = Docshelf.plan(settings(), paths or None, force=force)
    else:
        with IndexProgressBar(err.console) as bar:
            report = _service(rebuild=force, create=True).index(paths or None, force=force, progress=bar)
    for warning in report.warnings:
        err.print(f"[yellow]Warning:[/] {escape(warning)}")
    if as_json:
        _print_json(report)
    elif dry_run:
        for p in report.added:
            out.print(f"[green]add[/]     {escape(p)}")
        for p in report.updated:
            out.print(f"[yellow]update[/]  {escape(p)}")
        for p in report.removed:
            out.print(f"[red]remove[/]  {escape(p)}")
        for p, why in sorted(report.skipped.items()):
            out.print(f"[dim]skip[/]    {escape(p)} [dim]({escape(why)})[/]")
        out.print(f"{report.unchanged} unchanged")
        return
    elif report.kept_by:  # a running watch or server indexes these roots already: nothing to do here
        out.print(f"Nothing to do: {escape(report.kept_by)} holds this index and keeps these folders up to date "
                  "itself (each change within seconds, every root re-checked periodically); `docshelf status` "
                  "shows what it has indexed. Stop it first to add a folder or to run `docshelf index --force`.")
        print_failures(report.failed)
    else:
        failed = f", {len(report.failed)} failed ({', '.join(sorted(report.failed))})" if report.failed else ""
        out.print(
            f"Indexed {len(report.added)} new, {len(report.updated)} changed, {report.unchanged} unchanged, "
            f"{len(report.removed)} removed{failed}; {plural(report.chunks_embedded, 'chunk')} embedded in {report.seconds:.1f}s."
        )
        print_failures(report.failed)
        print_skips(report.skipped)
    if strict and report.failed:
        raise SystemExit(1)


def print_skips(skipped: dict[str, str]) -> None:
    """How many paths were skipped, by reason (a built site's machinery, unsupported formats…)."""
    if not skipped:
        return
    reasons = Counter(why.split(" (")[0] for why in skipped.values())
    by_reason = ", ".join(f"{n} {why}" for why, n in reasons.most_common())
    out.print(f"Skipped {len(skipped)}: {escape(by_reason)} (`docshelf status` lists each with its reason).")


def print_failures(failed: dict[str, str]) -> None:
    """Each failed file once, with its reason: the same lines in `index` and `status`."""
    for path, why in sorted(failed.items()):
        out.print(f"[red]failed[/] {escape(path)}: {escape(why)}")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for: a question or exact terms.")],
    k: Annotated[int, typer.Option("-k", "--limit", help="Number of results.")] = 5,
    mode: Annotated[Optional[str], typer.Option("--mode", "-m", help="hybrid, semantic, keyword or fuzzy.")] = None,
    collection: Annotated[Optional[list[str]], typer.Option("--collection", help="Only these collections.")] = None,
    doc_type: Annotated[Optional[list[str]], typer.Option("--type", help="Only these doc types.")] = None,
    tag: Annotated[Optional[list[str]], typer.Option("--tag", help="Documents with any of these tags.")] = None,
    all_tag: Annotated[Optional[list[str]], typer.Option("--all-tag", help="Documents with all of these tags.")] = None,
    field: Annotated[Optional[list[str]], typer.Option("--field", help="Frontmatter field KEY=VALUE (exact, case-insensitive).")] = None,
    path_prefix: Annotated[Optional[str], typer.Option("--path", help="Only paths starting with this.")] = None,
    glob: Annotated[Optional[str], typer.Option("--glob", help="Only paths matching this gitignore-style glob (e.g. docs/**/*.md).")] = None,
    date_from: Annotated[Optional[str], typer.Option("--from", help="Dated on or after this day (ISO 8601: YYYY-MM-DD or a date-time).")] = None,
    date_to: Annotated[Optional[str], typer.Option("--to", help="Dated on or before this day (ISO 8601: YYYY-MM-DD or a date-time).")] = None,
    linked_to: Annotated[Optional[list[str]], typer.Option("--linked-to", help="Only notes that link to this note with a wiki link (Obsidian style).")] = None,
    min_score: Annotated[float, typer.Option("--min-score", help="Drop hits below this score (0-1).")] = 0.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print hits as JSON.")] = False,
) -> None:
    """Search the index. Hybrid (BM25 + dense) by default; every hit says where to cite it."""
    request = _request(
        SearchRequest, query=query, k=k, mode=mode, collections=collection, doc_types=doc_type, tags_any=tag,
        tags_all=all_tag, fields=field, path_prefix=typed_path(path_prefix) if path_prefix else None, path_glob=glob,
        date_from=date_from, date_to=date_to,
        min_score=min_score, linked_to=linked_to,
    )
    answer = _ask_running_server(request)
    result = _result_from_json(answer.result) if answer is not None else _search_in_process(request)
    if as_json:
        _print_json(answer.result if answer is not None else result)
        return
    if result.note:
        err.print(f"[yellow]{escape(result.note)}[/]")
    if not result.hits:
        out.print(_no_results(result, request))
        return
    from rich.text import Text

    if result.confidence in ("low", "none"):
        err.print(f"[yellow]confidence {result.confidence}: the documents may not answer this; check the passages[/]")
    for n, hit in enumerate(result.hits, start=1):
        out.print(f"[bold]{n}. {escape(citation(hit))}[/]  [dim]{hit.score:.3f} {hit.mode} · {escape(hit.collection)}[/]")
        if hit.note:  # the file now fails to index: this is its last good version
            out.print(f"[yellow]{escape(hit.note)}[/]")
        body = Text(_snippet(hit.text))
        for start, end in hit.highlights:
            if end <= len(body.plain):
                body.stylize("bold yellow", start, end)
        out.print(body)
        out.print()


def _no_results(result, request: SearchRequest) -> str:
    """"No results", with the hint that fits why (``SearchResult.empty_reason``)."""
    if result.empty_reason == "empty_index":
        return ("No results: the index holds no documents. `docshelf index PATH` adds some; a running "
                "`docshelf watch` or `serve` indexes its folders itself (`docshelf status` shows how far).")
    if result.empty_reason == "empty_scope":
        return "No results: no indexed document matches these filters; `docshelf documents` lists what is indexed."
    if result.empty_reason == "below_min_score":
        return f"No results scored {request.min_score} or more; a lower --min-score shows the weaker matches."
    if result.empty_reason == "no_match" and result.mode == "keyword":
        return "No results. Try --mode fuzzy for names and typos, or the default mode for questions."
    if result.empty_reason == "no_match":
        return "No results. Check the spelling, or `docshelf status` for what is indexed."
    return "No results."  # unknown_collection: the note above names the collections there are


def _ask_running_server(request: SearchRequest):
    """The answer of a ``docshelf serve``/``watch`` already holding this index and model
    (``live/query_socket.py``), or None: then this process searches itself."""
    from ..live import query_socket

    if not query_socket.supported():
        return None
    config = settings()
    key = query_socket.settings_key(config)
    if state.settings_args is not None:  # the thin client (cli_entry.py) finds it there next time
        from ..live import query_keys

        query_keys.remember(state.settings_args, config, key)
    answer = query_socket.ask(Path(config.index_dir).expanduser().resolve(), key, request.model_dump(mode="json"))
    if answer is not None:
        log.info(query_socket.answered_line(answer))
    return answer


def _search_in_process(request: SearchRequest):
    """``Docshelf.search`` in this process. A local model loads on a second thread meanwhile:
    creating its session releases the GIL, so on two cores it overlaps importing and opening
    the store instead of following it (the search waits for the load either way)."""
    import threading

    from ..embedders import REMOTE_PREFIXES, embedder_from_settings
    from ..service import Docshelf

    config = settings()
    embedder = embedder_from_settings(config)
    loader = None
    if (request.mode or config.search_mode) in ("hybrid", "semantic") and not config.model.startswith(REMOTE_PREFIXES):
        loader = threading.Thread(target=_load_quietly, args=(embedder,), name="docshelf-model", daemon=True)
        loader.start()
    try:
        return Docshelf(config, embedder=embedder, create=False).search(request)
    except BaseException:
        if loader is not None:  # exiting while onnxruntime builds its session aborts the process (exit 134)
            loader.join()
        raise


def _load_quietly(embedder) -> None:
    try:
        embedder.load()
    except Exception:  # noqa: BLE001 - the search loads it again and reports the error the usual way
        log.debug("loading the model ahead of the search failed", exc_info=True)


def _result_from_json(data: dict):
    """A ``SearchResult`` back from its JSON (lists become the tuples the models hold)."""
    from ..models import Hit, SearchResult

    def tuples(value):
        return tuple(tuples(v) for v in value) if isinstance(value, list) else value

    hits = tuple(Hit(**{k: tuples(v) for k, v in hit.items()}) for hit in data["hits"])
    return SearchResult(**{**{k: tuples(v) for k, v in data.items()}, "hits": hits})


# Request fields → the flag that sets them, so a rejected value names what the user typed.
FLAGS = {
    "query": "QUERY", "k": "-k", "mode": "--mode", "collections": "--collection", "doc_types": "--type",
    "tags_any": "--tag", "tags_all": "--all-tag", "fields": "--field", "path_prefix": "--path", "path_glob": "--glob",
    "date_from": "--from", "date_to": "--to", "min_score": "--min-score", "linked_to": "--linked-to", "path": "PATH", "lines": "--lines",
    "page": "--page", "page_label": "--page", "section": "--section", "limit": "--limit", "cursor": "--cursor", "collection": "--collection",
}


def _request(model, **values):
    """Build a request model; a rejected field is a usage error (exit 2) naming its flag."""
    try:
        return model(**{k: v for k, v in values.items() if v is not None})
    except InvalidRequest as exc:
        raise typer.BadParameter(exc.reason, param_hint=FLAGS.get(exc.field, exc.field)) from None


def _snippet(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + " …"


@app.command()
def status(as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False) -> None:
    """Documents, chunks, failures with reasons, the model and the store."""
    st = _service().status()
    if as_json:
        _print_json(st)
        return
    out.print(f"Index:      {escape(st.index_dir)} ({st.store})")
    out.print(f"Model:      {escape(st.model)} ({st.dimensions}-d)")
    out.print(f"Roots:      {escape(', '.join(st.roots) or '(none)')}")
    out.print(f"Documents:  {st.documents}   Chunks: {st.chunks}   Failed: {len(st.failed)}   "
              f"Skipped: {len(st.skipped)}")
    if st.collections:
        from rich.table import Table

        table = Table("collection", "documents", "chunks", "doc types")
        for c in st.collections:
            table.add_row(c.name, str(c.documents), str(c.chunks), ", ".join(c.doc_types))
        out.print(table)
    print_failures(st.failed)
    for path, why in sorted(st.skipped.items()):
        out.print(f"[dim]skipped[/] {escape(path)}: {escape(why)}")


@app.command()
def get(
    path: Annotated[str, typer.Argument(help="Document path as shown in search results.")],
    lines: Annotated[Optional[str], typer.Option("--lines", help="Line range START-END (e.g. 10-40) or one line (12); LINE:FIRST-LAST reads characters of one long line (1:2001-4000), as a hit there cites them.")] = None,
    page: Annotated[Optional[str], typer.Option("--page", help="PDF page: its number (4) or the label printed on it (iv), as a citation shows.")] = None,
    section: Annotated[Optional[str], typer.Option("--section", help="Heading to extract (case and markup ignored).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Print a document's indexed text (whole, or a line range, page or section)."""
    request = _request(DocumentRequest, path=path, lines=lines, page=page, section=section)
    doc = _service().get_document(request)
    if as_json:
        _print_json(doc)
    else:
        sys.stdout.write(doc.text + "\n")
        if doc.note:
            err.print(f"[yellow]Note:[/] {escape(doc.note)}")


@app.command()
def documents(
    collection: Annotated[Optional[str], typer.Option("--collection", help="Only this collection.")] = None,
    path_prefix: Annotated[Optional[str], typer.Option("--path", help="Only paths starting with this.")] = None,
    limit: Annotated[int, typer.Option("--limit", help="Page size.")] = 100,
    cursor: Annotated[Optional[str], typer.Option("--cursor", help="Start after this cursor (printed under a cut page).")] = None,
    all_pages: Annotated[bool, typer.Option("--all", help="Every document, not one page.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List indexed documents with their status, one page at a time (--all for every page)."""
    service = _service()
    request = _request(DocumentListRequest, collection=collection, path_prefix=typed_path(path_prefix) if path_prefix else None,
                       limit=limit, cursor=cursor)
    page = service.list_documents(request)
    docs = list(page.documents)
    while all_pages and page.next_cursor:
        page = service.list_documents(request.model_copy(update={"cursor": page.next_cursor}))
        docs.extend(page.documents)
    if as_json:
        _print_json({"documents": docs, "total": page.total, "next_cursor": page.next_cursor})
        return
    if not docs:  # say so: an empty output read as a command that did nothing
        err.print("No documents match --path/--collection; `docshelf documents` lists every one."
                  if path_prefix or collection else "No documents are indexed; `docshelf index PATH` adds some.")
    for d in docs:
        if d.status == "failed":  # nothing was indexed: no collection, type or chunks to show
            out.print(f"{escape(d.path)}  [red]failed: {escape(d.error)}[/]")
            continue
        mark = "" if d.status == "indexed" else f" [red]({d.status}: {escape(d.error)})[/]"
        chunks = plural(d.chunk_count, "chunk")
        out.print(f"{escape(d.path)}  [dim]{escape(d.collection)} · {escape(d.doc_type)} · {chunks}[/]{mark}")
    if page.next_cursor:
        err.print(f"Showing {len(docs)} of {page.total} documents; next page: "
                  f"`docshelf documents --cursor {page.next_cursor}` (or --all)")


roots_app = typer.Typer(help="List the known roots, or forget one.", no_args_is_help=False)
app.add_typer(roots_app, name="roots")


@roots_app.callback(invoke_without_command=True)
def roots(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List the known roots: documents, failures, and whether each still exists."""
    if ctx.invoked_subcommand is not None:
        return
    infos = _service().root_infos()
    if as_json:
        _print_json(infos)
        return
    if not infos:
        out.print("No roots yet: `docshelf index PATH` adds one.")
    for info in infos:
        where = " [dim](config file)[/]" if info.configured else ""
        state = "" if info.exists else " [red](missing)[/]"
        out.print(f"{escape(info.path)}  {info.documents} documents, {info.failed} failed{state}{where}")


@roots_app.command("remove")
def roots_remove(path: Annotated[Path, typer.Argument(help="The root to forget, as `docshelf roots` lists it.")]) -> None:
    """Forget a root and delete its documents from the index (the files are not touched)."""
    info = _service().remove_root(path)
    out.print(f"Removed {escape(info.path)} and its {info.documents + info.failed} documents from the index.")


@app.command()
def migrate(
    to: Annotated[str, typer.Option("--to", help="Target store: postgresql://…, qdrant://…, qdrant+https://… or a folder (embedded).")],
    sample: Annotated[int, typer.Option("--sample", help="Searches to compare between the stores at the end.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Copy the index (vectors included, no re-embedding) to another store; resumable, verified at the end."""
    report = _service().migrate_to(to, sample=sample)
    if as_json:
        _print_json({**to_jsonable(report), "ok": report.ok})
    else:
        out.print(
            f"Copied {report.copied} documents ({report.chunks} chunks), skipped {report.skipped} already there, "
            f"removed {report.removed}; {report.target_chunks}/{report.source_chunks} chunks on the target."
        )
        out.print(
            f"Sample of {report.searches}: {report.vector_self_found} found by their vector, "
            f"{report.keyword_self_found} by their words; top-10 overlap {report.vector_overlap:.2f}."
        )
        for problem in report.problems:
            err.print(f"[red]problem:[/] {escape(problem)}")
    if not report.ok:
        raise typer.Exit(1)


def _register_more_commands() -> None:
    """Commands that live in their own modules (server, evaluation) attach themselves to ``app``."""
    import importlib

    for name in ("cli_serve", "cli_doctor", "cli_eval", "cli_api", "cli_watch"):
        try:
            importlib.import_module(f"{__package__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.{name}":
                raise


_register_more_commands()


def _app_for(args: list[str]) -> typer.Typer:
    """The whole app, or for ``search`` the same callback and command alone: Typer builds every
    registered command's parameters on each run, which costs more than a search a running
    server answers. Parsing, help and errors of ``search`` are the same either way."""
    if command_of(args) != "search":
        return app
    alone = typer.Typer(name="docshelf", cls=GlobalOptionsGroup, help=app.info.help, no_args_is_help=True,
                        add_completion=False, pretty_exceptions_enable=False)
    alone.callback()(main_options)
    alone.command()(search)
    return alone


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning DocshelfError into one clear line and exit 1."""
    allocator.tune()  # before any thread starts (see allocator.py)
    collector.enable()  # a server freezes its start-up objects (see collector.py)
    args = list(sys.argv[1:] if argv is None else argv)
    state.settings_args = settings_args_of(args)
    try:
        code = _app_for(args)(args=args, prog_name="docshelf", standalone_mode=False)
        if isinstance(code, int) and code:  # typer.Exit(n) comes back as a return value here
            sys.exit(code)
    except DocshelfError as exc:
        err.print(f"[red]Error:[/] {escape(str(exc))}")
        sys.exit(1)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        err.print("Aborted.")
        sys.exit(130)
    except Exception as exc:  # Click usage errors carry their own exit code
        code = getattr(exc, "exit_code", None)
        if code is not None and hasattr(exc, "show"):
            exc.show(file=sys.stderr)
            if type(exc).__name__ == "NoSuchOption" and command_of(args) == "search":
                # an option name is a common thing to look up (``--keep-index``); Typer ships its own Click
                err.print(f"To search for a term that starts with '-', put -- before it: "
                          f"docshelf search -- {escape(exc.option_name)}", highlight=False)
            sys.exit(code)
        raise


if __name__ == "__main__":
    main()

"""``docshelf doctor``'s checks: is the index there and usable, does the model load, do the roots exist?

Each check is a ``Check`` (``ok``, ``warn`` or ``fail`` with one line of detail); interfaces
print them. A check never raises: every exception is a finding. Nothing here creates an
index: on a machine with none, the checks say so and how to make one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .config import Settings

CheckStatus = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One finding: ``warn`` is worth fixing but nothing is broken; ``fail`` is broken."""

    check: str
    status: CheckStatus
    detail: str
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status != "fail"


class Warn(Exception):
    """Raised by a check body to report a warning rather than a failure."""


def run_check(name: str, body: Callable[[], str]) -> Check:
    """Time ``body``; its return value is the detail, ``Warn`` a warning, any other exception a failure."""
    started = time.perf_counter()
    try:
        status, detail = "ok", body()
    except Warn as exc:
        status, detail = "warn", str(exc)
    except Exception as exc:  # noqa: BLE001 - every failure is a finding
        status, detail = "fail", str(exc) or type(exc).__name__
    return Check(name, status, detail, round(time.perf_counter() - started, 3))  # type: ignore[arg-type]


def diagnose(settings: Settings) -> list[Check]:
    """The index, the model, the roots and the writer lock, in that order."""
    from .service import Docshelf
    from .stores import index_exists

    index_dir = Path(settings.index_dir).expanduser()
    holder: dict[str, Any] = {}

    def index() -> str:
        if not index_exists(index_dir, settings.store):
            raise Warn(f"no index at {index_dir} yet: run `docshelf index PATH` to make one")
        holder["svc"] = svc = Docshelf(settings, create=False)
        st = svc.status()
        summary = f"{st.index_dir}: {st.documents} documents, {st.chunks} chunks, {len(st.failed)} failed"
        if st.documents == 0:
            raise Warn(f"{summary}; the index is empty: `docshelf index PATH` adds documents")
        if st.failed:
            raise Warn(f"{summary}; `docshelf status` lists the failures and why")
        return summary

    def model() -> str:
        from .embedders import embedder_from_settings

        svc = holder.get("svc")
        emb = svc.embedder if svc is not None else embedder_from_settings(settings)
        emb.load()
        vec = emb.embed_query("docshelf doctor")
        return f"{emb.model_id} loaded, {len(vec)}-d query vector"

    def roots() -> str:
        svc = holder.get("svc")
        known = svc.roots if svc is not None else [Path(r).expanduser().resolve() for r in settings.roots]
        if not known:
            raise Warn("no roots yet (docshelf index PATH or docshelf serve PATH adds one)")
        missing = [str(r) for r in known if not Path(r).exists()]
        if missing:
            raise Warn(f"missing: {', '.join(missing)} (skipped when indexing; `docshelf roots remove PATH` forgets one)")
        return ", ".join(map(str, known))

    def writer() -> str:
        svc = holder.get("svc")
        if svc is None:
            return "no index yet, so nothing to lock"
        if svc.try_become_writer():
            svc.release_writer()
            return "free (no server is writing this index now)"
        return "held by a running docshelf process (a server keeps the index up to date)"

    return [run_check("index", index), run_check("model", model), run_check("roots", roots),
            run_check("writer lock", writer)]

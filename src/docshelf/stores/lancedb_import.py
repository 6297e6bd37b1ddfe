"""``import lancedb`` in a third of the time: what a cold ``docshelf search`` pays first.

Importing lancedb 0.40 on Python 3.11 costs ~2 s of CPU on the 2-core reference machine,
and almost none of it is for an embedded table (benchmarks/README.md, "CLI"):

- ``lance_namespace_urllib3_client`` (the REST client of LanceDB Cloud namespaces) builds
  ~250 pydantic models and ~400 ``validate_call`` wrappers, and its package ``__init__``
  imports every API class. Here its package is registered as a lazy module: the model
  submodules that ``lance_namespace`` and ``lancedb.namespace`` import by name still load,
  but the API classes, the HTTP client and urllib3 load only if something touches them.
- pydantic models defined during the import are built on first use (``defer_build``),
  not at class creation; a model a local table never uses is never built.
- ``overrides.override`` (which lancedb uses before Python 3.12) disassembles every
  decorated method's callers to check them; during the import it is replaced by what
  lancedb uses on 3.12+, ``typing.override``: mark the method, return it.
- ``pyarrow.dataset`` and ``pyarrow.compute`` (~70 ms of CPU, mostly registering hundreds
  of compute functions) are imported by lancedb's modules at the top but used only inside
  functions (writing a ``Dataset``, reranking, checking vectors): they are registered as
  lazy modules that run on their first attribute, which a search never reads.

Each trick leaves behaviour unchanged (the same objects exist, built later), is undone
after the import (the lazy modules stay lazy until used), and is skipped when the private
hook it needs is missing.

The engine's Rust log level is read from ``LANCEDB_LOG`` once, when the extension module
loads: ``quiet_engine_logs`` sets it to ``error`` first (unless the user set it), so engine
warnings (deprecation notices and the like) never reach a server's stderr.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
import threading
import types
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

log = logging.getLogger(__name__)

_LAZY_PACKAGES = ("lance_namespace_urllib3_client",)
# Lazy modules, and the names lancedb reads from them at import time (``ds.Dataset`` and
# ``ds.Scanner`` in ``@singledispatch`` registrations), served from where the module itself
# takes them (``pyarrow.dataset`` re-exports ``pyarrow._dataset``'s classes) without running it.
_LAZY_MODULES: dict[str, dict[str, str]] = {
    "pyarrow.dataset": {"Dataset": "pyarrow._dataset", "Scanner": "pyarrow._dataset"},
    "pyarrow.compute": {},
}
_import_lock = threading.Lock()


class _LazyModule(types.ModuleType):
    """A module whose code runs on the first attribute it lacks. For a package ``__path__``
    is set, so its submodules import normally meanwhile (``from pkg.sub import X`` costs
    only ``sub``)."""

    def __getattr__(self, name: str) -> Any:
        state = self.__dict__
        lock = state.get("_docshelf_lazy_lock")
        if lock is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        with lock:
            source = state.get("_docshelf_lazy_names", {}).get(name)
            if source is not None and "_docshelf_lazy_spec" in state:  # the same object, cheaper
                value = state[name] = getattr(importlib.import_module(source), name)
                return value
            spec = state.pop("_docshelf_lazy_spec", None)
            if spec is not None:
                spec.loader.exec_module(self)
            state.pop("_docshelf_lazy_lock", None)
            state.pop("_docshelf_lazy_names", None)
        return getattr(self, name)


def _register_lazy(name: str, names: dict[str, str] | None = None) -> None:
    if name in sys.modules:
        return
    parent_name, _, child = name.rpartition(".")
    try:
        spec = importlib.util.find_spec(name)  # imports the parent package, if any
    except ImportError:
        return
    if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
        return
    module = _LazyModule(name)
    module.__spec__ = spec
    module.__loader__ = spec.loader
    module.__file__ = spec.origin
    if spec.submodule_search_locations is not None:
        module.__package__ = name
        module.__path__ = list(spec.submodule_search_locations)
    else:
        module.__package__ = parent_name
    module.__dict__["_docshelf_lazy_spec"] = spec
    module.__dict__["_docshelf_lazy_lock"] = threading.Lock()
    module.__dict__["_docshelf_lazy_names"] = dict(names or {})
    sys.modules[name] = module
    if parent_name:  # what a real import does: `import a.b` then `a.b.X` must find it
        setattr(sys.modules[parent_name], child, module)


@contextmanager
def _deferred_pydantic_builds() -> Iterator[None]:
    try:
        from pydantic._internal import _config
        defaults = _config.config_defaults
        previous = defaults["defer_build"]
    except (ImportError, AttributeError, KeyError):
        yield
        return
    defaults["defer_build"] = True
    try:
        yield
    finally:
        defaults["defer_build"] = previous


def _mark_override(method: Any = None, **_: Any) -> Any:
    """``typing.override`` (Python 3.12): set ``__override__`` and return the method."""
    if method is None:
        return _mark_override
    try:
        method.__override__ = True
    except (AttributeError, TypeError):
        pass
    return method


@contextmanager
def _cheap_overrides() -> Iterator[None]:
    if sys.version_info >= (3, 12):  # lancedb uses typing.override itself
        yield
        return
    try:
        import overrides
    except ImportError:
        yield
        return
    previous = overrides.override
    overrides.override = _mark_override
    try:
        yield
    finally:
        overrides.override = previous


ENGINE_LOG = "LANCEDB_LOG"
"""The variable lancedb 0.40's extension reads its log filter from (not ``LANCE_LOG``)."""


def quiet_engine_logs() -> None:
    """Engine log records below ERROR off stderr, unless the user chose a level. Only effective
    before lancedb is first imported (the level is fixed when its extension loads)."""
    os.environ.setdefault(ENGINE_LOG, "error")


def import_lancedb() -> types.ModuleType:
    """``lancedb``, imported the fast way unless something imported it already."""
    module = sys.modules.get("lancedb")
    if module is not None:
        return module
    quiet_engine_logs()
    with _import_lock:
        if "lancedb" in sys.modules:
            return sys.modules["lancedb"]
        with ExitStack() as stack:
            for name in _LAZY_PACKAGES:
                _register_lazy(name)
            for name, names in _LAZY_MODULES.items():
                _register_lazy(name, names)
            stack.enter_context(_deferred_pydantic_builds())
            stack.enter_context(_cheap_overrides())
            import lancedb
        return lancedb


__all__ = ["ENGINE_LOG", "import_lancedb", "quiet_engine_logs"]

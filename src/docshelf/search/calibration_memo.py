"""The calibration's background, remembered per index version (``calibration.json`` in the index folder).

A score's background (``calibrate.Calibrator.background``: the median best cosine of eight
null queries) takes eight embeddings and eight vector queries, about a tenth of a cold
``docshelf search``. It depends only on the index's content, the model and its query prefix,
the null queries and the way top cosines are read, so whoever measures it records it under
a key made of exactly those; the next process on the same index version reads it instead.

Any write to the index is a new store version, so the key no longer matches and the
background is measured again (and recorded again). A store that cannot name its version
(``content_version`` absent or None) is never memoised. The file is only a cache: a
missing, foreign, garbled or unwritable one means "measure", never an error.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

from .calibrate import NULL_QUERIES

log = logging.getLogger(__name__)

FILE = "calibration.json"
FORMAT = 1  # bump when the way a background is measured changes (top cosine, k, ANN settings)


class CalibrationMemo:
    """Loads and saves the background for the store's current version (see module docstring)."""

    def __init__(self, index_dir: Path, store: Any, model_id: str, query_prefix: str = "") -> None:
        self.path = Path(index_dir).expanduser() / FILE
        self._store = store
        self._fixed = {"format": FORMAT, "model": model_id, "query_prefix": query_prefix,
                       "nulls": hashlib.sha256("\n".join(NULL_QUERIES).encode()).hexdigest()[:16]}

    def key(self) -> dict[str, Any] | None:
        """What the background depends on now; None when the store cannot say its version."""
        version = getattr(self._store, "content_version", None)
        current = version() if callable(version) else None
        return None if current is None else {**self._fixed, "store": current}

    def load(self, key: dict[str, Any] | None) -> float | None:
        if key is None:
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("key") == key and isinstance(data.get("background"), float):
                return data["background"]
        except (OSError, ValueError, AttributeError):
            pass
        return None

    def save(self, key: dict[str, Any] | None, background: float) -> None:
        """Record ``background`` measured at ``key``, unless the index moved on meanwhile."""
        if key is None or self.key() != key:
            return
        tmp = self.path.with_name(f"{FILE}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps({"key": key, "background": float(background)}), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:  # a read-only index folder: measure each time, as before
            log.debug("calibration not recorded: %s", exc)
            tmp.unlink(missing_ok=True)


__all__ = ["FILE", "CalibrationMemo"]

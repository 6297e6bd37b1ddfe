"""Keeping the index live while a server runs.

- ``watcher.py``: file-system events (watchdog, polling fallback), debounced into batches.
- ``writer.py``: the writer election (one writing process per index) and the loop that
  reconciles the roots at start-up and applies the watcher's batches.
- ``runtime.py``: what a server holds: the service built in the background, the model
  loading, the writer loop, and the state ``index_status`` reports.
"""

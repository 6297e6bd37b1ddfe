"""A minimal Acme Ingest client: send a batch of events with retries.

Usage:
    ACME_INGEST_TOKEN=ait_test_... python client.py
"""

from __future__ import annotations

import json
import os
import random
import time
import urllib.error
import urllib.request

API_URL = os.environ.get("ACME_INGEST_URL", "https://ingest.acme.test/v1")
MAX_BATCH = 500


def send_events(events: list[dict], token: str, attempts: int = 5) -> dict:
    """POST up to 500 events; retry 429 and 5xx with exponential backoff."""
    if len(events) > MAX_BATCH:
        raise ValueError(f"at most {MAX_BATCH} events per request, got {len(events)}")
    body = json.dumps(events).encode()
    request = urllib.request.Request(
        f"{API_URL}/events",
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    for attempt in range(attempts):
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return json.load(response)
        except urllib.error.HTTPError as exc:
            if exc.code != 429 and exc.code < 500:
                raise  # 401 token_revoked, 413 batch_too_large...: retrying will not help
            retry_after = float(exc.headers.get("Retry-After", 0) or 0)
            delay = max(retry_after, 2**attempt + random.random())
            time.sleep(delay)
    raise RuntimeError(f"gave up after {attempts} attempts")


def main() -> None:
    token = os.environ["ACME_INGEST_TOKEN"]
    events = [
        {"type": "signup", "user_id": 42, "idempotency_key": "signup-42"},
        {"type": "login", "user_id": 42},
    ]
    print(send_events(events, token))


if __name__ == "__main__":
    main()

"""Who may connect: bind policy, bearer token, Host/Origin allow-lists (``docshelf.access``).

The guard is exercised as real ASGI through httpx's ASGI transport, in front of a tiny app.
"""

from __future__ import annotations

import anyio
import httpx
import pytest

from docshelf.access import AccessGuard, access_policy, is_loopback
from docshelf.errors import ConfigError

TOKEN = "s3cret-token"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.9", "localhost", "LOCALHOST", "::1", "[::1]"])
def test_loopback_addresses_need_no_token(host):
    assert is_loopback(host)
    assert access_policy(host).describe() == "no token: only this machine can connect"


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "docs.lan", "localhost.evil.example"])
def test_a_non_loopback_address_without_token_is_refused(host):
    assert not is_loopback(host)
    with pytest.raises(ConfigError) as caught:
        access_policy(host)
    assert str(caught.value) == (
        f"refusing to serve on {host} without a token: anyone who can reach it could read the index. "
        "Set --token (or DOCSHELF_TOKEN), bind to 127.0.0.1, or pass --insecure to serve without one."
    )


def test_insecure_or_a_token_allows_a_non_loopback_address():
    assert access_policy("0.0.0.0", insecure=True).describe().startswith("NO TOKEN (--insecure)")
    assert access_policy("0.0.0.0", TOKEN).describe() == "bearer token required"
    assert access_policy("127.0.0.1", "").token is None  # an empty DOCSHELF_TOKEN is no token
    with pytest.raises(ConfigError, match="without a token"):
        access_policy("0.0.0.0", "")


@pytest.mark.parametrize("token", ["pässword", "two words", "tab\there", "new\nline"])
def test_a_token_that_cannot_travel_in_a_header_is_refused(token):
    with pytest.raises(ConfigError, match="printable ASCII without spaces"):
        access_policy("127.0.0.1", token)


def test_bearer_check():
    policy = access_policy("127.0.0.1", TOKEN)
    accepted = [f"Bearer {TOKEN}", f"bearer {TOKEN}", f"  BEARER   {TOKEN} ", f"Bearer {TOKEN}".encode()]
    refused = [None, "", TOKEN, f"Basic {TOKEN}", f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", "Bearer ",
               "Bearer sëcret", "Bearer \U0001f600", "Bearer \ud800", b"Bearer \xff\xfe", f"Bearer{TOKEN}"]
    assert [policy.authorized(v) for v in accepted] == [True] * len(accepted)
    assert [policy.authorized(v) for v in refused] == [False] * len(refused)
    assert access_policy("127.0.0.1").authorized(None)  # no token configured: nothing to check


def test_host_and_origin_allow_lists():
    policy = access_policy("0.0.0.0", TOKEN, extra_hosts=["docs.lan:8001"], extra_origins=["https://app.example/"])
    hosts = {h: policy.host_allowed(h) for h in [
        "127.0.0.1:8001", "localhost:3000", "[::1]:8001", "LOCALHOST:80", "0.0.0.0:8001", "docs.lan:8001",
        "docs.lan:8002", "evil.example:8001", "localhost.evil.example:80", "localhost:", "localhost:x", "", None]}
    assert hosts == {
        "127.0.0.1:8001": True, "localhost:3000": True, "[::1]:8001": True, "LOCALHOST:80": True,
        "0.0.0.0:8001": True, "docs.lan:8001": True, "docs.lan:8002": False, "evil.example:8001": False,
        "localhost.evil.example:80": False, "localhost:": False, "localhost:x": False, "": False, None: False}
    origins = {o: policy.origin_allowed(o) for o in [
        None, "", "http://localhost:3000", "http://127.0.0.1:8001", "https://app.example", "http://evil.example",
        "http://localhost.evil.example", "https://localhost:3000"]}
    assert origins == {
        None: True, "": True, "http://localhost:3000": True, "http://127.0.0.1:8001": True,
        "https://app.example": True, "http://evil.example": False, "http://localhost.evil.example": False,
        "https://localhost:3000": False}


def test_ipv6_bind_address_is_allowed_as_a_bracketed_host():
    policy = access_policy("fd00::5", TOKEN)
    assert policy.host_allowed("[fd00::5]:8001") and not policy.host_allowed("fd00::5:8001")


async def _app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"hello"})


def _statuses(policy, requests: list[dict[str, str]]) -> list[tuple[int, str]]:
    async def main() -> list[tuple[int, str]]:
        transport = httpx.ASGITransport(app=AccessGuard(_app, policy))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8001") as client:
            results = []
            for headers in requests:
                response = await client.get("/mcp", headers=headers)
                results.append((response.status_code, response.text))
            return results

    return anyio.run(main)


def test_guard_answers_401_421_403_in_that_order():
    auth = {"Authorization": f"Bearer {TOKEN}"}
    got = _statuses(access_policy("127.0.0.1", TOKEN), [
        {},
        {"Authorization": "Bearer wrong", "Host": "evil.example"},
        {**auth, "Host": "evil.example:8001"},
        {**auth, "Origin": "http://evil.example"},
        {**auth, "Origin": "http://localhost:3000"},
        auth,
    ])
    assert [code for code, _ in got] == [401, 401, 421, 403, 200, 200]
    assert got[0][1] == '{"error": {"type": "Unauthorized", "message": "missing or wrong bearer token"}}'
    assert got[-1][1] == "hello"


def test_guard_without_token_still_checks_host_and_origin():
    got = _statuses(access_policy("127.0.0.1"), [{}, {"Host": "rebound.example"}, {"Origin": "http://evil.example"}])
    assert [code for code, _ in got] == [200, 421, 403]


def test_listen_socket_says_what_to_do_for_a_busy_port_a_bad_port_and_an_unknown_address():
    """A busy port was announced ('docshelf API at http://…') then logged by uvicorn as an error;
    port 99999 was an OverflowError traceback."""
    import socket

    from docshelf.access import listen_socket

    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    port = held.getsockname()[1]
    try:
        with pytest.raises(ConfigError, match=f"^port {port} on 127.0.0.1 is in use .*choose another with --port$"):
            listen_socket("127.0.0.1", port)
    finally:
        held.close()
    for bad in (0, 99999):
        with pytest.raises(ConfigError, match=f"^--port must be between 1 and 65535, got {bad}$"):
            listen_socket("127.0.0.1", bad)
    with pytest.raises(ConfigError, match="^cannot listen on 'nowhere.invalid': not an address of this machine"):
        listen_socket("nowhere.invalid", 8002)
    sock = listen_socket("127.0.0.1", port)  # free again: bound and listening, for uvicorn to take
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
    finally:
        sock.close()

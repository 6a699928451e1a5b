"""The Host allow-list of agentprop's local servers (defence against DNS rebinding), and
the refusal of cross-site writes.

A web page on another domain can make its own name resolve to 127.0.0.1 and then talk to
a local server from the victim's browser. The browser then sends that foreign name in the
``Host`` header (and as Origin), so a server that checks only that Origin matches Host is
fooled. The fix is to accept only the names the server was bound to: the loopback names
(``127.0.0.1``, ``localhost``, ``[::1]``) and the bind address itself, each with the
bound port. Anything else is answered with 421 Misdirected Request before any routing.

Every local server agentprop runs calls `host_allowed` once per request: the label app,
serve-sim, and (issue 13) the MCP tool server and the gateway.

A web page may also *send* a request to 127.0.0.1 without reading the answer: a form or
`fetch(..., {mode: "no-cors"})` POST with a "simple" content type (`text/plain`) needs no
CORS preflight. `cross_site_refusal` refuses every write (any method but GET, HEAD and
OPTIONS) whose ``Origin`` is not the server itself (``null`` included) or whose
``Sec-Fetch-Site`` is not ``same-origin`` or ``none``; `json_refusal` refuses a body that
is not declared JSON, which a browser cannot send cross-site without a preflight. Local
clients (SDKs, curl) send neither header and a JSON content type.
"""

from __future__ import annotations

from collections.abc import Mapping

MISDIRECTED = 421
"""The status for a request whose Host is not ours (RFC 9110 §15.5.20)."""

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def _bracketed(host: str) -> str:
    """An IPv6 literal as it appears in a Host header: inside brackets."""
    host = host.strip().lower()
    if ":" in host and not host.startswith("["):
        return f"[{host}]"
    return host


def allowed_hosts(bind_host: str, port: int) -> frozenset[str]:
    """Every Host header value accepted by a server bound to `bind_host`:`port`.

    With port 80 the bare names are accepted too (a browser omits the default port).
    A wildcard bind (``0.0.0.0``, ``::``) adds only its literal name: reaching the server
    by another name or address needs ``--host`` set to that name or address."""
    names = {*LOOPBACK_NAMES, _bracketed(bind_host)}
    out = {f"{n}:{port}" for n in names}
    if port == 80:
        out |= names
    return frozenset(out)


def host_allowed(host_header: str | None, bind_host: str, port: int) -> bool:
    """Whether a request's ``Host`` header names this server (bound to `bind_host`:`port`,
    the real port after binding port 0). A missing Host is refused: HTTP/1.1 requires it
    and every browser and SDK sends it."""
    if not host_header:
        return False
    return host_header.strip().lower() in allowed_hosts(bind_host, port)


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def cross_site_refusal(method: str, headers: Mapping[str, str]) -> str | None:
    """Why a write request must be refused as cross-site, or None. `headers` have
    lower-case names; the Host was already checked by `host_allowed`."""
    if method.upper() in SAFE_METHODS:
        return None
    origin = headers.get("origin")
    if origin is not None and origin.strip().lower() != (
            "http://" + (headers.get("host") or "").strip().lower()):
        return "cross-site request refused (Origin is another site)"
    site = headers.get("sec-fetch-site")
    if site is not None and site.strip().lower() not in ("same-origin", "none"):
        return "cross-site request refused (Sec-Fetch-Site)"
    return None


def json_refusal(headers: Mapping[str, str]) -> str | None:
    """Why a request body must be refused as not declared JSON, or None."""
    ctype = (headers.get("content-type") or "").split(";", 1)[0].strip().lower()
    if ctype != "application/json":
        return "the request body must be JSON (Content-Type: application/json)"
    return None

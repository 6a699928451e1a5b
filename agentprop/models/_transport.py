"""A dead server is not a slow one: telling refused and reset connections from timeouts.

The SDKs wrap transport failures in their own classes, and not faithfully: the openai
SDK's aiohttp transport turns a refused connection into `APITimeoutError` (through
httpx's `ConnectTimeout`), so a server that had died was reported as "request timed out
after 60 s" while every attempt failed in milliseconds. The cause chain keeps the truth;
`dead_server` reads it, for every provider.
"""

from __future__ import annotations

from agentprop.models._retry import RetryableError

_REFUSED_NAMES = ("connectionrefusederror",)
_RESET_NAMES = ("connectionreset", "serverdisconnected", "remoteprotocolerror",
                "brokenpipe", "connectionaborted", "incompleteread")


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def dead_server(exc: BaseException) -> str | None:
    """``refused`` or ``reset`` when the failure's cause chain shows the server refused
    or dropped the connection (not running, or died mid-request); None otherwise."""
    names = [" ".join(c.__name__.lower() for c in type(e).__mro__) for e in _chain(exc)]
    texts = [str(e).lower() for e in _chain(exc)]
    if any(n in name for name in names for n in _REFUSED_NAMES) or any(
            "connection refused" in t or "connect call failed" in t for t in texts):
        return "refused"
    if any(n in name for name in names for n in _RESET_NAMES) or any(
            "server disconnected" in t or "connection reset" in t for t in texts):
        return "reset"
    return None


def dead_server_error(how: str, where: str) -> RetryableError:
    """The error of a refused or reset connection (kind ``connection``): retried, since
    a restarting server comes back, and never worded as a timeout."""
    if how == "refused":
        return RetryableError("connection", f"connection refused by {where}: the server is"
                              " not running (did it die?)")
    return RetryableError("connection", f"connection reset by {where}: the server dropped"
                          " the request (did it die?)")

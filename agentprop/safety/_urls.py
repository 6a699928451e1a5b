"""Credentials in URLs (``http://user:password@host/``) never reach a message or a log.

The userinfo is found by the URL's own structure, not by a pattern of the characters a
password may hold: after ``scheme://`` the authority runs to the first ``/``, and the
userinfo is everything in it before its last ``@``. So a password holding ``'``, ``"``,
``#``, ``?``, ``@`` or a space, which a pattern of "password characters" stops at, is
hidden whole. A ``/`` inside a password (not percent-encoded) ends the authority early;
when what precedes it reads ``user:…`` (not ``host:port``), the userinfo runs to the last
``@`` of the URL. `redact_url` handles one URL, even one too malformed to parse (a bad
port, an unclosed IPv6 bracket); `redact_urls` every URL inside a free text, such as an
SDK's error message. The userinfo is replaced by ``***`` so the reader still sees that
there was one. `url_credentials` gives a URL's secret parts, for replacing them wherever
else they appear (percent-encoded or not).
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

REDACTED_USERINFO = "***"
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
_LINE_END = re.compile(r"[\r\n]")
_TOKEN_END = re.compile(r"[\s'\"<>]")


def _userinfo_end(rest: str, *, free_text: bool) -> int:
    """The index of the ``@`` that ends the userinfo at the start of `rest` (the text after
    ``scheme://``), or -1 when there is none."""
    line = _LINE_END.search(rest)
    end = line.start() if line else len(rest)
    slash = rest.find("/", 0, end)
    authority_end = end if slash < 0 else slash
    at = rest.rfind("@", 0, authority_end)
    if at >= 0:
        return at
    head = rest[:authority_end]
    user, colon, tail = head.partition(":")
    if slash < 0 or not colon or not user or tail.isdigit() or head.startswith("["):
        return -1
    # "user:pa/ss@host": a "/" inside the password; in a free text the URL ends at a space
    # or a quote, which then cannot be part of such a password
    token = _TOKEN_END.search(rest, 0, end) if free_text else None
    return rest.rfind("@", 0, token.start() if token else end)


def _redact(text: str, *, free_text: bool) -> str:
    out: list[str] = []
    pos = 0
    for m in _SCHEME.finditer(text):
        if m.start() < pos:  # inside a userinfo already hidden
            continue
        at = _userinfo_end(text[m.end():], free_text=free_text)
        if at < 0:
            continue
        out.append(text[pos:m.end()] + REDACTED_USERINFO)
        pos = m.end() + at
    out.append(text[pos:])
    return "".join(out)


def redact_url(url: str) -> str:
    """`url` without its userinfo (``http://***@host:port/path``); unchanged without one."""
    return _redact(url, free_text=False)


def redact_urls(text: str) -> str:
    """`text` with the userinfo of every URL in it redacted."""
    return _redact(text, free_text=True)


def url_credentials(url: str | None) -> list[str]:
    """The secret parts of `url`'s userinfo as they may appear elsewhere (as typed,
    percent-decoded, percent-encoded), longest first; the user name alone is not secret,
    and parts under 6 characters are left out (replacing them would garble messages)."""
    if not url:
        return []
    m = _SCHEME.search(url)
    if m is None:
        return []
    rest = url[m.end():]
    at = _userinfo_end(rest, free_text=False)
    if at < 0:
        return []
    userinfo = rest[:at]
    _, colon, password = userinfo.partition(":")
    parts = {userinfo, unquote(userinfo)}
    if colon:
        parts |= {password, unquote(password), quote(unquote(password), safe="")}
    else:  # a bare token as the user name is the secret
        parts |= {quote(unquote(userinfo), safe="")}
    return sorted((p for p in parts if len(p) >= 6), key=len, reverse=True)

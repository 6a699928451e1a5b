"""Credentials in URLs (``http://user:password@host/``) never reach a message or a log.

`redact_url` handles one URL, even one too malformed to parse (a bad port, an unclosed
IPv6 bracket); `redact_urls` every URL inside a free text, such as an SDK's error
message. The userinfo is replaced by ``***`` so the reader still sees that there was one.
"""

from __future__ import annotations

import re

REDACTED_USERINFO = "***"
# scheme://userinfo@ — up to the last "@" before the query, fragment, a space or a quote:
# a password with an unencoded "/" (which a URL parser would read as a path) is still
# caught, at the price of also hiding the host of a URL whose path holds an "@"
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)[^?#\s'\"<>]*@")


def redact_url(url: str) -> str:
    """`url` without its userinfo (``http://***@host:port/path``); unchanged without one."""
    return _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED_USERINFO}@", url)


def redact_urls(text: str) -> str:
    """`text` with the userinfo of every URL in it redacted."""
    return redact_url(text)

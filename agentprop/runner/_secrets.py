"""Keeping secrets out of the workspace: manifests and error messages are redacted."""

from __future__ import annotations

import os
import re
from typing import Any

from agentprop.safety import redact_url, url_credentials

_SECRET_NAME = re.compile(
    r"api[_-]?key|secret|passw|credential|authorization|(^|[_-])(auth|token|bearer)$", re.I
)
REDACTED = "<redacted>"


def secret_values(*urls: str | None) -> list[str]:
    """Values of environment variables whose names look secret (API keys, tokens), and
    the credentials of every URL in the environment or in `urls` (e.g. ``--base-url``),
    longest first."""
    values = {v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v) >= 8}
    for url in (*urls, *(v for v in os.environ.values() if "://" in v)):
        values.update(url_credentials(url))
    return sorted(values, key=len, reverse=True)


def redact_text(text: str, secrets: list[str] | None = None) -> str:
    """`text` with every secret environment value and URL credential replaced."""
    text = redact_url(text)
    for s in secret_values() if secrets is None else secrets:
        if s in text:
            text = text.replace(s, REDACTED)
    return text


def _secret_option(name: str) -> bool:
    """Whether an option or KEY names a secret: ``--api-key``, ``api_key``, ``-otoken``."""
    bare = name.lstrip("-")
    if name.startswith("-o") and not name.startswith("--"):
        bare = bare[1:]  # `-oKEY=VALUE`, the short option glued to its value
    return bool(_SECRET_NAME.search(bare)) or bool(_SECRET_NAME.search(name.lstrip("-")))


def _redact_arg(arg: str, secrets: list[str] | None) -> str:
    name, sep, value = arg.partition("=")
    if sep and _secret_option(name):
        return f"{name}={REDACTED}"
    if sep and "=" in value:  # `--model-option=api_key=V`
        return f"{name}={_redact_arg(value, secrets)}"
    return redact_text(arg, secrets)


def redact_argv(args: list[str], secrets: list[str] | None = None) -> list[str]:
    """A command line without secrets: the value of a secret-named option (``--api-key
    V``, ``--api-key=V``) or ``KEY=VALUE`` argument (``-o api_key=V``, ``-oapi_key=V``,
    ``--model-option=token=V``), URL credentials and secret environment values become
    `REDACTED`."""
    out: list[str] = []
    hide_next = False
    for arg in args:
        if hide_next:
            out.append(REDACTED)
            hide_next = False
        elif arg.startswith("-") and "=" not in arg and _secret_option(arg):
            out.append(arg)  # `--api-key VALUE`: the value comes next
            hide_next = True
        else:
            out.append(_redact_arg(arg, secrets))
    return out


def redact(obj: Any, secrets: list[str] | None = None) -> Any:
    """A JSON-able copy of `obj` without secrets: secret-named keys, credentials in URLs
    and any secret environment value are removed; non-JSON values become their type name."""
    secrets = secret_values() if secrets is None else secrets
    if isinstance(obj, dict):
        return {
            str(k): REDACTED if _SECRET_NAME.search(str(k)) else redact(v, secrets)
            for k, v in obj.items()
        }
    if isinstance(obj, list | tuple | set | frozenset):
        return [redact(v, secrets) for v in obj]
    if isinstance(obj, str):
        return redact_text(redact_url(obj), secrets)
    if obj is None or isinstance(obj, bool | int | float):
        return obj
    return f"<{type(obj).__name__}>"

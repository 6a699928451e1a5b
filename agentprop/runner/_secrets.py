"""Keeping secrets out of the workspace: manifests and error messages are redacted."""

from __future__ import annotations

import os
import re
from typing import Any

from agentprop.safety import redact_url

_SECRET_NAME = re.compile(
    r"api[_-]?key|secret|passw|credential|authorization|(^|[_-])(auth|token|bearer)$", re.I
)
REDACTED = "<redacted>"


def secret_values() -> list[str]:
    """Values of environment variables whose names look secret (API keys, tokens)."""
    return sorted(
        (v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v) >= 8),
        key=len,
        reverse=True,
    )


def redact_text(text: str, secrets: list[str] | None = None) -> str:
    """`text` with every secret environment value and URL credential replaced."""
    text = redact_url(text)
    for s in secret_values() if secrets is None else secrets:
        if s in text:
            text = text.replace(s, REDACTED)
    return text


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

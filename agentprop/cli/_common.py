"""Shared CLI plumbing: one clear line and a non-zero exit for every user error."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console

F = TypeVar("F", bound=Callable[..., Any])

console = Console()
err_console = Console(stderr=True)


class UserError(Exception):
    """An error caused by the user's input; printed as one line, exit code 2."""


def fail(message: str, code: int = 2) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=str) + "\n")


def user_errors(fn: F) -> F:
    """Turn the library's expected exceptions into one line and a non-zero exit."""
    from agentprop.core import UnknownNameError
    from agentprop.models import ModelError
    from agentprop.store import WorkspaceError

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except KeyboardInterrupt:
            err_console.print("interrupted")
            raise typer.Exit(130) from None
        except (UserError, WorkspaceError, UnknownNameError) as e:
            fail(str(e))
        except ModelError as e:
            fail(f"model error ({e.kind}): {e.message}")
        except FileNotFoundError as e:
            fail(f"file not found: {e.filename or e}")
        except PermissionError as e:
            fail(f"permission denied: {e.filename or e}")
        except IsADirectoryError as e:
            fail(f"{e.filename or e} is a folder, expected a file")
        except OSError as e:  # any other file or socket problem is the user's environment
            where = f" ({e.filename})" if e.filename else ""
            fail(f"{e.strerror or e}{where}")

    return wrapper  # type: ignore[return-value]


def open_workspace(path: Path, *, create: bool = False) -> Any:
    from agentprop.store import Workspace

    return Workspace(path, create=create)


def probe_base_url(base_url: str, timeout_s: float = 5.0) -> None:
    """Fail fast on a base URL nothing listens on, instead of after minutes of retries.
    Skipped behind a proxy (the direct connection would not be the one httpx makes)."""
    import os
    import socket
    from urllib.parse import urlsplit

    if any(k.lower().endswith("_proxy") and v for k, v in os.environ.items()):
        return
    try:
        parts = urlsplit(base_url)
        host, port = parts.hostname, parts.port
    except ValueError:
        raise UserError(f"invalid base URL {base_url!r}") from None
    if parts.scheme not in ("http", "https") or not host:
        raise UserError(f"invalid base URL {base_url!r}: expected http(s)://host[:port]/...")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as e:
        from agentprop.runner import redact

        reason = e.strerror or type(e).__name__
        raise UserError(f"cannot connect to {redact(base_url)}: {reason}") from None


def probe_models(models: Iterable[Any]) -> None:
    """Probe every distinct server the models will call (their `base_url`, when set)."""
    urls = {u for m in models if isinstance(u := getattr(m, "base_url", None), str) and u}
    for url in sorted(urls):
        probe_base_url(url)

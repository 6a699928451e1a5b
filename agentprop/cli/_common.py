"""Shared CLI plumbing: one clear line and a non-zero exit for every user error."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
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

    return wrapper  # type: ignore[return-value]


def open_workspace(path: Path, *, create: bool = False) -> Any:
    from agentprop.store import Workspace

    return Workspace(path, create=create)

"""Shared CLI plumbing: one clear line and a non-zero exit for every user error."""

from __future__ import annotations

import contextlib
import errno
import json
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.segment import Segment
from typer._click import Context  # typer's own click, whose contexts its commands make
from typer._click.formatting import HelpFormatter
from typer.core import TyperCommand, TyperGroup

from agentprop.errors import AgentpropError

if TYPE_CHECKING:
    from agentprop.store import Workspace

F = TypeVar("F", bound=Callable[..., Any])


class SafeConsole(Console):
    """A rich Console that never sends a control character from printed content to the
    terminal: every text segment goes through `agentprop.safety.term_safe` (ESC shows as
    ``\x1b``), while rich's own styles and control segments (progress bars) pass as they
    are. Stored model text, tool observations and annotator names can hold anything."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        from agentprop.safety import term_safe

        return super()._render_buffer(
            seg if seg.control else Segment(term_safe(seg.text), seg.style, seg.control)
            for seg in buffer
        )


console = SafeConsole()
err_console = SafeConsole(stderr=True)


class UserError(AgentpropError):
    """An error caused by the user's input; printed as one line, exit code 2."""


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one error line and exit. The line never shows URL credentials (nor, being
    printed by a SafeConsole, raw control characters), whatever the message quotes."""
    from rich.markup import escape

    from agentprop.safety import redact_urls

    text = escape(redact_urls(message))
    err_console.print(f"[bold red]error:[/] {text}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def safe_diagnostics() -> None:
    """Warnings and log lines of any library reach stderr through `term_safe`: they may
    quote stored text (matplotlib's missing-glyph warning quotes a name's characters, the
    MCP SDK logs an agent's tool names), and raw ESC there would drive the terminal."""
    import logging
    import warnings

    from agentprop.safety import term_safe

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        text = warnings.formatwarning(message, category, filename, lineno, line)
        with contextlib.suppress(OSError, ValueError):
            (file or sys.stderr).write(term_safe(text))

    warnings.showwarning = show
    make = logging.getLogRecordFactory()
    if getattr(make, "term_safe", False):
        return

    def record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        rec = make(*args, **kwargs)
        # a record that cannot format is left for logging to report
        with contextlib.suppress(Exception):
            rec.msg, rec.args = term_safe(rec.getMessage()), ()
        return rec

    record.term_safe = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(record)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=str) + "\n")


def port_in_use(e: OSError) -> bool:
    """Whether `e` says the address is taken (servers word it their own way)."""
    return e.errno == errno.EADDRINUSE or "address already in use" in str(e).lower()


def listen_error(host: str, port: int, e: OSError, option: str = "--port") -> UserError:
    """The one line for a server that cannot bind: a port in use names the option that
    picks another."""
    if port_in_use(e):
        return UserError(f"cannot listen on {host}:{port}: the port is in use; choose "
                         f"another with {option} (0: any free port)")
    return UserError(f"cannot listen on {host}:{port}: {e.strerror or e}")


@contextlib.contextmanager
def error_boundary(workspace: str | Path | None = None,
                   port_option: str | None = None) -> Iterator[None]:
    """The CLI's one translation of expected failures into one line and a non-zero exit:
    every `AgentpropError` (its `user_message()` and `exit_code`), SQLite and file-system
    errors, and Ctrl-C. Anything else is a bug and keeps its traceback, unless the
    `workspace` being read turned out damaged. A port in use names `port_option`."""
    try:
        yield
    except typer.Exit:
        raise
    except KeyboardInterrupt:
        err_console.print("interrupted")
        raise typer.Exit(130) from None
    except AgentpropError as e:
        fail(e.user_message(), e.exit_code)
    except sqlite3.DatabaseError as e:  # damaged, read-only or locked database
        fail(database_error(workspace, e))
    except FileNotFoundError as e:
        fail(f"file not found: {e.filename or e}")
    except PermissionError as e:
        fail(f"permission denied: {e.filename or e}")
    except IsADirectoryError as e:
        fail(f"{e.filename or e} is a folder, expected a file")
    except OSError as e:  # any other file or socket problem is the user's environment
        if port_in_use(e) and port_option:
            fail(f"{e.strerror or e}: choose another port with {port_option} (0: any free "
                 "port)")
        where = f" ({e.filename})" if e.filename else ""
        fail(f"{e.strerror or e}{where}")
    except Exception:  # a bug, unless the workspace got damaged while we read it
        damage = _damage(workspace)
        if damage:
            fail(damage)
        raise


_NB_HYPHEN = "\u2011"  # a hyphen text wrapping does not break at


class _HelpFormatter(HelpFormatter):
    """click's help layout, never breaking a line inside a hyphenated name such as
    `--episodes-port` or `sim-judge/strict` (textwrap breaks at hyphens)."""

    def _whole(self, write: Callable[[], None]) -> None:
        start = len(self.buffer)
        write()
        self.buffer[start:] = [s.replace(_NB_HYPHEN, "-") for s in self.buffer[start:]]

    def write_dl(self, rows: Any, col_max: int = 30, col_spacing: int = 2) -> None:
        kept = [(a, b.replace("-", _NB_HYPHEN)) for a, b in rows]
        self._whole(lambda: super(_HelpFormatter, self).write_dl(kept, col_max, col_spacing))

    def write_text(self, text: str) -> None:
        kept = text.replace("-", _NB_HYPHEN)
        self._whole(lambda: super(_HelpFormatter, self).write_text(kept))


class _HelpContext(Context):
    formatter_class = _HelpFormatter


class AppGroup(TyperGroup):
    """Every agentprop command group: its help in `_HelpFormatter`'s layout."""

    context_class = _HelpContext


class AppCommand(TyperCommand):
    """Every agentprop command: runs its callback inside `error_boundary`, with the
    command's own `--workspace` for the damage check."""

    context_class = _HelpContext

    def invoke(self, ctx: Any) -> Any:
        ports = [max(p.opts, key=len) for p in self.params
                 if p.name in ("port", "episodes_port") and getattr(p, "opts", None)]
        with error_boundary(ctx.params.get("workspace"), ports[0] if ports else None):
            return super().invoke(ctx)


def install_error_boundary(app: typer.Typer) -> None:
    """Make every command of `app` and its sub-apps an `AppCommand` (the one place where
    errors become user messages; see `agentprop/cli/__init__.py`)."""
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):  # typer's default; keep a command's own class
            info.cls = AppCommand
    for group in app.registered_groups:
        if group.typer_instance is not None:
            install_error_boundary(group.typer_instance)


def plain_help(app: typer.Typer) -> None:
    """Help that fits 80 columns without cutting a name: click's plain layout (it wraps
    option names, env-var names and text, where rich's panels cut them with "…"), never
    breaking a line inside a hyphenated name such as `--episodes-port`, and every
    command's one-line summary given in full (click would cut it at 45 characters) with
    the docstring's line breaks reflowed."""
    import inspect

    from typer.models import DefaultPlaceholder

    def given(value: Any) -> Any:
        return None if isinstance(value, DefaultPlaceholder) else value

    app.rich_markup_mode = None
    app.info.cls = AppGroup
    infos: list[Any] = [*app.registered_commands, *app.registered_groups]
    for info in infos:
        sub = getattr(info, "typer_instance", None)
        text = given(info.help) or (inspect.getdoc(info.callback) if info.callback else None)
        if text is None and sub is not None:
            text = given(sub.info.help)
        if given(info.short_help) is None and isinstance(text, str):
            info.short_help = " ".join(inspect.cleandoc(text).split("\n\n")[0].split())
        if sub is not None:
            plain_help(sub)


def user_errors(fn: F) -> F:
    """Deprecated no-op: `AppCommand` translates errors for every command. Kept while
    modules being rewritten elsewhere still decorate their commands with it."""
    return fn


def _damage(workspace: str | Path | None) -> str | None:
    from agentprop.store import damage_report

    return damage_report(Path(workspace)) if isinstance(workspace, str | Path) else None


def database_error(workspace: str | Path | None, e: sqlite3.DatabaseError) -> str:
    """One line for an SQLite error met while a command ran (the library raises
    WorkspaceError itself where it can; this is the command boundary's net)."""
    from agentprop.store import describe_database_error

    if not isinstance(workspace, str | Path):
        return f"database error: {e}"
    return describe_database_error(Path(workspace), e)


def open_workspace(path: Path, *, create: bool = False, write: bool = False) -> Workspace:
    """The workspace at `path`, integrity-checked (a damaged database is refused before
    anything is read or written); a read-only one opens for reading, and is refused up
    front when the command will `write`."""
    from agentprop.store import Workspace

    ws = Workspace(path, create=create)
    return ws.require_writable() if write or create else ws


def probe_base_url(base_url: str, timeout_s: float = 5.0) -> None:
    """Fail fast on an invalid base URL, or one nothing listens on, instead of after
    minutes of retries. The connection test is skipped behind a proxy (the direct
    connection would not be the one httpx makes). Messages never show credentials."""
    import os
    import socket

    from agentprop.models import ModelError, check_base_url
    from agentprop.safety import redact_url

    try:
        _, host, port = check_base_url(base_url)
    except ModelError as e:
        raise UserError(e.message) from None
    if any(k.lower().endswith("_proxy") and v for k, v in os.environ.items()):
        return
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as e:
        reason = e.strerror or type(e).__name__
        raise UserError(f"cannot connect to {redact_url(base_url)}: {reason}") from None


def probe_models(models: Iterable[Any]) -> None:
    """Probe every distinct server the models will call (their `base_url`, when set)."""
    urls = {u for m in models if isinstance(u := getattr(m, "base_url", None), str) and u}
    for url in sorted(urls):
        probe_base_url(url)


def preflight_mode(value: str) -> Any:
    """`--preflight`'s value (strict, warn, off), or one clear line."""
    from agentprop.runner import PROBE_MODES

    if value not in PROBE_MODES:
        import difflib

        near = difflib.get_close_matches(value, PROBE_MODES, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise UserError(f"invalid --preflight {value!r}{hint}: use strict, warn or off")
    return value


def say_probe(probe: Any) -> None:
    """Print one model's preflight line (stderr, before the first unit)."""
    from rich.text import Text

    from agentprop.runner import probe_line

    style = "green" if probe.verdict == "native" else "bold red"
    err_console.print(Text(probe_line(probe), style=style))  # wraps at the terminal width


NOTICED_HELP = ("How `noticed` reads the agent's texts: rules (the text rules) or "
                "llm:<provider/model> (the readings `agentprop judge --noticed` stored).")


def noticed_option() -> Any:
    """The `--noticed rules|llm:MODEL` option of stages, analyze and report."""
    return typer.Option("rules", "--noticed", envvar="AGENTPROP_NOTICED", help=NOTICED_HELP)

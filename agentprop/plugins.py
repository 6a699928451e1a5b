"""Plugins: other installed packages add domains, judges, model providers and injection
error types (conditions) without forking agentprop.

A plugin package declares an entry point in the ``agentprop.plugins`` group::

    # the plugin's pyproject.toml
    [project.entry-points."agentprop.plugins"]
    myplugin = "myplugin:register"

The entry point names a module or a callable. Loading it imports the module; a callable is
then called with no arguments. Either way, the plugin registers its parts in the ordinary
registries, exactly as the built-in ones do (docs/architecture.md, "Plugins"):

- a domain: ``agentprop.domains.DOMAINS.register("name")`` on a `Domain` subclass (and a
  task generator in ``agentprop.suite.GENERATORS`` for suite tasks);
- a judge: ``agentprop.judges.JUDGES.register("name")`` on a factory ``(arg, **options)``;
- a provider: ``agentprop.models.register_provider("prefix")`` on ``(name, **options)``;
- a condition: ``agentprop.inject.PROTOCOLS.register("error_type")`` on an
  `ErrorProtocol` subclass, which makes ``p2:<error_type>`` a valid condition.

Plugins are loaded once per process, lazily, the first time a registry is searched (a name
lookup, a listing), so importing agentprop stays fast. A plugin that fails to load, whatever
it raises (an exception, `SystemExit`, its own `KeyboardInterrupt`), is left out and its
error kept: it fails only the commands that ask for a name no loaded code provides, with
one line naming the plugin (`explain_unknown`); a run that never uses it goes on.
"""

from __future__ import annotations

import contextlib
import functools
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

from agentprop.errors import AgentpropError

GROUP = "agentprop.plugins"


class PluginError(AgentpropError):
    """An installed plugin failed to load or to register."""


def plugin_entry_points() -> list[EntryPoint]:
    """The installed entry points of the ``agentprop.plugins`` group, sorted by name (the
    load order is deterministic)."""
    return sorted(entry_points(group=GROUP), key=lambda ep: (ep.name, ep.value))


@dataclass(frozen=True)
class PluginState:
    """What loading the plugins gave: the names loaded and, per failed plugin, its error
    line."""

    loaded: tuple[str, ...]
    failures: tuple[str, ...]


@functools.cache
def _load() -> PluginState:
    loaded: list[str] = []
    failures: list[str] = []
    for ep in plugin_entry_points():
        with _sigint_watch() as interrupted:
            try:
                target = ep.load()
                if callable(target):
                    target()
            except BaseException as e:  # a plugin's bug, even sys.exit: its failure only
                if interrupted():  # the user's Ctrl-C, not the plugin's own
                    raise
                failures.append(f"plugin {ep.name!r} ({ep.value}) failed to load: "
                                f"{type(e).__name__}: {e}".rstrip(": "))
                continue
        loaded.append(ep.name)
    return PluginState(tuple(loaded), tuple(failures))


@contextlib.contextmanager
def _sigint_watch() -> Iterator[Callable[[], bool]]:
    """Tell a real Ctrl-C (SIGINT) from a plugin that raises KeyboardInterrupt itself."""
    seen: list[bool] = []

    def on_sigint(signum: int, frame: Any) -> None:
        seen.append(True)
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread: no signal arrives here anyway
        yield lambda: False
        return
    try:
        yield lambda: bool(seen)
    finally:
        signal.signal(signal.SIGINT, previous)


def load_plugins() -> tuple[str, ...]:
    """Load every plugin once (cached per process); returns the names loaded. A plugin
    that fails is left out, its error kept for `explain_unknown` (never raised here)."""
    return _load().loaded


def plugin_failures() -> tuple[str, ...]:
    """The error line of every plugin that failed to load (after `load_plugins`)."""
    return _load().failures


E = TypeVar("E", bound=Exception)


def explain_unknown(error: E) -> E:
    """An unknown-name error, with why the plugins that failed to load failed (one of
    them may be the one that provides the name); `error` itself when none failed. Same
    type, so callers handle it as before."""
    failures = plugin_failures()
    if not failures:
        return error
    return type(error)("; ".join([*failures, str(error)]))


__all__ = ["GROUP", "PluginError", "explain_unknown", "load_plugins", "plugin_entry_points",
           "plugin_failures"]

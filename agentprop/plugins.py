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
lookup, a listing), so importing agentprop stays fast and a broken plugin only matters
when it is used. It then fails with one `PluginError` line naming the plugin.
"""

from __future__ import annotations

import functools
from importlib.metadata import EntryPoint, entry_points

from agentprop.errors import AgentpropError

GROUP = "agentprop.plugins"


class PluginError(AgentpropError):
    """An installed plugin failed to load or to register."""


def plugin_entry_points() -> list[EntryPoint]:
    """The installed entry points of the ``agentprop.plugins`` group, sorted by name (the
    load order is deterministic)."""
    return sorted(entry_points(group=GROUP), key=lambda ep: (ep.name, ep.value))


@functools.cache
def load_plugins() -> tuple[str, ...]:
    """Load every plugin once (cached per process); returns the loaded names. Raises
    `PluginError` for a plugin that cannot be imported or whose registration fails."""
    loaded = []
    for ep in plugin_entry_points():
        try:
            target = ep.load()
            if callable(target):
                target()
        except Exception as e:  # a plugin's bug is reported as its own, in one line
            raise PluginError(
                f"plugin {ep.name!r} ({ep.value}) failed to load: {type(e).__name__}: {e}"
            ) from e
        loaded.append(ep.name)
    return tuple(loaded)


__all__ = ["GROUP", "PluginError", "load_plugins", "plugin_entry_points"]

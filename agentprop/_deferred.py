"""A third-party import that costs seconds and is almost never used, made on first use.

`jsonschema` imports `rfc3987_syntax` at its own import (for the `iri` and `iri-reference`
formats), and that module compiles a lark grammar right then: 1–7 s on this machine class
in every process that validates a tool call or imports the MCP SDK (most CLI commands,
every serve-tools process, every subprocess test). No schema of the suite names those
formats. Until one is checked, a stand-in module takes the name: its `is_valid_syntax`
(the one name jsonschema takes from it) imports the real module at its first call, so a
format check gives exactly the answer it gave before, only later.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

RFC3987_SYNTAX = "rfc3987_syntax"


class _Deferred(types.ModuleType):
    """Stands for a module until one of its names is used."""

    def __getattr__(self, attr: str) -> Any:  # only for names the stand-in lacks
        if attr.startswith("__"):  # the import system's probes (`__path__`...) load nothing
            raise AttributeError(attr)
        return getattr(_load(self.__name__), attr)


def _load(name: str) -> types.ModuleType:
    """The real module (imported now, the first time)."""
    if isinstance(sys.modules.get(name), _Deferred):
        sys.modules.pop(name, None)
    return importlib.import_module(name)


def _is_valid_syntax(rule: str, value: str) -> bool:
    return bool(_load(RFC3987_SYNTAX).is_valid_syntax(rule, value))


def defer_rfc3987_syntax() -> None:
    """Put the stand-in in place, unless jsonschema or the module is imported already (then
    there is nothing to gain) or the module is not installed (jsonschema then skips those
    formats, as before)."""
    if RFC3987_SYNTAX in sys.modules or "jsonschema" in sys.modules:
        return
    if importlib.util.find_spec(RFC3987_SYNTAX) is None:
        return
    stand_in = _Deferred(RFC3987_SYNTAX, "stands for rfc3987_syntax until its first use")
    stand_in.is_valid_syntax = _is_valid_syntax  # type: ignore[attr-defined]
    sys.modules[RFC3987_SYNTAX] = stand_in

"""A small typed registry: every swappable component (provider, judge, injector) is named."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

from agentprop.errors import AgentpropError

T = TypeVar("T")


class UnknownNameError(AgentpropError, KeyError):
    """Raised for a name not in a registry; its message lists what is known."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown name"


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """"; did you mean 'x'?" naming the known names closest to `name` (difflib), or ""
    when none is close: a typo gets its fix, not only the list."""
    names = [k for k in dict.fromkeys(known) if k]
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    if not close:
        close = [k for k in names if k.lower() == name.lower()]
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(c) for c in close) + "?"


def unknown_message(kind: str, name: str, known: Iterable[str], *,
                    listing: str | None = None, why: str = "", label: str = "known") -> str:
    """The one "unknown <kind>" message of every lookup: the name (and `why` it is
    wrong), the closest known names, then what is known (`listing` when the valid names
    include patterns, e.g. the judge forms)."""
    names = list(known)
    lead = f"unknown {kind} {name!r}" + (f" ({why})" if why else "")
    shown = listing if listing is not None else (", ".join(names) or "none")
    return f"{lead}{did_you_mean(name, names)} ({label}: {shown})"


def unknown_name(kind: str, name: str, known: Iterable[str], **how: str) -> UnknownNameError:
    """`unknown_message` as the registries' error (`how`: its listing, why, label)."""
    return UnknownNameError(unknown_message(kind, name, known, **how))


class Registry(Generic[T]):
    """Name → factory. Instances are created per use; the registry holds no per-run state."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        def deco(obj: T) -> T:
            if name in self._items:
                raise ValueError(f"{self.kind} {name!r} registered twice")
            self._items[name] = obj
            return obj

        return deco

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            raise unknown_name(self.kind, name, sorted(self._items)) from None

    def names(self) -> list[str]:
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._items))

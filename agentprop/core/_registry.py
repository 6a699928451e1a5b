"""A small typed registry: every swappable component (provider, judge, injector) is named."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from agentprop.errors import AgentpropError

T = TypeVar("T")


class UnknownNameError(AgentpropError, KeyError):
    """Raised for a name not in a registry; its message lists what is known."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown name"


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
            known = ", ".join(sorted(self._items)) or "none"
            raise UnknownNameError(f"unknown {self.kind} {name!r} (known: {known})") from None

    def names(self) -> list[str]:
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._items))

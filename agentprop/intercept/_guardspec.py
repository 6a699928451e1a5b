"""`--guard SPEC` to something that can run in the treatment arm: a built-in mitigation's
name, or ``MODULE_OR_FILE:NAME`` naming a guard function, an `AgentHooks` (class or
instance), or a framework's own guardrail, which agentprop hands to an external agent."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from agentprop.agent import AgentHooks
from agentprop.core import LoadError, load_object
from agentprop.intercept._config import InterceptConfig
from agentprop.intercept._guard import Guard, GuardHooks
from agentprop.intercept._mitigations import MITIGATIONS, mitigation

GuardKind = Literal["builtin", "function", "hooks", "framework"]


@dataclass(frozen=True)
class GuardSpec:
    """A resolved `--guard`. `hooks()` builds fresh agent hooks for one treatment unit
    (none for a framework guard); `framework()` a fresh framework object for one external
    episode (`Episode.guards`), for guards that live inside the user's agent."""

    spec: str
    name: str
    kind: GuardKind
    replay_config: InterceptConfig | None = None
    """A guard that only abstains, as the interceptor configuration deciding the same (its
    exact replay estimate); None when its effect can only be measured in two arms."""
    _hooks: Callable[[], AgentHooks] | None = field(default=None, repr=False)
    _framework: Callable[[], Any] | None = field(default=None, repr=False)

    @property
    def in_agent(self) -> bool:
        """It runs inside the user's agent (so it needs `--agent`)."""
        return self.kind == "framework"

    def hooks(self) -> list[AgentHooks]:
        return [self._hooks()] if self._hooks is not None else []

    def framework(self) -> tuple[Any, ...]:
        return (self._framework(),) if self._framework is not None else ()


def _guard_hooks(guard: Guard, name: str) -> Callable[[], AgentHooks]:
    return lambda: GuardHooks(guard, name=name)


def resolve_guard(spec: str, config: InterceptConfig | None = None) -> GuardSpec:
    """The guard `spec` names (LoadError, one line, when it names nothing usable).
    `config`: the interceptor thresholds a built-in mitigation reads."""
    spec = spec.strip()
    if ":" not in spec:
        try:
            m = mitigation(spec)
        except KeyError as e:
            raise LoadError(str(e)) from None
        cfg = config or InterceptConfig()
        return GuardSpec(spec, m.name, "builtin",
                         replay_config=m.replays_as(cfg) if m.replays_as else None,
                         _hooks=_guard_hooks(m.build(cfg), m.name))
    obj, name = load_object(spec, "guard", "a built-in mitigation or MODULE_OR_FILE:NAME")
    if inspect.isclass(obj):
        if issubclass(obj, AgentHooks):
            return GuardSpec(spec, name, "hooks", _hooks=obj)
        try:
            obj()
        except Exception as e:
            raise LoadError(f"guard {spec!r}: {obj.__name__}() failed: "
                            f"{type(e).__name__}: {e}") from None
        return GuardSpec(spec, name, "framework", _framework=obj)
    if isinstance(obj, AgentHooks):
        return GuardSpec(spec, name, "hooks", _hooks=lambda: obj)
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        try:
            inspect.signature(obj).bind(object())
        except TypeError:
            raise LoadError(f"guard {spec!r} must take one argument (a GuardView)") from None
        return GuardSpec(spec, name, "function", _hooks=_guard_hooks(obj, name))
    return GuardSpec(spec, name, "framework", _framework=lambda: obj)


def builtin_names() -> list[str]:
    return [m.name for m in MITIGATIONS]

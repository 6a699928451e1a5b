"""Injection protocol P2: corrupt one parameter of the agent's first eligible tool call.

Conditions are `baseline` (no injection) and `p2:<error_type>` with the error types in
`ERROR_TYPES`; `p2:all` expands to all four. `hooks_for(condition, unit, task)` returns
the agent hook that applies a condition to one work unit. See docs/injection.md.
"""

from agentprop.inject._conditions import (
    ALL,
    BASELINE,
    UnknownConditionError,
    error_type_of,
    expand_conditions,
    hooks_for,
    is_injectable,
    valid_conditions,
)
from agentprop.inject._hooks import PROTOCOL_NAME, InjectionHooks
from agentprop.inject._protocols import (
    ERROR_TYPES,
    PROTOCOLS,
    Corruption,
    ErrorProtocol,
    InjectionError,
    get_protocol,
    unit_rng,
)

# Deprecated alias: the old name shadowed typing.Protocol. Never persisted (traces store
# the `error_type` string), kept only for code importing `agentprop.inject.Protocol`.
Protocol = ErrorProtocol

__all__ = [
    "ALL",
    "BASELINE",
    "ERROR_TYPES",
    "PROTOCOLS",
    "PROTOCOL_NAME",
    "Corruption",
    "ErrorProtocol",
    "InjectionError",
    "InjectionHooks",
    "Protocol",
    "UnknownConditionError",
    "error_type_of",
    "expand_conditions",
    "get_protocol",
    "hooks_for",
    "is_injectable",
    "unit_rng",
    "valid_conditions",
]

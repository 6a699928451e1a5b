"""Fault injection: P2 (a wrong parameter in a chosen call, or several), corrupted tool
output (`out:*`), tool failures (`fault:*`) and model-API faults (`api:*`); the
out/fault kinds also apply to a foreign tool's result alone (hooks without a domain).

`expand_conditions` validates and canonicalises condition names; `hooks_for(condition,
unit, task)` returns the agent hook that applies a condition to one work unit. See
docs/injection.md.
"""

from agentprop.inject._api import (
    API,
    API_FAULTS,
    API_KINDS,
    RETRY_AFTER_S,
    ApiFault,
    ApiFaultHooks,
    ApiFaultModel,
    completion_content,
    cut_in_half,
    error_body,
)
from agentprop.inject._conditions import (
    ALL,
    BASELINE,
    FAMILIES,
    Condition,
    UnknownConditionError,
    error_type_of,
    expand_conditions,
    hooks_for,
    is_injectable,
    parse_condition,
    valid_conditions,
)
from agentprop.inject._faults import FAULT_KINDS, FaultHooks, fault_observation
from agentprop.inject._hooks import PROTOCOL_NAME, InjectionHooks, Position, eligible_plan_calls
from agentprop.inject._multi import MultiInjectionHooks
from agentprop.inject._observed import renames
from agentprop.inject._outhooks import OUTPUT_KINDS, OutputHooks, corrupt_observation
from agentprop.inject._output import OutputCorruption
from agentprop.inject._protocols import (
    ERROR_TYPES,
    PROTOCOLS,
    Corruption,
    ErrorProtocol,
    InjectionError,
    get_protocol,
    unit_rng,
)
from agentprop.inject._schema_values import schema_alternative, seen_values

# Deprecated alias: the old name shadowed typing.Protocol. Never persisted (traces store
# the `error_type` string), kept only for code importing `agentprop.inject.Protocol`.
Protocol = ErrorProtocol

__all__ = [
    "ALL",
    "API",
    "API_FAULTS",
    "API_KINDS",
    "BASELINE",
    "ERROR_TYPES",
    "FAMILIES",
    "FAULT_KINDS",
    "OUTPUT_KINDS",
    "PROTOCOLS",
    "PROTOCOL_NAME",
    "RETRY_AFTER_S",
    "ApiFault",
    "ApiFaultHooks",
    "ApiFaultModel",
    "Condition",
    "Corruption",
    "ErrorProtocol",
    "FaultHooks",
    "InjectionError",
    "InjectionHooks",
    "MultiInjectionHooks",
    "OutputCorruption",
    "OutputHooks",
    "Position",
    "Protocol",
    "UnknownConditionError",
    "completion_content",
    "corrupt_observation",
    "cut_in_half",
    "eligible_plan_calls",
    "error_body",
    "error_type_of",
    "expand_conditions",
    "fault_observation",
    "get_protocol",
    "hooks_for",
    "is_injectable",
    "parse_condition",
    "renames",
    "schema_alternative",
    "seen_values",
    "unit_rng",
    "valid_conditions",
]

"""Deterministic simulated worlds the agents act in, one module per domain."""

from functools import cache

from agentprop.domains._base import (
    DOMAINS,
    FAILURE_ERRORS,
    TRANSIENT_ERRORS,
    Domain,
    DomainError,
    Environment,
    Observation,
    ObservationPath,
    Tool,
    error_observation,
    is_error,
    is_failure,
    nearby_date,
    observation_leaves,
)


@cache
def get_domain(name: str) -> Domain:
    """The (immutable, shared) domain object for `name`; environments are made per episode."""
    _load_builtin()
    from agentprop.core import UnknownNameError
    from agentprop.plugins import explain_unknown

    try:
        factory = DOMAINS.get(name)
    except UnknownNameError as e:  # a plugin that failed to load may be the one
        raise explain_unknown(e) from None
    return factory()


def domain_names() -> list[str]:
    _load_builtin()
    return DOMAINS.names()


def _load_builtin() -> None:
    # Importing the modules registers the domains.
    from agentprop.domains import calendar, knowledge, medical, retail, weather  # noqa: F401
    from agentprop.plugins import load_plugins

    load_plugins()  # installed plugin packages register theirs (agentprop/plugins.py)


__all__ = [
    "DOMAINS",
    "FAILURE_ERRORS",
    "TRANSIENT_ERRORS",
    "Domain",
    "DomainError",
    "Environment",
    "Observation",
    "ObservationPath",
    "Tool",
    "domain_names",
    "error_observation",
    "get_domain",
    "is_error",
    "is_failure",
    "nearby_date",
    "observation_leaves",
]

"""The tool framework every domain uses: JSON-Schema validation, typed error observations,
cheap per-episode environments."""

from __future__ import annotations

import contextlib
import copy
import random
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, ClassVar

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from agentprop.core import Registry, ToolSpec
from agentprop.errors import AgentpropError

Observation = dict[str, Any]


class DomainError(AgentpropError):
    """Raised inside a tool function for a domain failure; becomes a typed error observation."""

    def __init__(self, type: str, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.type = type
        self.message = message
        self.param = param


def error_observation(type: str, message: str, param: str | None = None) -> Observation:
    err: dict[str, Any] = {"type": type, "message": message}
    if param is not None:
        err["param"] = param
    return {"error": err}


ObservationPath = tuple[str | int, ...]
"""Where a value sits in an observation: dict keys and list indices from the root."""


def observation_leaves(obj: Any, path: ObservationPath = ()
                       ) -> Iterator[tuple[ObservationPath, Any]]:
    """Every scalar of an observation (nested dicts and lists) with its path, in order."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from observation_leaves(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from observation_leaves(v, (*path, i))
    else:
        yield path, obj


def is_error(observation: Observation) -> bool:
    return isinstance(observation, dict) and isinstance(observation.get("error"), dict)


TRANSIENT_ERRORS: tuple[str, ...] = ("timeout", "server_error", "rate_limited")
"""Error types of a failed call (the tool never answered), as opposed to the domain's own
errors (validation, not_found...): a retry of the same call can succeed."""


FAILURE_ERRORS: tuple[str, ...] = (*TRANSIENT_ERRORS, "permission_denied")
"""Error types of a call the tool never answered (`fault:*`): the transient ones, and a
refusal at the door (permission denied) that no domain tool returns itself."""


def is_failure(observation: Observation) -> bool:
    """A failed call as an agent sees it: the tool never answered (`FAILURE_ERRORS`), or
    an empty result (`{}`)."""
    if observation == {}:
        return True
    return is_error(observation) and observation["error"].get("type") in FAILURE_ERRORS


def _param_of(err: ValidationError, args: dict[str, Any]) -> str | None:
    if err.path:
        return str(err.path[0])
    if err.validator == "required":
        missing = [p for p in err.validator_value if p not in args]
        return missing[0] if missing else None
    if err.validator == "additionalProperties":
        allowed = set(err.schema.get("properties", {}))
        extra = [k for k in args if k not in allowed]
        return extra[0] if extra else None
    return None


ToolFn = Callable[[Any, dict[str, Any]], Observation]


def nearby_date(value: Any, rng: random.Random, fallback: date) -> str:
    """An ISO date one to five days before or after `value` (or `fallback` if `value` is
    not a date): the `semantic_wrong` alternative for a date parameter."""
    try:
        d = date.fromisoformat(str(value))
    except ValueError:
        d = fallback
    shift = rng.choice([-5, -4, -3, -2, -1, 1, 2, 3, 4, 5])
    return (d + timedelta(days=shift)).isoformat()


@dataclass(frozen=True)
class Tool:
    """A tool: its spec (shown to the model) and its implementation over an episode state.

    `fn(state, args)` gets arguments that already passed the schema; it returns the
    observation (which must echo the arguments it was computed from) or raises DomainError.
    """

    spec: ToolSpec
    fn: ToolFn
    validator: Draft202012Validator = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        Draft202012Validator.check_schema(self.spec.parameters)
        v = Draft202012Validator(
            self.spec.parameters, format_checker=Draft202012Validator.FORMAT_CHECKER
        )
        object.__setattr__(self, "validator", v)

    @property
    def name(self) -> str:
        return self.spec.name

    def validate(self, args: Any) -> Observation | None:
        """The validation error observation for `args`, or None if they are valid."""
        if not isinstance(args, dict):
            return error_observation("validation", "arguments must be a JSON object")
        errors = sorted(self.validator.iter_errors(args), key=lambda e: list(e.path))
        if not errors:
            return None
        err = errors[0]
        param = _param_of(err, args)
        where = f"parameter {param!r}: " if param else ""
        return error_observation("validation", f"{where}{err.message}", param)


class Environment:
    """One episode's world: a domain's static data plus a small mutable state.

    Built from a seed, never shared between episodes; `copy()` duplicates only the state,
    so a counterfactual call costs little.
    """

    def __init__(self, domain: Domain, state: Any, seed: int) -> None:
        self.domain = domain
        self.state = state
        self.seed = seed

    def call(self, name: str, args: Any) -> Observation:
        """Execute a tool. Never raises: every failure is an error observation."""
        tool = self.domain.tool(name)
        if tool is None:
            return error_observation("unknown_tool", f"no tool named {name!r}", None)
        invalid = tool.validate(args)
        if invalid is not None:
            return invalid
        try:
            return tool.fn(self.state, dict(args))
        except DomainError as e:
            return error_observation(e.type, e.message, e.param)
        except Exception as e:  # a tool must never crash an episode
            return error_observation("internal", f"{type(e).__name__}: {e}")

    failure: str | None = None
    """Why the environment failed under the episode (an upstream server that died or
    hung): the runner then writes the episode as an error trace. Never set for a
    simulated world."""

    async def acall(self, name: str, args: Any) -> Observation:
        """`call` for the agent boundary, which awaits it: an environment that is another
        process (an upstream MCP server) overrides this one."""
        return self.call(name, args)

    def withholds(self, name: str) -> str | None:
        """Why the clean call of tool `name` cannot be made a second time for the
        counterfactual (None: it can). A simulated world copies its state, so never; an
        upstream server withholds every tool not known to be read-only."""
        return None

    async def counterfactual(self, name: str, args: Any) -> Observation:
        """What the clean call returns on the state the agent's call saw: on a copy of the
        state, so the episode's own state is untouched."""
        return self.copy().call(name, args)

    def copy(self) -> Environment:
        return Environment(self.domain, copy.deepcopy(self.state), self.seed)

    def snapshot(self) -> dict[str, Any]:
        """The part of the state a task may be checked against (`expected_state`)."""
        return self.domain.snapshot(self.state)


class Domain:
    """A set of tools over a deterministic world. Subclasses are registered by name."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    injectable: ClassVar[bool] = True
    foreign: ClassVar[bool] = False
    """True for tools agentprop forwards but does not simulate (an upstream MCP server's):
    there is no state to copy, so corruptions read the result alone."""

    def __init__(self) -> None:
        self._tools = {t.name: t for t in self.build_tools()}

    # -- to implement -------------------------------------------------------------------
    def build_tools(self) -> list[Tool]:
        raise NotImplementedError

    def initial_state(self, seed: int) -> Any:
        """The mutable per-episode state for `seed` (plain dicts/lists, deep-copyable)."""
        return {}

    def snapshot(self, state: Any) -> dict[str, Any]:
        return {}

    def alternative(self, kind: str, value: Any, rng: random.Random, env: Environment) -> Any:
        """Another real, schema-valid value of entity `kind`, different from `value`.

        Used by the `semantic_wrong` injection. Raises KeyError for an unknown kind.
        """
        raise KeyError(kind)

    # -- provided -----------------------------------------------------------------------
    def make_env(self, seed: int) -> Environment:
        return Environment(self, self.initial_state(seed), seed)

    @contextlib.asynccontextmanager
    async def connected(self) -> AsyncIterator[Domain]:
        """What a run's episodes share, open for the run (an upstream server's
        connection); nothing for a simulated world."""
        yield self

    def tool(self, name: str) -> Tool | None:
        return self._tools.get(name)

    @property
    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def tool_specs(self, names: list[str] | None = None) -> list[ToolSpec]:
        if names is None:
            return [t.spec for t in self._tools.values()]
        return [self._tools[n].spec for n in names if n in self._tools]


DOMAINS: Registry[type[Domain]] = Registry("domain")

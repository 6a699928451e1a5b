"""The four P2 error types: how each one corrupts one parameter of one tool call.

A protocol looks at a proposed call and either returns a `Corruption` (the call had an
eligible parameter) or None (it had none; the injector then waits for a later call).
`semantic_wrong` keeps the call schema-valid and swaps a critical parameter for another
real entity of the domain's world; the other three break the schema on purpose so the
tool's validation reports it. Every random choice comes from the `random.Random` passed
in, which the injector seeds per work unit (`unit_rng`), so a unit always gets the same
corruption.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from agentprop.core import Registry, ToolCall, WorkUnit
from agentprop.domains import Domain, Environment, Tool


class InjectionError(RuntimeError):
    """A domain broke the injection contract (e.g. `alternative` returned an invalid value)."""


@dataclass(frozen=True)
class Corruption:
    """One corrupted parameter: the new arguments and what changed."""

    param: str
    original: Any
    injected: Any
    arguments: dict[str, Any]
    removed: bool = False


def unit_rng(unit: WorkUnit, error_type: str) -> random.Random:
    """The generator for `unit` and `error_type`: sha256(run, model, task, seed, type).

    The condition's arm is left out on purpose, so the control and treatment arms of an
    interceptor experiment receive the identical corruption.
    """
    parts = [unit.run_id, unit.model, unit.task_id, str(unit.seed), error_type]
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


class ErrorProtocol:
    """Base class of an error type (the paper's injection protocols). Subclasses implement
    `corrupt`. Named so it does not shadow `typing.Protocol`."""

    error_type: ClassVar[str]

    def corrupt(
        self, call: ToolCall, tool: Tool, domain: Domain, env: Environment, rng: random.Random
    ) -> Corruption | None:
        raise NotImplementedError


PROTOCOLS: Registry[type[ErrorProtocol]] = Registry("error type")


# -- helpers -----------------------------------------------------------------------------

def _properties(tool: Tool) -> dict[str, dict[str, Any]]:
    props = tool.spec.parameters.get("properties", {})
    return {k: v for k, v in props.items() if isinstance(v, dict)}


def _present(call: ToolCall, names: list[str]) -> list[str]:
    return [n for n in names if n in call.arguments]


def _tiers(rng: random.Random, *tiers: list[str]) -> Iterator[str]:
    """Parameters tier by tier (earlier tiers preferred), shuffled within a tier, no repeats."""
    seen: set[str] = set()
    for tier in tiers:
        items = [p for p in dict.fromkeys(tier) if p not in seen]
        rng.shuffle(items)
        for p in items:
            seen.add(p)
            yield p


def _types(schema: dict[str, Any]) -> list[str]:
    t = schema.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    if "enum" in schema:
        return sorted({json_type(v) for v in schema["enum"]})
    return []


def json_type(value: Any) -> str:
    """The JSON Schema type name of a JSON value (a bool is `boolean`, not `integer`)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _breaks_schema(tool: Tool, args: dict[str, Any]) -> bool:
    err = tool.validate(args)
    return err is not None and err["error"].get("type") == "validation"


def _with(call: ToolCall, param: str, value: Any) -> dict[str, Any]:
    args = dict(call.arguments)
    args[param] = value
    return args


def _first_breaking(
    call: ToolCall, tool: Tool, param: str, candidates: list[Any]
) -> Corruption | None:
    original = call.arguments[param]
    for value in candidates:
        if value == original and type(value) is type(original):
            continue
        args = _with(call, param, value)
        if _breaks_schema(tool, args):
            return Corruption(param=param, original=original, injected=value, arguments=args)
    return None


# -- semantic_wrong ----------------------------------------------------------------------

@PROTOCOLS.register("semantic_wrong")
class SemanticWrong(ErrorProtocol):
    """Another real entity of the same kind (city, patient, date...), still schema-valid."""

    error_type = "semantic_wrong"
    attempts = 5

    def corrupt(
        self, call: ToolCall, tool: Tool, domain: Domain, env: Environment, rng: random.Random
    ) -> Corruption | None:
        critical = tool.spec.critical_params
        for param in _tiers(rng, _present(call, list(critical))):
            original = call.arguments[param]
            kind = critical[param]
            proposed_valid = tool.validate(call.arguments) is None
            for _ in range(self.attempts):
                try:
                    value = domain.alternative(kind, original, rng, env)
                except KeyError:
                    break  # the domain has no alternatives of this kind: not eligible
                if value == original:
                    continue
                args = _with(call, param, value)
                # A proposed call that was already invalid cannot become valid by swapping
                # one real value for another; only a valid call must stay valid.
                if proposed_valid and tool.validate(args) is not None:
                    raise InjectionError(
                        f"domain {domain.name!r}: alternative({kind!r}) returned {value!r}, "
                        f"which fails the schema of {tool.name}.{param}"
                    )
                return Corruption(param=param, original=original, injected=value, arguments=args)
            else:
                raise InjectionError(
                    f"domain {domain.name!r}: alternative({kind!r}) kept returning the "
                    f"original value {original!r}"
                )
        return None


# -- type_mismatch -----------------------------------------------------------------------

def _wrong_types(value: Any, schema: dict[str, Any], rng: random.Random) -> list[Any]:
    """Values of a JSON type the schema does not allow, most realistic first."""
    allowed = set(_types(schema)) or {json_type(value)}
    out: list[Any] = []
    if "string" not in allowed:
        out.append(json.dumps(value) if isinstance(value, list | dict) else str(value))
    if not ({"integer", "number"} & allowed):
        digits = re.sub(r"\D", "", value) if isinstance(value, str) else ""
        out.append(int(digits[:9]) if digits else rng.randint(1, 999))
    if "array" not in allowed:
        out.append([value])
    if "boolean" not in allowed:
        out.append(True)
    if "object" not in allowed:
        out.append({"value": value})
    return out


@PROTOCOLS.register("type_mismatch")
class TypeMismatch(ErrorProtocol):
    """A value of the wrong JSON type (a number for a string, a string for a number...)."""

    error_type = "type_mismatch"

    def corrupt(
        self, call: ToolCall, tool: Tool, domain: Domain, env: Environment, rng: random.Random
    ) -> Corruption | None:
        props = _properties(tool)
        critical = _present(call, list(tool.spec.critical_params))
        others = _present(call, list(props))
        for param in _tiers(rng, critical, others):
            found = _first_breaking(
                call, tool, param, _wrong_types(call.arguments[param], props.get(param, {}), rng)
            )
            if found:
                return found
        return None


# -- out_of_range ------------------------------------------------------------------------

def _numeric_breaks(value: Any, schema: dict[str, Any], rng: random.Random) -> list[Any]:
    is_int = "integer" in _types(schema) or isinstance(value, int)
    out: list[Any] = []
    hi = schema.get("maximum", schema.get("exclusiveMaximum"))
    lo = schema.get("minimum", schema.get("exclusiveMinimum"))
    if isinstance(hi, int | float) and not isinstance(hi, bool):
        span = abs(hi - lo) if isinstance(lo, int | float) else abs(hi)
        step = rng.randint(1, max(1, int(span // 2) or 1))
        out.append(int(hi) + step if is_int else float(hi) + step)
    if isinstance(lo, int | float) and not isinstance(lo, bool):
        step = rng.randint(1, 10)
        out.append(int(lo) - step if is_int else float(lo) - step)
    return out


def _enum_breaks(value: Any, schema: dict[str, Any]) -> list[Any]:
    enum = schema.get("enum")
    if not isinstance(enum, list):
        return []
    if isinstance(value, str):
        cands = [value.upper(), value.capitalize(), value + "s", value.replace("_", " ")]
        return [c for c in cands if c not in enum]
    if isinstance(value, int | float) and not isinstance(value, bool):
        nums = [v for v in enum if isinstance(v, int | float) and not isinstance(v, bool)]
        return [max(nums) + 1] if nums else []
    return []


_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_TIME = re.compile(r"^(\d{2}):(\d{2})")


def _string_breaks(value: Any, schema: dict[str, Any]) -> list[Any]:
    if not isinstance(value, str):
        return []
    out: list[Any] = []
    fmt = schema.get("format")
    if fmt == "date" or _DATE.match(value):
        m = _DATE.match(value)
        y = m.group(1) if m else "2025"
        d = m.group(3) if m else "01"
        out += [f"{y}-13-{d}", f"{y}-02-30"]
    if fmt == "time" or _TIME.match(value):
        m = _TIME.match(value)
        mm = m.group(2) if m else "00"
        out += [f"25:{mm}", f"24:{mm}"]
    if "pattern" in schema:
        out += [value.lower(), value.upper(), value + "0", value[1:], value.replace("-", "")]
    if isinstance(schema.get("maxLength"), int):
        out.append(value + "x" * (schema["maxLength"] + 1 - len(value)))
    if isinstance(schema.get("minLength"), int) and schema["minLength"] > 0:
        out.append("")
    return out


def _array_breaks(value: Any, schema: dict[str, Any]) -> list[Any]:
    if not isinstance(value, list):
        return []
    out: list[Any] = []
    if isinstance(schema.get("maxItems"), int) and value:
        out.append(value + [value[-1]] * (schema["maxItems"] + 1 - len(value)))
    if isinstance(schema.get("minItems"), int) and schema["minItems"] > 0:
        out.append([])
    return out


@PROTOCOLS.register("out_of_range")
class OutOfRange(ErrorProtocol):
    """A value of the right type that violates a constraint: bounds, enum, pattern, format.

    Prefers a numeric or enum parameter of the call, then a critical parameter with a
    format or pattern, then any critical parameter, then any.
    """

    error_type = "out_of_range"

    def corrupt(
        self, call: ToolCall, tool: Tool, domain: Domain, env: Environment, rng: random.Random
    ) -> Corruption | None:
        props = _properties(tool)
        present = _present(call, list(props))
        bounded = [
            p for p in present
            if "enum" in props[p]
            or ({"integer", "number"} & set(_types(props[p]))
                and ({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
                     & set(props[p])))
        ]
        critical = _present(call, list(tool.spec.critical_params))
        # a date, time or id broken by its format/pattern is a more natural error than a
        # string padded past its maxLength, so those critical parameters come first
        shaped = [p for p in critical if {"format", "pattern"} & set(props.get(p, {}))]
        for param in _tiers(rng, bounded, shaped, critical, present):
            value, schema = call.arguments[param], props.get(param, {})
            cands = (
                _numeric_breaks(value, schema, rng)
                + _enum_breaks(value, schema)
                + _string_breaks(value, schema)
                + _array_breaks(value, schema)
            )
            found = _first_breaking(call, tool, param, cands)
            if found:
                return found
        return None


# -- missing_required --------------------------------------------------------------------

@PROTOCOLS.register("missing_required")
class MissingRequired(ErrorProtocol):
    """A required key removed from the arguments (a critical one when the call has one)."""

    error_type = "missing_required"

    def corrupt(
        self, call: ToolCall, tool: Tool, domain: Domain, env: Environment, rng: random.Random
    ) -> Corruption | None:
        required = tool.spec.parameters.get("required", [])
        present = _present(call, [r for r in required if isinstance(r, str)])
        critical = [p for p in present if p in tool.spec.critical_params]
        for param in _tiers(rng, critical, present):
            args = {k: v for k, v in call.arguments.items() if k != param}
            if _breaks_schema(tool, args):
                return Corruption(
                    param=param, original=call.arguments[param], injected=None,
                    arguments=args, removed=True,
                )
        return None


ERROR_TYPES: tuple[str, ...] = (
    "semantic_wrong", "type_mismatch", "out_of_range", "missing_required"
)
"""The P2 error types, in the order `p2:all` expands to."""


def get_protocol(error_type: str) -> ErrorProtocol:
    factory: Callable[[], ErrorProtocol] = PROTOCOLS.get(error_type)
    return factory()

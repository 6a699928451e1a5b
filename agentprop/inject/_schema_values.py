"""Another valid value for a parameter known only by its JSON Schema: `semantic_wrong` on a
foreign tool (any MCP server), which has no `Domain.alternative` to ask.

`schema_alternative` tries its sources in this order, most plausible confusion first:

1. `enum` members, and `oneOf`/`anyOf` branches of consts or enums: the schema lists every
   valid value, so another member is exactly the mistake an agent can make (`const`
   alone allows one value: none).
2. values seen earlier in the episode (`seen`, e.g. from `seen_values`): real values the
   agent has read or written, so the most natural confusion and the only real entities a
   free string can get. Only values shaped like the original count (a path for a path, a
   date for a date, a query for a query by its first word, a number of the same order of
   magnitude), and the most alike come first (more leading path components in common,
   then a sibling before a child; an identifier of the same length class and alphabet):
   a sentence in place of a path would be noise, not a confusion.
3. the schema's `examples` (and OpenAPI's singular `example`) and `default`: real values
   too, but picked by the schema's author rather than the episode.
4. by `format` (date, date-time, time, email, uri, uuid, ipv4): a nearby value derived
   from the original (a date one to five days away, as the built-in domains do).
5. numbers: a nearby value inside the bounds and `multipleOf` (never outside: that is
   `out_of_range`'s error); booleans: the other one; arrays: one item replaced, by these
   same rules on the item schema.

Nothing is invented past that: a string with only a `pattern`, or with no constraint at
all, gets a value from sources 2-3 or none (random text would be gibberish, or would not
match), and an object gets none. None is never returned, even for a nullable parameter:
swapping a value for null is a missing value rather than a wrong one, and a null original
gets a non-null alternative or none.

Every candidate is checked against the schema (Draft 2020-12 with the format checker)
before it is returned, and differs from the original as JSON (1 == 1.0, True != 1). All
randomness comes from the `rng` passed in, so the result is a function of its state.
A `$ref` is resolved within `schema` only: pass a parameter's schema with its
`$ref`s to the tool's `$defs` inlined, or the parameter gets none (KeyError).
"""

from __future__ import annotations

import itertools
import math
import random
import re
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import date
from types import MappingProxyType
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing.exceptions import Unresolvable

from agentprop.domains import nearby_date, observation_leaves
from agentprop.inject._protocols import json_type

MAX_SEEN_CHARS = 200
"""Longer strings (documents, tool output) are not values an agent passes as an argument."""

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CLOCK_TAIL = r"(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?"  # seconds, fraction, offset
_DATE_TIME = re.compile(rf"^(\d{{4}}-\d{{2}}-\d{{2}})([Tt ]\d{{2}}:\d{{2}}{_CLOCK_TAIL})$")
_TIME = re.compile(rf"^(\d{{2}}):(\d{{2}})({_CLOCK_TAIL})$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
_EMAIL = re.compile(r"^([^@\s]+)@([^@\s]+)$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_IPV4 = re.compile(r"^(\d{1,3}\.\d{1,3}\.\d{1,3}\.)(\d{1,3})$")
_NUMERIC = re.compile(r"^-?\d+(\.\d+)?$")
_LAST_NUMBER = re.compile(r"(\d+)(?=\D*$)")
_SHIFTS = (-5, -4, -3, -2, -1, 1, 2, 3, 4, 5)
_MINUTE_SHIFTS = (-120, -90, -60, -45, -30, -15, 15, 30, 45, 60, 90, 120)
_DRAWS = 5  # candidates drawn per format, in case the schema's other keywords reject some
_ITEMS_TRIED = 10


def schema_alternative(schema: dict[str, Any], original: Any, rng: random.Random,
                       seen: Sequence[Any] = ()) -> Any:
    """Another value for a parameter whose JSON Schema is `schema`, different from
    `original`, that validates against `schema` (Draft 2020-12 with the format checker).
    Raises KeyError when the schema and `seen` offer none (the parameter is then no target).
    """
    if not isinstance(schema, dict):
        raise KeyError("the schema is not an object")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as e:
        raise KeyError(f"invalid schema: {e.message}") from None
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    for value in _alternatives(schema, validator, original, rng, seen):
        return value
    raise KeyError("the schema and the episode offer no other valid value")


def _alternatives(schema: dict[str, Any], validator: Draft202012Validator, original: Any,
                  rng: random.Random, seen: Sequence[Any]) -> Iterator[Any]:
    """Every valid alternative, source by source, computed lazily (the first is usually
    all a caller takes). Raises KeyError on a $ref this schema cannot resolve."""
    if "const" in schema:
        return  # one valid value: the original, or the call was invalid anyway
    sources: tuple[Callable[..., Iterable[Any]], ...] = (
        _members, _seen_like, _examples, _generated
    )
    for source in sources:
        for value in source(schema, original, rng, seen):
            if value is None or _same(value, original):
                continue
            try:
                valid = validator.is_valid(value)
            except Unresolvable as e:  # a $ref outside this schema: nothing can be checked
                raise KeyError(f"unresolvable reference in the schema: {e}") from None
            if valid:
                yield value


def seen_values(observations_and_arguments: Iterable[Any]) -> list[Any]:
    """The scalar leaves of an episode's observations and arguments, in order of first
    appearance, without duplicates: the `seen` of `schema_alternative`.

    Booleans, None, empty and very long strings and non-finite numbers are left out: none
    of them is a value an agent would confuse with another argument.
    """
    out: list[Any] = []
    keys: set[tuple[str, Any]] = set()
    for item in observations_and_arguments:
        for _, leaf in observation_leaves(item):
            if isinstance(leaf, bool) or not isinstance(leaf, str | int | float):
                continue
            if isinstance(leaf, str) and not (leaf.strip() and len(leaf) <= MAX_SEEN_CHARS):
                continue
            if isinstance(leaf, float) and not math.isfinite(leaf):
                continue
            key = (type(leaf).__name__, leaf)
            if key not in keys:
                keys.add(key)
                out.append(leaf)
    return out


# -- JSON helpers ------------------------------------------------------------------------

def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _finite(value: Any) -> bool:
    """A number with a magnitude (an int of any size, or a float that is not inf/nan)."""
    if isinstance(value, float):
        return math.isfinite(value)
    return _is_number(value)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: 1 == 1.0, but True != 1 and "1" != 1."""
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


def _shuffled(items: Iterable[Any], rng: random.Random) -> list[Any]:
    out = list(items)
    rng.shuffle(out)
    return out


# -- 1. enum and consts ------------------------------------------------------------------

def _members(schema: dict[str, Any], original: Any, rng: random.Random,
             seen: Sequence[Any]) -> list[Any]:
    members = list(schema["enum"]) if isinstance(schema.get("enum"), list) else []
    for key in ("oneOf", "anyOf"):
        branches = schema.get(key)
        for branch in branches if isinstance(branches, list) else []:
            if not isinstance(branch, dict):
                continue
            if "const" in branch:
                members.append(branch["const"])
            elif isinstance(branch.get("enum"), list):
                members.extend(branch["enum"])
    return _shuffled(members, rng)


# -- 2. values seen in the episode -------------------------------------------------------

def _string_shape(s: str) -> str:
    """What kind of string `s` is: only a value of the same kind is a plausible confusion."""
    for shape, pattern in (("date", _DATE), ("date-time", _DATE_TIME), ("time", _TIME),
                           ("uuid", _UUID), ("uri", _URI), ("number", _NUMERIC)):
        if pattern.match(s):
            return shape
    if any(c.isspace() for c in s):
        return "text"
    if _EMAIL.match(s):
        return "email"
    if s.startswith(("/", "~/", "./", "../")) or re.match(r"^[A-Za-z]:\\", s):
        return "path"
    return "slashed" if "/" in s else "token"


def _alphabet(s: str) -> int:
    """0 digits, 1 hex with a digit (a hash), 2 letters, 3 anything else."""
    if s.isdigit():
        return 0
    if re.fullmatch(r"[0-9a-fA-F]+", s) and any(c.isdigit() for c in s):
        return 1
    return 2 if s.isalpha() else 3


def _shared_components(a: str, b: str) -> int:
    n = 0
    for x, y in zip(re.split(r"[/\\]", a), re.split(r"[/\\]", b), strict=False):
        if x != y:
            break
        n += 1
    return n


def _depth(s: str) -> int:
    return len([c for c in re.split(r"[/\\]", s) if c])


def _digits(x: float) -> int:
    """Digits before the point (1 for |x| < 1); log10 copes with ints past str's limit."""
    return math.floor(math.log10(abs(x))) + 1 if abs(x) >= 1 else 1


def _first_word(s: str) -> str:
    words = s.split()
    return words[0].lower() if words else ""


def _likeness(original: Any, value: Any) -> tuple[int, ...] | None:
    """How alike `value` is to `original` (higher first), or None when it is not a
    plausible stand-in for it at all."""
    if original is None:
        return () if value is not None else None
    if _is_number(original):
        if not (_finite(original) and _finite(value)) or (value < 0) != (original < 0):
            return None
        digits = _digits(original), _digits(value)
        if abs(digits[0] - digits[1]) > 1:
            return None
        return (int(digits[0] == digits[1]),)
    if not isinstance(original, str):
        return () if json_type(value) == json_type(original) else None
    if not isinstance(value, str) or _string_shape(value) != (shape := _string_shape(original)):
        return None
    same_length = int(len(original).bit_length() == len(value).bit_length())
    if shape in ("path", "slashed", "uri"):
        depth = int(_depth(original) == _depth(value))  # a sibling before a child
        return (_shared_components(original, value), depth)
    if shape == "email":
        return (int(original.rpartition("@")[2] == value.rpartition("@")[2]),)
    if shape == "text":
        # a sentence only stands in for one of the same kind: a query for a query
        if _first_word(original) != _first_word(value):
            return None
        return (same_length,)
    if shape in ("token", "number"):
        return (same_length, int(_alphabet(original) == _alphabet(value)))
    return ()


def _seen_like(schema: dict[str, Any], original: Any, rng: random.Random,
               seen: Sequence[Any]) -> Iterator[Any]:
    by_score: dict[tuple[int, ...], list[Any]] = {}
    for value in seen:
        score = _likeness(original, value)
        if score is not None:
            by_score.setdefault(score, []).append(value)
    for score in sorted(by_score, reverse=True):
        yield from _shuffled(by_score[score], rng)


# -- 3. examples and default -------------------------------------------------------------

def _examples(schema: dict[str, Any], original: Any, rng: random.Random,
              seen: Sequence[Any]) -> list[Any]:
    examples = schema.get("examples")
    values = list(examples) if isinstance(examples, list) else []
    if "example" in schema:  # OpenAPI's singular form, common in generated MCP servers
        values.append(schema["example"])
    if "default" in schema:
        values.append(schema["default"])
    return _shuffled(values, rng)


# -- 4-5. generated from the original ----------------------------------------------------

def _generated(schema: dict[str, Any], original: Any, rng: random.Random,
               seen: Sequence[Any]) -> Iterator[Any]:
    """Values derived from the original by the schema's type, format and bounds; an
    `anyOf`/`oneOf` schema is tried branch by branch (each merged with the common keys)."""
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            common = {k: v for k, v in schema.items() if k != key}
            for branch in branches:
                if isinstance(branch, dict):
                    yield from _generated({**common, **branch}, original, rng, seen)
            return
    for kind in _kinds(schema, original):
        if kind == "string":
            yield from _strings(schema, original, rng)
        elif kind in ("integer", "number"):
            yield from _numbers(schema, original, rng, kind)
        elif kind == "boolean" and isinstance(original, bool):
            yield not original
        elif kind == "array":
            yield from _arrays(schema, original, rng, seen)


def _kinds(schema: dict[str, Any], original: Any) -> list[str]:
    """The schema's non-null types, the original's first (its own type if none is declared)."""
    declared = schema.get("type")
    if isinstance(declared, str):
        kinds = [declared]
    elif isinstance(declared, list):
        kinds = [k for k in declared if isinstance(k, str)]
    else:
        kinds = [json_type(original)]
    own = json_type(original)
    if own == "integer" and own not in kinds and "number" in kinds:
        own = "number"
    return sorted((k for k in kinds if k != "null"), key=lambda k: k != own)


def _strings(schema: dict[str, Any], original: Any, rng: random.Random) -> list[str]:
    if not isinstance(original, str):
        return []
    fmt = schema.get("format")
    make = _FORMATS.get(fmt) if isinstance(fmt, str) else None
    if make is None:
        return []
    out: list[str] = []
    for _ in range(_DRAWS):
        value = make(original, rng)
        if value is not None and value not in out:
            out.append(value)
    return out


def _shift(n: int, rng: random.Random, lo: int, hi: int | None = None) -> int:
    """`n` moved one to five either way, staying within [lo, hi]."""
    shifts = [k for k in _SHIFTS if n + k >= lo and (hi is None or n + k <= hi)]
    return n + rng.choice(shifts) if shifts else n


def _near_date(s: str, rng: random.Random) -> str | None:
    if not _DATE.match(s):
        return None
    try:
        anchor = date.fromisoformat(s)
    except ValueError:
        return None
    return nearby_date(s, rng, anchor)


def _near_date_time(s: str, rng: random.Random) -> str | None:
    m = _DATE_TIME.match(s)
    day = _near_date(m.group(1), rng) if m else None
    return day + m.group(2) if m and day else None


def _near_time(s: str, rng: random.Random) -> str | None:
    m = _TIME.match(s)
    if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
        return None
    minutes = (int(m.group(1)) * 60 + int(m.group(2)) + rng.choice(_MINUTE_SHIFTS)) % 1440
    return f"{minutes // 60:02d}:{minutes % 60:02d}{m.group(3)}"


def _near_email(s: str, rng: random.Random) -> str | None:
    m = _EMAIL.match(s)
    if not m:
        return None
    local, domain = m.groups()
    digits = re.search(r"\d+$", local)
    if digits:
        local = local[: digits.start()] + str(_shift(int(digits.group()), rng, 0))
    else:
        local += str(rng.randint(1, 9))
    return f"{local}@{domain}"


def _near_uri(s: str, rng: random.Random) -> str | None:
    """The same URI with its last number moved (page 3 for 2, item 43 for 42), else its
    parent (the path's last segment dropped)."""
    head = _URI.match(s)
    if not head:
        return None
    rest = s[head.end():]
    host, slash, path = rest.partition("/")
    m = _LAST_NUMBER.search(path)
    if m:
        n = _shift(int(m.group(1)), rng, 0)
        return s[: len(s) - len(path) + m.start()] + str(n) + path[m.end():]
    parts = path.rstrip("/").split("/")
    if not slash or parts == [""]:
        return None
    return s[: head.end()] + host + "/" + "/".join(parts[:-1])


def _new_uuid(s: str, rng: random.Random) -> str | None:
    if not _UUID.match(s):
        return None
    value = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return value.upper() if s.isupper() else value


def _near_ipv4(s: str, rng: random.Random) -> str | None:
    m = _IPV4.match(s)
    if not m:
        return None
    return m.group(1) + str(_shift(int(m.group(2)), rng, 1, 254))


_FORMATS: Mapping[str, Callable[[str, random.Random], str | None]] = MappingProxyType({
    "date": _near_date, "date-time": _near_date_time, "time": _near_time,
    "email": _near_email, "idn-email": _near_email, "uri": _near_uri,
    "uri-reference": _near_uri, "iri": _near_uri, "uuid": _new_uuid, "ipv4": _near_ipv4,
})


def _numbers(schema: dict[str, Any], original: Any, rng: random.Random,
             kind: str) -> list[int | float]:
    """Values one to five steps from the original; the validator keeps those inside the
    bounds. A step is the `multipleOf`, else 1 for an integer and a tenth of the original's
    order of magnitude for a real (2.6 for 2.5, 49.8 for 48.8)."""
    if not _finite(original):
        return []
    shifts = _shuffled(_SHIFTS, rng)
    multiple = schema.get("multipleOf", 0)
    step = multiple if _is_number(multiple) and multiple > 0 else None
    if isinstance(original, int) and isinstance(step or 1, int):
        # exact integer arithmetic: an id of any size stays exact, no float rounding
        unit = step or 1
        base = (original + unit // 2) // unit * unit  # on the grid if the original was not
        return [base + k * unit for k in shifts]
    whole = kind == "integer" or isinstance(original, int)
    try:
        if step is not None:
            base = round(original / step) * step
        else:
            base = original
            step = 1.0 if whole or not original else 10.0 ** math.floor(
                math.log10(abs(original)) - 1
            )
        # as many decimals as the step and the original need, so no float noise remains
        places = max(-math.floor(math.log10(step)), _decimals(original)) + 1
        values = [base + k * step for k in shifts]
        return [round(v) if whole and float(v).is_integer() else round(v, places)
                for v in values]
    except (OverflowError, ValueError):  # 1e308 / 0.01, a step of 5e-324 that underflows
        return []


def _decimals(x: float) -> int:
    text = repr(float(x))
    return 0 if "e" in text else len(text.partition(".")[2].rstrip("0"))


def _arrays(schema: dict[str, Any], original: Any, rng: random.Random,
            seen: Sequence[Any]) -> Iterator[list[Any]]:
    """The array with one item (chosen at random) replaced by an alternative for it; a few
    alternatives per item, since the array's own keywords (uniqueItems) may reject some,
    and a few items at most, so a long array the schema rejects anyway stays cheap."""
    if not isinstance(original, list) or not original:
        return
    prefix = schema.get("prefixItems")
    prefix = prefix if isinstance(prefix, list) else []
    items = schema.get("items")
    for i in _shuffled(range(len(original)), rng)[:_ITEMS_TRIED]:
        item_schema = prefix[i] if i < len(prefix) else items
        if item_schema is False:
            continue
        item_schema = item_schema if isinstance(item_schema, dict) else {}
        validator = Draft202012Validator(  # checked as part of the array's schema
            item_schema, format_checker=Draft202012Validator.FORMAT_CHECKER
        )
        news = _alternatives(item_schema, validator, original[i], rng, seen)
        try:
            for new in itertools.islice(news, _DRAWS):
                yield [*original[:i], new, *original[i + 1:]]
        except KeyError:  # a $ref to the tool's $defs, which the item schema alone lacks
            continue


__all__ = ["schema_alternative", "seen_values"]

"""`schema_alternative`: another valid value for a foreign tool's parameter from its JSON
Schema and the episode's history, source by source, on realistic MCP schemas."""

from __future__ import annotations

import random
from datetime import date
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agentprop.inject import schema_alternative, seen_values

SEEDS = range(200)


def _valid(schema: dict[str, Any], value: Any) -> bool:
    v = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return v.is_valid(value)


def _all(schema: dict[str, Any], original: Any, seen: list[Any] | None = None,
         seeds: range = SEEDS) -> list[Any]:
    """The alternative for each seed (each one checked valid and different)."""
    out = []
    for seed in seeds:
        value = schema_alternative(schema, original, random.Random(seed), seen or [])
        assert value is not None
        assert value != original or type(value) is not type(original)
        assert _valid(schema, value), (schema, original, value)
        out.append(value)
    return out


# -- realistic MCP tools -----------------------------------------------------------------

# mcp-server-time, mcp-server-git (pydantic-generated), mcp-server-sqlite, as they list them
GET_CURRENT_TIME = {
    "type": "object",
    "properties": {"timezone": {
        "type": "string",
        "description": "IANA timezone name (e.g., 'America/New_York', 'Europe/London').",
    }},
    "required": ["timezone"],
}
CONVERT_TIME = {
    "type": "object",
    "properties": {
        "source_timezone": {"type": "string", "description": "Source IANA timezone name"},
        "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
        "target_timezone": {"type": "string", "description": "Target IANA timezone name"},
    },
    "required": ["source_timezone", "time", "target_timezone"],
}
GIT_LOG = {
    "properties": {
        "repo_path": {"title": "Repo Path", "type": "string"},
        "max_count": {"default": 10, "title": "Max Count", "type": "integer"},
    },
    "required": ["repo_path"], "title": "GitLog", "type": "object",
}
GIT_DIFF = {
    "properties": {
        "repo_path": {"title": "Repo Path", "type": "string"},
        "target": {"title": "Target", "type": "string"},
    },
    "required": ["repo_path", "target"], "title": "GitDiff", "type": "object",
}
READ_QUERY = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "SELECT SQL query to execute"}},
    "required": ["query"],
}
# a booking tool with the constraints the four above lack
CREATE_EVENT = {
    "type": "object",
    "properties": {
        "day": {"type": "string", "format": "date"},
        "start": {"type": "string", "format": "time"},
        "attendees": {"type": "array", "items": {"type": "string", "format": "email"},
                      "uniqueItems": True},
        "priority": {"enum": ["low", "normal", "high"]},
        "duration_minutes": {"type": "integer", "minimum": 15, "maximum": 480,
                             "multipleOf": 15},
        "room": {"anyOf": [{"type": "string", "pattern": "^R[0-9]{3}$"}, {"type": "null"}],
                 "default": None},
        "all_day": {"type": "boolean"},
    },
}

# one episode: each call's arguments, then its observation
HISTORY: list[Any] = [
    {"timezone": "Europe/Paris"},
    {"timezone": "Europe/Paris", "datetime": "2025-06-01T14:03:00+02:00", "is_dst": True},
    {"source_timezone": "America/New_York", "time": "09:30", "target_timezone": "Asia/Tokyo"},
    {"source": {"timezone": "America/New_York", "datetime": "2025-06-01T09:30:00-04:00"},
     "target": {"timezone": "Asia/Tokyo", "datetime": "2025-06-01T22:30:00+09:00"},
     "time_difference": "+13.0h"},
    {"repo_path": "/home/dev/agentprop", "max_count": 3},
    {"commits": [
        {"sha": "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39", "author": "Alice <alice@example.com>",
         "message": "Fix the parser on empty input", "date": "2025-05-30"},
        {"sha": "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d", "author": "Bob <bob@example.com>",
         "message": "Add the R204 booking", "date": "2025-05-28"},
    ]},
    {"repo_path": "/home/dev/agentprop/docs", "target": "develop"},
    {"query": "SELECT name FROM users WHERE id = 3"},
    {"rows": [{"name": "alice", "id": 3, "email": "alice@example.com", "room": "R204"}]},
]
SEEN = seen_values(HISTORY)

CASES = [  # (tool schema, a proposed call's arguments)
    (GET_CURRENT_TIME, {"timezone": "America/New_York"}),
    (CONVERT_TIME, {"source_timezone": "Europe/Paris", "time": "16:00",
                    "target_timezone": "America/New_York"}),
    (GIT_LOG, {"repo_path": "/home/dev/agentprop", "max_count": 10}),
    (GIT_DIFF, {"repo_path": "/home/dev/agentprop", "target": "main"}),
    (READ_QUERY, {"query": "SELECT * FROM users"}),
    (CREATE_EVENT, {"day": "2025-06-02", "start": "09:00:00Z",
                    "attendees": ["alice@example.com", "carol@example.com"],
                    "priority": "normal", "duration_minutes": 60, "room": "R101",
                    "all_day": False}),
]


@pytest.mark.parametrize(("tool", "args"), CASES, ids=lambda x: str(x)[:30])
def test_every_alternative_on_real_schemas_is_valid_and_different(
    tool: dict[str, Any], args: dict[str, Any]
) -> None:
    """Property: over many seeds, with and without the episode's history, whatever comes
    back validates against the parameter's schema and the whole call stays valid."""
    assert _valid(tool, args)
    for param, original in args.items():
        schema = tool["properties"][param]
        for seen in ([], SEEN):
            for seed in range(60):
                try:
                    value = schema_alternative(schema, original, random.Random(seed), seen)
                except KeyError:
                    continue
                assert value is not None
                assert not (value == original and type(value) is type(original))
                assert _valid(schema, value), (param, original, value)
                assert _valid(tool, {**args, param: value}), (param, value)


FUZZ_SCHEMAS: list[dict[str, Any]] = [
    {}, {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"},
    {"type": "array"}, {"type": "object"}, {"type": "null"},
    *({"type": "string", "format": f} for f in
      ("date", "time", "date-time", "email", "uri", "uuid", "ipv4", "hostname")),
    {"type": "integer", "minimum": 0, "maximum": 0},
    {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    {"type": "number", "multipleOf": 0.01}, {"type": ["string", "integer", "null"]},
    {"type": "array", "items": {"type": "integer"}, "minItems": 1, "uniqueItems": True},
    {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
     "items": False},
    {"anyOf": [{"type": "integer"}, {"type": "string", "format": "date"}]},
    {"oneOf": [{"type": "integer"}, {"type": "number"}]},
    {"enum": [[1], [2], {"a": 1}]}, {"type": "string", "maxLength": 3},
    {"not": {"type": "string"}}, {"allOf": [{"type": "integer"}, {"minimum": 5}]},
]
FUZZ_ORIGINALS: list[Any] = [
    None, True, 0, -7, 2.5, 0.0, 1e308, 5e-324, "", "x", "2025-02-28",
    "2025-12-31T23:59:59Z", "23:59:59Z", "23:59", "a@b.c", "http://h", "ftp://x/1/2",
    "00000000-0000-0000-0000-000000000000", "255.255.255.255", "99:99", [], [1],
    ["a", 1], [1, 2, 2], {"a": 1},
]


def test_any_schema_and_original_give_a_valid_value_or_key_error() -> None:
    """Property over schema kinds and originals the agent may send (valid or not): only
    KeyError escapes, and a value that comes back is valid, non-null and new."""
    seen = [1, 2, 3, "a", "b", "/x/y", "2025-01-01", 2.0, "http://h/2", "some text"]
    returned = 0
    for schema in FUZZ_SCHEMAS:
        for original in FUZZ_ORIGINALS:
            for history in ([], seen):
                try:
                    value = schema_alternative(schema, original, random.Random(7), history)
                except KeyError:
                    continue
                returned += 1
                assert value is not None
                assert not (value == original and type(value) is type(original))
                assert _valid(schema, value), (schema, original, value)
    assert returned > 150  # the loop really exercised the sources (212 when written)


def test_real_schemas_which_parameters_are_targets() -> None:
    """Without history only the schema's own knowledge counts; with it, the free strings
    the episode has values for become targets too."""
    def targets(seen: list[Any]) -> set[str]:
        out = set()
        for tool, args in CASES:
            for param, original in args.items():
                try:
                    schema_alternative(tool["properties"][param], original, random.Random(0),
                                       seen)
                    out.add(param)
                except KeyError:
                    pass
        return out

    schema_only = {"max_count", "day", "start", "attendees", "priority", "duration_minutes",
                   "all_day"}
    assert targets([]) == schema_only
    assert targets(SEEN) == schema_only | {
        "timezone", "source_timezone", "target_timezone", "time", "repo_path", "target",
        "query", "room",
    }


def test_real_schemas_pick_the_confusable_seen_value() -> None:
    assert set(_all(GET_CURRENT_TIME["properties"]["timezone"], "America/New_York", SEEN)) == {
        "Europe/Paris", "Asia/Tokyo"}
    assert set(_all(CONVERT_TIME["properties"]["time"], "16:00", SEEN)) == {"09:30"}
    assert set(_all(GIT_LOG["properties"]["repo_path"], "/home/dev/agentprop", SEEN)) == {
        "/home/dev/agentprop/docs"}
    assert set(_all(GIT_DIFF["properties"]["target"], "main", SEEN)) <= {"develop", "alice"}
    assert set(_all(READ_QUERY["properties"]["query"], "SELECT * FROM users", SEEN)) == {
        "SELECT name FROM users WHERE id = 3"}
    # a seen count of the same order of magnitude, before the schema's default
    assert set(_all(GIT_LOG["properties"]["max_count"], 5, SEEN)) == {3}


# -- 1. enum and consts ------------------------------------------------------------------

def test_enum_gives_every_other_member_and_never_the_original() -> None:
    schema = {"type": "string", "enum": ["low", "normal", "high", "urgent"]}
    assert set(_all(schema, "normal")) == {"low", "high", "urgent"}


def test_enum_comes_before_seen_values_and_defaults() -> None:
    schema = {"enum": [1, 2, 3], "default": 3, "examples": [2]}
    # 4 is seen, but not a member; every member is reachable, not just the default
    assert set(_all(schema, 1, [4, 2])) == {2, 3}


def test_one_of_and_any_of_consts_are_members() -> None:
    for key in ("oneOf", "anyOf"):
        schema = {key: [{"const": "asc", "title": "Ascending"},
                        {"const": "desc", "title": "Descending"}]}
        assert set(_all(schema, "asc")) == {"desc"}
    mixed = {"anyOf": [{"enum": ["red", "green"]}, {"const": "blue"}, {"type": "null"}]}
    assert set(_all(mixed, "red", ["teal"])) == {"green", "blue"}


def test_const_and_a_single_member_give_none() -> None:
    with pytest.raises(KeyError):
        schema_alternative({"const": "v1"}, "v1", random.Random(0), ["v2"])
    with pytest.raises(KeyError):
        schema_alternative({"enum": ["only"]}, "only", random.Random(0), ["other"])


def test_enum_member_one_is_not_true() -> None:
    """JSON equality: True is not the integer 1, so it is another member; 1.0 is 1."""
    assert set(_all({"enum": [1, True, 1.0]}, 1)) == {True}


# -- 2. seen values ----------------------------------------------------------------------

def test_seen_values_like_the_original_come_first() -> None:
    free = {"type": "string"}
    seen = ["/tmp/scratch", "/home/dev/other", "/home/dev/proj/sub", "deploy the app",
            "2025-01-01"]
    # the most leading path components in common: same parent directory or below
    assert set(_all(free, "/home/dev/proj", seen)) == {"/home/dev/proj/sub"}
    # then a sibling (same depth) before a child
    assert set(_all(free, "/home/dev/app", seen)) == {"/home/dev/other"}
    # another ISO date for a date, never a path or a sentence
    assert set(_all(free, "2024-12-31", seen)) == {"2025-01-01"}


def test_identifiers_prefer_the_same_length_class_and_alphabet() -> None:
    free = {"type": "string"}
    sha = "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39"
    seen = ["feature", "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d", "12", "R204"]
    assert set(_all(free, sha, seen)) == {"9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d"}
    assert set(_all(free, "main", seen)) == {"feature"}


def test_seen_values_that_break_the_schema_or_the_type_are_skipped() -> None:
    schema = {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"}
    assert set(_all(schema, "ABC-0001", ["abc-0002", "ABC-12", "XYZ-9999", 7])) == {"XYZ-9999"}
    # "12" looks like a number but is a string: no integer parameter takes it
    assert set(_all({"type": "integer", "default": 9}, 10, ["12", 11.5])) == {9}


def test_numbers_seen_must_be_of_the_same_order_of_magnitude() -> None:
    schema = {"type": "integer", "minimum": 0}
    # 1733512345 (a timestamp) is no stand-in for 42; 7 is, but 58 is more alike
    assert set(_all(schema, 42, [1733512345, 7, 58])) == {58}
    assert set(_all(schema, 42, [1733512345, 7])) == {7}
    assert 1733512345 not in _all(schema, 42, [1733512345])


def test_seen_values_of_odd_originals_do_not_crash() -> None:
    """Blank text has no first word, and an int past str()'s 4300-digit limit still has
    an order of magnitude."""
    with pytest.raises(KeyError):
        schema_alternative({"type": "string"}, "   ", random.Random(0), ["  a b", "x y"])
    huge = 10**5000
    assert schema_alternative({"type": "integer"}, huge, random.Random(0), [huge + 7, 3]) == (
        huge + 7)


def test_seen_values_come_before_examples_and_defaults() -> None:
    schema = {"type": "string", "examples": ["Europe/London"], "default": "UTC"}
    assert set(_all(schema, "Asia/Tokyo", ["Europe/Paris"])) == {"Europe/Paris"}


# -- 3. examples and default -------------------------------------------------------------

def test_examples_and_default_without_history() -> None:
    schema = {"type": "string", "examples": ["Europe/London", "Asia/Tokyo"], "default": "UTC"}
    assert set(_all(schema, "Asia/Tokyo")) == {"Europe/London", "UTC"}
    assert set(_all(GIT_LOG["properties"]["max_count"], 5, [])) == {10}
    assert set(_all({"type": "string", "example": "b"}, "a")) == {"b"}


def test_non_finite_numbers_are_no_anchor() -> None:
    for original in (float("inf"), float("nan")):
        with pytest.raises(KeyError):
            schema_alternative({"type": "number"}, original, random.Random(0), [1.5])
    with pytest.raises(KeyError):  # 1e308 / 0.01 overflows: no grid to step on
        schema_alternative({"type": "number", "multipleOf": 0.01}, 1e308, random.Random(0))
    with pytest.raises(KeyError):  # a tenth of 5e-324 underflows to 0: no step
        schema_alternative({"type": "number"}, 5e-324, random.Random(0))


def test_huge_integers_step_exactly() -> None:
    """An integer beyond a float's range (2**1100) moves by exactly one to five."""
    big = 2**1100 + 1
    values = _all({"type": "integer"}, big, seeds=range(30))
    assert {v - big for v in values} <= {-5, -4, -3, -2, -1, 1, 2, 3, 4, 5}
    assert all(isinstance(v, int) for v in values)
    values = _all({"type": "integer", "multipleOf": 3}, 3 * 2**80, seeds=range(30))
    assert all(v % 3 == 0 and v != 3 * 2**80 for v in values)


# -- 4. formats --------------------------------------------------------------------------

def test_date_is_one_to_five_days_away() -> None:
    values = _all({"type": "string", "format": "date"}, "2025-03-01")
    shifts = {(date.fromisoformat(v) - date(2025, 3, 1)).days for v in values}
    assert shifts == {-5, -4, -3, -2, -1, 1, 2, 3, 4, 5}


def test_date_time_moves_the_day_and_keeps_the_time_and_offset() -> None:
    values = _all({"type": "string", "format": "date-time"}, "2025-03-01T10:15:00+02:00")
    assert {v[10:] for v in values} == {"T10:15:00+02:00"}
    assert len({v[:10] for v in values}) == 10


def test_time_moves_by_minutes_and_keeps_the_offset() -> None:
    values = _all({"type": "string", "format": "time"}, "23:30:00Z")
    assert all(v.endswith(":00Z") for v in values)
    assert "00:30:00Z" in values  # wraps past midnight


def test_email_uri_uuid_ipv4() -> None:
    emails = _all({"type": "string", "format": "email"}, "alice@example.com")
    assert all(e.endswith("@example.com") and e.startswith("alice") for e in emails)
    assert set(_all({"format": "uri"}, "https://api.example.com/items/42")) <= {
        f"https://api.example.com/items/{n}" for n in range(37, 48)}
    assert set(_all({"format": "uri"}, "https://example.com/docs/intro")) == {
        "https://example.com/docs"}
    uuids = _all({"type": "string", "format": "uuid"}, "123e4567-e89b-12d3-a456-426614174000")
    assert len(set(uuids)) == len(uuids)
    ips = _all({"type": "string", "format": "ipv4"}, "10.0.0.1")
    assert {ip.rpartition(".")[0] for ip in ips} == {"10.0.0"}


def test_format_without_an_anchor_gives_none() -> None:
    """A date for a null or malformed original would be invented, not nearby."""
    for original in (None, "tomorrow"):
        with pytest.raises(KeyError):
            schema_alternative({"type": ["string", "null"], "format": "date"}, original,
                               random.Random(0))


# -- 5. numbers, booleans, arrays --------------------------------------------------------

def test_integers_stay_inside_the_bounds_and_the_grid() -> None:
    schema = CREATE_EVENT["properties"]["duration_minutes"]
    values = _all(schema, 15)
    assert all(isinstance(v, int) and 15 < v <= 90 and v % 15 == 0 for v in values)
    assert set(_all({"type": "integer", "minimum": 1, "maximum": 3}, 1)) == {2, 3}
    assert set(_all({"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 3}, 2)) == {1}
    with pytest.raises(KeyError):
        schema_alternative({"type": "integer", "minimum": 4, "maximum": 4}, 4, random.Random(0))


def test_reals_move_by_a_tenth_of_their_magnitude() -> None:
    values = _all({"type": "number", "minimum": -90, "maximum": 90}, 48.8566)
    assert all(isinstance(v, float) and 43.8 < v < 53.9 for v in values)
    # whole steps, and no float noise in the digits
    assert all(abs(v - 48.8566 - round(v - 48.8566)) < 1e-9 for v in values)
    assert all(len(repr(v).partition(".")[2]) == 4 for v in values)
    values = _all({"type": "number", "multipleOf": 0.5, "minimum": 0}, 2.5)
    assert all(v >= 0 and (v * 2).is_integer() for v in values)


def test_booleans_flip() -> None:
    assert set(_all({"type": "boolean"}, True)) == {False}
    assert set(_all({"type": "boolean"}, False)) == {True}


def test_arrays_replace_one_item_by_the_item_schema() -> None:
    schema = {"type": "array", "items": {"enum": ["a", "b", "c", "d"]}, "uniqueItems": True}
    values = _all(schema, ["a", "b"])
    for v in values:
        assert len(v) == 2 and (v[0] == "a") != (v[1] == "b")
        assert len(set(v)) == 2
    assert {v[0] for v in values} > {"a"} and {v[1] for v in values} > {"b"}
    with pytest.raises(KeyError):
        schema_alternative(schema, [], random.Random(0))


# -- no source ---------------------------------------------------------------------------

def test_free_and_pattern_strings_without_a_source_give_none() -> None:
    for schema, original in [
        (READ_QUERY["properties"]["query"], "SELECT * FROM users"),
        (GET_CURRENT_TIME["properties"]["timezone"], "Europe/Paris"),
        ({"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"}, "ABC-0001"),
    ]:
        with pytest.raises(KeyError):
            schema_alternative(schema, original, random.Random(0), ["a sentence of text"])


def test_objects_give_none() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    with pytest.raises(KeyError):
        schema_alternative(schema, {"a": 1}, random.Random(0), [2, "x"])


def test_broken_schemas_give_none() -> None:
    with pytest.raises(KeyError):
        schema_alternative({"type": "no-such-type"}, "x", random.Random(0), ["y"])
    with pytest.raises(KeyError):  # a $ref into the tool's $defs, which this schema lacks
        schema_alternative({"$ref": "#/$defs/Color"}, "red", random.Random(0), ["blue"])


# -- null --------------------------------------------------------------------------------

def test_nullable_parameters_never_get_null() -> None:
    date_or_null = {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}],
                    "default": None}
    assert all(v.startswith("2025-") for v in _all(date_or_null, "2025-06-02"))
    assert set(_all({"type": ["integer", "null"], "maximum": 2}, 1)) == {-4, -3, -2, -1, 0, 2}
    assert set(_all({"enum": ["a", None]}, None)) == {"a"}
    # a null original takes a seen value of any shape the schema accepts
    room = CREATE_EVENT["properties"]["room"]
    assert set(_all(room, None, ["R204", "2025-06-01", None])) == {"R204"}
    assert set(_all({"enum": ["a", None]}, "b")) == {"a"}
    with pytest.raises(KeyError):
        schema_alternative({"enum": ["a", None]}, "a", random.Random(0))


# -- determinism -------------------------------------------------------------------------

def test_a_seed_always_gives_the_same_value_and_seeds_differ() -> None:
    for tool, args in CASES:
        for param, original in args.items():
            schema = tool["properties"][param]
            try:
                first = _all(schema, original, SEEN, range(20))
            except KeyError:
                continue
            assert _all(schema, original, SEEN, range(20)) == first
    assert len(set(_all({"type": "string", "format": "date"}, "2025-03-01", [], range(20)))) > 3


# -- seen_values -------------------------------------------------------------------------

def test_seen_values_are_the_scalar_leaves_in_order_without_duplicates() -> None:
    history = [
        {"city": "Paris", "days": 3},
        {"forecast": [{"day": "2025-06-01", "ok": True, "note": None},
                      {"day": "2025-06-02", "city": "Paris", "text": "x" * 201}]},
        {"days": 3, "blank": "  ", "nan": float("nan"), "ratio": 0.5, "id": 3.0},
    ]
    assert seen_values(history) == ["Paris", 3, "2025-06-01", "2025-06-02", 0.5, 3.0]
    assert seen_values([]) == []

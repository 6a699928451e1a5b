"""The detector of a tool call written as text: a reply whose content invokes an offered
tool instead of calling it (docs/tool-call-outcomes.md).

Servers without a tool-call parser for a model return its call as JSON text in
`content`; small models write `get_weather(city="Paris")` or a Python snippet. A harness
that reads such a reply as a final answer records "the model called no tool". The forms
recognised are the labelling rule's (a)-(c): a JSON object naming an offered tool,
function-call syntax with a value or as a statement, and the `functions.NAME:` and ReAct
`Action:` prefixes. It was validated on labelled examples written before it
(tests/fixtures/leaked_*.jsonl; bench/bench_leaked.py; agreement in the docs).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agentprop.core import ToolSpec

LeakForm = str
"""json, call_syntax, functions_prefix or react."""

_NAME_KEYS = ("name", "function", "tool", "tool_name", "function_name")
_ARG_KEYS = ("arguments", "parameters", "args", "input", "tool_input", "params")
_DECODER = json.JSONDecoder()
_DEFINITION = re.compile(r"(?:\bdef|\bfunction|\basync\s+def)\s+$")
_REACT = re.compile(r"^[ \t]*\**Action\**[ \t]*:[ \t]*`?(?P<name>[\w.-]+)`?[ \t]*$"
                    r"(?P<rest>(?:\n.*){0,3})", re.M | re.I)
_REACT_INPUT = re.compile(r"^[ \t]*\**Action[ \t]*Input\**[ \t]*:", re.M | re.I)
_STATEMENT_BEFORE = re.compile(r"(?:^|\n)[ \t]*(?:>>>[ \t]*)?(?:[\w.\[\]]+[ \t]*=[ \t]*)?"
                               r"(?:await[ \t]+|print\([ \t]*|return[ \t]+)?$")


@dataclass(frozen=True)
class LeakedCall:
    """One invocation of an offered tool found in a reply's text."""

    name: str
    """The offered tool it invokes."""
    arguments: dict[str, Any] | None
    """Its arguments, when they could be read as a JSON object (None: they could not)."""
    form: LeakForm
    """How it was written: json, call_syntax, functions_prefix or react."""
    start: int
    """Where it starts in the text (the order of invocations)."""


def leaked_calls(text: str | None, tools: Sequence[ToolSpec]) -> list[LeakedCall]:
    """Every invocation of a tool in `tools` written as text in `text`, in text order
    (empty when there is none: a tool named in prose, a definition, an unknown name)."""
    if not text or not tools:
        return []
    specs = {t.name: t for t in tools}
    found = [*_json_calls(text, specs), *_prefix_calls(text, specs), *_react_calls(text, specs),
             *_syntax_calls(text, specs)]
    found.sort(key=lambda c: c.start)
    out: list[LeakedCall] = []
    ends: list[int] = []
    for c in found:  # one invocation found by two forms counts once (the first form)
        if any(abs(c.start - s) < 2 for s in ends):
            continue
        out.append(c)
        ends.append(c.start)
    return out


# -- (a) JSON ---------------------------------------------------------------------------

def _json_values(text: str) -> Iterable[tuple[int, Any, int]]:
    """(start, value, end) of every JSON object or list that decodes at a `{` or `[`
    not inside a value already decoded."""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "{[":
            try:
                value, end = _DECODER.raw_decode(text, i)
            except ValueError:
                i += 1
                continue
            yield i, value, end
            i = end
        else:
            i += 1


def _arguments(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


def _named_call(obj: dict[str, Any], specs: dict[str, ToolSpec]) -> tuple[str, Any] | None:
    """(tool, arguments) when `obj` names an offered tool (rule (a))."""
    for key in _NAME_KEYS:
        value = obj.get(key)
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            inner = value  # {"function": {"name": ..., "arguments": ...}}
            if inner["name"] in specs:
                args = next((inner[k] for k in _ARG_KEYS if k in inner), None)
                return inner["name"], args
        if isinstance(value, str) and value in specs:
            args = next((obj[k] for k in _ARG_KEYS if k in obj), None)
            return value, args
    if len(obj) == 1:
        (key, value), = obj.items()
        if key in specs and isinstance(value, dict):
            return key, value
    return None


def _json_calls(text: str, specs: dict[str, ToolSpec]) -> list[LeakedCall]:
    out = []
    for start, value, _ in _json_values(text):
        items = value if isinstance(value, list) else [value]
        for k, obj in enumerate(items):
            if isinstance(obj, dict) and (hit := _named_call(obj, specs)) is not None:
                name, args = hit
                out.append(LeakedCall(name, _arguments(args) if args is not None else {},
                                      "json", start + k))
    return out


# -- (c) prefixes -----------------------------------------------------------------------

def _json_after(text: str, pos: int) -> dict[str, Any] | None:
    rest = text[pos:].lstrip()
    rest = rest.removeprefix("```json").removeprefix("```").lstrip()
    if not rest.startswith("{"):
        return None
    try:
        value, _ = _DECODER.raw_decode(rest)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _prefix_calls(text: str, specs: dict[str, ToolSpec]) -> list[LeakedCall]:
    out = []
    for m in re.finditer(r"functions\.([\w-]+):", text):
        if m.group(1) in specs:
            out.append(LeakedCall(m.group(1), _json_after(text, m.end()),
                                  "functions_prefix", m.start()))
    return out


def _react_calls(text: str, specs: dict[str, ToolSpec]) -> list[LeakedCall]:
    out = []
    for m in _REACT.finditer(text):
        name = m.group("name").removesuffix("()")
        inp = _REACT_INPUT.search(m.group("rest"))
        if name in specs and inp is not None:
            at = m.start("rest") + inp.end()
            out.append(LeakedCall(name, _json_after(text, at), "react", m.start()))
    return out


# -- (b) call syntax --------------------------------------------------------------------

def _closing(text: str, open_at: int) -> int | None:
    """Index of the parenthesis closing the one at `open_at` (strings respected)."""
    depth, quote, i = 0, "", open_at
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _call_arguments(inner: str, spec: ToolSpec) -> tuple[dict[str, Any] | None, bool]:
    """(arguments, holds a value): literal positional arguments are mapped to the
    schema's properties in order; None when the list is not literal Python."""
    try:
        node = ast.parse(f"f({inner})", mode="eval").body
    except SyntaxError:
        return None, bool(inner.strip())
    assert isinstance(node, ast.Call)
    props = list((spec.parameters.get("properties") or {}).keys())
    args: dict[str, Any] = {}
    valued = False
    try:
        for i, a in enumerate(node.args):
            if isinstance(a, ast.Name):
                return None, valued
            args[props[i] if i < len(props) else f"arg{i}"] = ast.literal_eval(a)
            valued = True
        for kw in node.keywords:
            valued = True
            if kw.arg is None:
                return None, True
            args[kw.arg] = ast.literal_eval(kw.value)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None, valued or bool(node.keywords)
    return args, valued


def _syntax_calls(text: str, specs: dict[str, ToolSpec]) -> list[LeakedCall]:
    out = []
    names = "|".join(re.escape(n) for n in sorted(specs, key=len, reverse=True))
    for m in re.finditer(rf"(?<![\w-])(?:[A-Za-z_]\w*\.)?({names})\s*\(", text):
        before = text[:m.start()]
        if _DEFINITION.search(before):
            continue
        close = _closing(text, m.end() - 1)
        if close is None:
            continue
        args, valued = _call_arguments(text[m.end():close], specs[m.group(1)])
        after = text[close + 1:].split("\n", 1)[0].strip()
        statement = bool(_STATEMENT_BEFORE.search(before)) and after in ("", ")", ";")
        in_code = before.count("```") % 2 == 1
        if valued or statement or in_code:
            out.append(LeakedCall(m.group(1), args, "call_syntax", m.start()))
    return out

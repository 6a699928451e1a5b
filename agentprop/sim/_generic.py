"""The simulated agent on tools it does not know (a foreign MCP server, the user's own
question): no gold plan and no reference answer, so it plans the way an LLM does from the
tool list alone. It picks the offered tool the question is most about and fills its
arguments from the question (`_toolfit`), makes that one call, and answers with a sentence
quoting the result. The profile's stated behaviour is kept: it may answer without tools,
retry a failed call, notice an observation that visibly does not match its request (an
error, or an echo of an argument it took from the question with another value) and
re-query with its own arguments, let a mismatch through, err on a clean result, add a
false alarm, abstain or invent after a failure, and heed an interceptor warning.

Every draw is keyed by a hash of the question (there is no task id) through the suite
policy's `draw`, with the same purposes, so the same request gets the same response, in
process or over HTTP. Like the suite policy it reads only the messages: its own arguments
come from the question, never from its history, which may show the arguments an injection
rewrote.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from agentprop.core import Message, ModelOutput, ToolCall, ToolSpec
from agentprop.domains import is_error, is_failure
from agentprop.sim._common import (
    CALL_ID,
    ECHO_CONTAINERS,
    FAILURE_ABSTAIN,
    FALSE_ALARM_TEXT,
    REFUSAL,
    UNKNOWN_ANSWER,
    Observation,
    call_id,
    draw,
    norm,
    parse_obs,
    perturb,
    styled,
    warning_index,
)
from agentprop.sim._profiles import SimProfile
from agentprop.sim._toolfit import Fit, best_fit, fill

GUESS = "Without looking it up, I'd say it is {n}."
"""A no-tool answer to a question with no reference answer: made up, so always wrong."""
INVENTED = "The {tool} result for {args} is {n}."
"""The answer invented after a failed call (the suite's `invent` perturbs a reference)."""
RECHECK_ATTEMPT = 2  # as in the suite policy: a re-query after an interceptor warning
_MAX_LEAVES = 8
_MAX_TEXT = 300
_TRANSIENT = re.compile(r"time[sd]? ?out|timed out|rate.?limit|too many requests|"
                        r"temporarily unavailable|service unavailable|server error|"
                        r"\b(?:429|502|503|504)\b", re.IGNORECASE)
_ERROR_TEXT = re.compile(r"^\s*(?:error|exception|traceback|failed|failure|invalid)\b",
                         re.IGNORECASE)


def query_of(messages: list[Message]) -> str | None:
    """The question: the first user message (a system message may precede it)."""
    return next((m.content for m in messages if m.role == "user" and m.content), None)


def query_key(query: str) -> str:
    """The draws' key in place of a task id: stable in the question's words only."""
    text = " ".join(query.casefold().split())
    return "q:" + hashlib.sha256(text.encode()).hexdigest()[:16]


def _texts(content: Any) -> str | None:
    """The joined text of an MCP content list (``[{"type": "text", "text": ...}]``)."""
    if isinstance(content, list) and content and all(
            isinstance(c, dict) and c.get("type") == "text" for c in content):
        return "\n".join(str(c.get("text", "")) for c in content)
    return None


def unwrap(obs: Observation) -> Observation:
    """A tool result as its content: a raw MCP ``CallToolResult`` (``content`` list,
    ``isError``, ``structuredContent``) or a bare content list becomes the observation its
    text (or structured content) is, so a client that forwards MCP results verbatim is
    read like one that forwards their text."""
    if isinstance(obs.get("structuredContent"), dict) and not obs.get("isError"):
        return dict(obs["structuredContent"])
    text = _texts(obs.get("content")) if set(obs) <= {"content", "isError", "_meta",
                                                     "structuredContent"} else None
    if text is None and set(obs) == {"value"}:
        text = _texts(obs["value"])
    if text is None:
        return obs
    if obs.get("isError") is True:
        return {"isError": True, "text": text}
    return parse_obs(text)


def error_of(obs: Observation) -> str | None:
    """What went wrong, when the observation is an error: agentprop's ``{"error": {...}}``,
    an ``error`` string, an MCP ``isError`` result, or text that starts like an error."""
    if is_error(obs):
        err = obs["error"]
        return str(err.get("message") or err.get("type") or "error")
    if isinstance(obs.get("error"), str) and obs["error"]:
        return str(obs["error"])
    text = obs.get("text")
    if obs.get("isError") is True:
        return _compact(str(text or obs.get("content") or "error"))
    if isinstance(text, str) and _ERROR_TEXT.match(text):
        return _compact(text)
    return None


def failed(obs: Observation) -> bool:
    """A failed call (the tool never answered): a transient error or an empty result, the
    cases a retry of the same call can fix."""
    if obs in ({}, {"text": ""}, {"value": None}, {"value": []}, {"value": ""}):
        return True
    if is_error(obs):
        return is_failure(obs)
    err = error_of(obs)
    return err is not None and _TRANSIENT.search(err) is not None


def _echo(obs: Observation, key: str) -> tuple[tuple[str, ...], Any] | None:
    """Where `obs` echoes argument `key` and what it echoes: at its top level or in a
    request container (as the suite reads echoes), or nested by the name's parts
    (``source_timezone`` as ``source.timezone``, mcp-server-time's convert_time shape)."""
    if key in obs:
        return (key,), obs[key]
    for c in ECHO_CONTAINERS:
        inner = obs.get(c)
        if isinstance(inner, dict) and key in inner:
            return (c, key), inner[key]
    head, _, rest = key.partition("_")
    if rest and isinstance(obs.get(head), dict) and rest in obs[head]:
        return (head, rest), obs[head][rest]
    return None


def mismatch_of(obs: Observation, fit: Fit) -> str | None:
    """Why the observation visibly does not answer the call the question asks for (None if
    it looks right): an error or empty result, or an echo of an argument the question gave
    with another value."""
    err = error_of(obs)
    if err is not None or failed(obs):
        kind = obs["error"].get("type", "error") if is_error(obs) else "error"
        return f"the tool returned an error ({kind})" if err else "the tool returned nothing"
    for k, want in fit.arguments.items():
        hit = _echo(obs, k) if k in fit.from_query else None
        if hit is not None and norm(hit[1]) != norm(want):
            return f"it is for {k} {hit[1]!r}, not {want!r}"
    return None


def _restored(obs: Observation, fit: Fit) -> Observation:
    """The observation with each mismatching echo of a question argument set back to the
    value asked for: what an agent that lets the mismatch pass but keeps to the question
    reports (it cannot know the values the right call would have returned)."""
    out = json.loads(json.dumps(obs, default=str))
    for k in fit.from_query:
        hit = _echo(out, k)
        if hit is not None:
            node = out
            for part in hit[0][:-1]:
                node = node[part]
            node[hit[0][-1]] = fit.arguments[k]
    return dict(out)


def _compact(text: str, limit: int = _MAX_TEXT) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _leaves(node: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(node, list):
        if all(not isinstance(v, dict | list) for v in node):
            yield path or "values", _compact(", ".join(_scalar(v) for v in node), 120)
        else:
            yield f"{path or 'results'} count", str(len(node))
            if node:
                yield from _leaves(node[0], f"{path or 'results'}[0]")
    else:
        yield path or "value", _compact(_scalar(node), 120)


def summary(tool: str, obs: Observation) -> str:
    """A sentence built from the result's main content: the error, the text, or its first
    scalar values by key."""
    err = error_of(obs)
    if err is not None:
        return f"The {tool} call returned an error: {err}."
    if set(obs) == {"text"}:
        return f"{tool} returned: {_compact(str(obs['text']))}"
    pairs = list(_leaves(obs.get("value") if set(obs) == {"value"} else obs, ""))
    shown = "; ".join(f"{k}: {v}" for k, v in pairs[:_MAX_LEAVES])
    return f"{tool} returned {shown}."


@dataclass
class _Seen:
    """What the conversation shows of the agent's own calls."""

    calls: int = 0
    requeried: bool = False  # a call with attempt > 0 was made
    names: list[str] = field(default_factory=list)
    prior: list[Observation] = field(default_factory=list)  # tool results before any call
    last: tuple[int, str, dict[str, Any], Observation] | None = None  # attempt, name, args, obs
    since_warning: bool = False  # a result arrived after the interceptor warning


def _read(messages: list[Message], warned_at: int | None) -> _Seen:
    seen = _Seen()
    calls: dict[str, tuple[int, str, dict[str, Any]]] = {}
    latest = ""
    for i, m in enumerate(messages):
        if m.role == "assistant":
            for c in m.tool_calls:
                hit = CALL_ID.match(c.id or "")
                attempt = int(hit.group(2)) if hit else min(seen.calls, 1)
                seen.calls += 1
                seen.requeried |= attempt > 0
                seen.names.append(c.name)
                latest = c.id or f"#{seen.calls}"
                calls[latest] = (attempt, c.name, dict(c.arguments))
        elif m.role == "tool":
            obs = unwrap(parse_obs(m.content))
            if not calls:
                seen.prior.append(obs)
                continue
            attempt, name, args = calls.get(m.tool_call_id or "", calls[latest])
            seen.last = (attempt, name, args, obs)
            seen.since_warning |= warned_at is not None and i > warned_at
    return seen


def _made_up(p: SimProfile, seed: int, key: str, purpose: str) -> int:
    return 10 + int(draw(p, seed, key, 0, purpose) * 90)


def _call(fit: Fit, attempt: int) -> ToolCall:
    return ToolCall(id=call_id(0, attempt), name=fit.tool.name, arguments=dict(fit.arguments))


def decide_generic(messages: list[Message], tools: list[ToolSpec], p: SimProfile,
                   seed: int) -> ModelOutput:
    """The next output for a question that is no suite task, with `tools` offered."""
    query = query_of(messages)
    if not query:
        return ModelOutput(text=UNKNOWN_ANSWER)
    key = query_key(query)
    warned_at = warning_index(messages)
    seen = _read(messages, warned_at)
    fit = best_fit(query, tools, seen.prior)
    if warned_at is not None:
        return _after_warning(messages[:warned_at], key, fit, seen, p, seed)
    if seen.calls == 0:
        if fit is None:
            return ModelOutput(text=UNKNOWN_ANSWER)  # no offered tool fits the question
        if draw(p, seed, key, 0, "no_tool") < p.p_no_tool:
            if draw(p, seed, key, 0, "refuse") < p.p_refuse:
                return ModelOutput(text=REFUSAL)
            guess = GUESS.format(n=_made_up(p, seed, key, "guess"))
            return ModelOutput(text=styled(guess, p, []))
        intro = None if p.verbosity == "terse" else f"I'll call {fit.tool.name} to find out."
        return ModelOutput(text=intro, tool_calls=[_call(fit, 0)])
    if fit is not None and seen.last is not None and seen.last[0] == 0 and not seen.requeried:
        obs = seen.last[3]
        if failed(obs):
            if draw(p, seed, key, 0, "retry") < p.p_retry:
                note = None if p.verbosity == "terse" else (
                    f"The call to {fit.tool.name} failed; I'll try it again.")
                return ModelOutput(text=note, tool_calls=[_call(fit, 1)])
        else:
            why = mismatch_of(obs, fit)
            if why and draw(p, seed, key, 0, "notice") < p.p_notice:
                note = (f"The result of {fit.tool.name} looks wrong: {why}."
                        " I'll query again with the right arguments.")
                return ModelOutput(text=note, tool_calls=[_call(fit, 1)])
    return ModelOutput(text=_final(key, fit, seen, p, seed))


def _after_warning(before: list[Message], key: str, fit: Fit | None, seen: _Seen,
                   p: SimProfile, seed: int) -> ModelOutput:
    """The turn(s) after an interceptor warning, as in the suite policy: heeding (one draw
    per episode), re-query once if the result held does not match the question, look it up
    if it answered without tools, then answer anew; not heeding, repeat the answer."""
    if draw(p, seed, key, 0, "heed_warning") >= p.p_heed_warning:
        previous = next((m.content for m in reversed(before)
                         if m.role == "assistant" and not m.tool_calls and m.content), None)
        return ModelOutput(text=previous or _final(key, fit, seen, p, seed))
    if (fit is not None and seen.last is not None and not seen.since_warning
            and mismatch_of(seen.last[3], fit)):
        text = None if p.verbosity == "terse" else (
            f"Re-checking: the result of {fit.tool.name} does not match the question, so"
            " I'll call it again with the arguments the question asks for.")
        return ModelOutput(text=text, tool_calls=[_call(fit, RECHECK_ATTEMPT)])
    if fit is not None and seen.calls == 0:
        text = None if p.verbosity == "terse" else f"Let me look this up with {fit.tool.name}."
        return ModelOutput(text=text, tool_calls=[_call(fit, 0)])
    return ModelOutput(text=_final(key, fit, seen, p, seed, tag="recheck"))


def _final(key: str, fit: Fit | None, seen: _Seen, p: SimProfile, seed: int,
           tag: str = "") -> str:
    """The answer from the latest result. `tag` names a fresh answer attempt (after a
    warning), which draws its own outcomes, as in the suite policy."""
    if seen.last is None:
        return UNKNOWN_ANSWER
    _, name, args, obs = seen.last
    if failed(obs):
        if draw(p, seed, key, 0, "abstain" + tag) < p.p_abstain:
            return FAILURE_ABSTAIN.format(tool=name)
        given = ", ".join(f"{k} {_scalar(v)}" for k, v in args.items()) or "your request"
        made_up = INVENTED.format(tool=name, args=given, n=_made_up(p, seed, key, "invent"))
        return styled(made_up, p, seen.names)
    why = mismatch_of(obs, fit) if fit is not None else None
    if why and draw(p, seed, key, 0, "correct_anyway" + tag) >= p.p_correct_anyway:
        answer = summary(name, obs)  # the bad observation propagates
    else:
        answer = summary(name, _restored(obs, fit) if why and fit is not None else obs)
        if draw(p, seed, key, 0, "base_error" + tag) < p.base_error:
            answer = perturb(answer)
    text = styled(answer, p, seen.names)
    if draw(p, seed, key, 0, "false_alarm" + tag) < p.p_false_alarm:
        text = f"{text} {FALSE_ALARM_TEXT}"
    return text


def forced_fit(messages: list[Message], tool: ToolSpec) -> ToolCall | None:
    """The call a forced `tool_choice` of `tool` makes on a question that is no suite
    task: the tool's arguments filled from the question (None if it cannot be filled)."""
    query = query_of(messages)
    if not query:
        return None
    fit = fill(query, tool, _read(messages, None).prior)
    if fit is None:
        return None
    return ToolCall(id="call_sim_forced", name=tool.name, arguments=dict(fit.arguments))

"""The simulated agent's policy: a pure function of (messages, tools, profile, seed, suite).

It identifies the task by the first user message, follows the task's gold plan one call
per turn, and looks only at the messages it received: it notices a corruption the way a
real agent could (an observation echoes an argument that differs from what the query
asked, or is an error), never by reading injection or counterfactual data. Every random
decision comes from a hash of (profile, seed, task id, step, purpose), so the same request
always gets the same response, in-process or over HTTP.

A user message starting with the interceptor's warning prefix (warn mode) is read like a
real agent would read it: with probability `p_heed_warning` the agent re-checks its
observations and re-queries what does not match the query, otherwise it repeats its answer.

A question that is no suite task, asked with tools offered (a foreign MCP server), goes to
the generic policy (`_generic.py`), which fits one of the offered tools to the question.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from agentprop.core import Message, ModelOutput, Task, ToolCall, ToolSpec, Usage
from agentprop.domains import is_failure
from agentprop.sim._common import (
    CALL_ID,
    FAILURE_ABSTAIN,
    FALSE_ALARM_TEXT,
    REFUSAL,
    UNKNOWN_ANSWER,
    Observation,
    call_id,
    draw,
    echoed,
    invent,
    norm,
    parse_obs,
    perturb,
    styled,
    warning_index,
)
from agentprop.sim._generic import decide_generic
from agentprop.sim._profiles import SimProfile

RenderFn = Callable[[Task, list[Observation]], str]

def is_error_obs(obs: Observation) -> bool:
    return isinstance(obs.get("error"), dict)


def mismatch(obs: Observation, task: Task, step: int) -> str | None:
    """Why observation `obs` for gold step `step` visibly does not answer the request
    (None if it looks right). Compares echoed arguments with the ones the query asks for:
    the gold call's arguments, restricted to ``task.query_entities`` keys when
    the task names them."""
    if is_error_obs(obs):
        err = obs["error"]
        return f"the tool returned an error ({err.get('type', 'error')})"
    if step >= len(task.gold_plan):
        return None
    expected = task.gold_plan[step].arguments
    entities = task.query_entities
    keys = [k for k in expected if not entities or k in entities]
    for k in keys:
        found, got = echoed(obs, k)
        if found and norm(got) != norm(expected[k]):
            return f"it is for {k} {got!r}, not {expected[k]!r}"
    return None


@dataclass
class _History:
    obs: dict[int, Observation] = field(default_factory=dict)
    requeried: set[int] = field(default_factory=set)
    last: tuple[int, int, Observation] | None = None
    called: int = 0  # tool calls seen
    max_step: int = -1
    tools_used: list[str] = field(default_factory=list)
    since_warning: set[int] = field(default_factory=set)  # steps observed after a warning


def _read_history(messages: list[Message], task: Task, warned_at: int | None = None) -> _History:
    h = _History()
    where: dict[str, tuple[int, int]] = {}
    for i, m in enumerate(messages):
        if m.role == "assistant":
            for c in m.tool_calls:
                h.called += 1
                h.tools_used.append(c.name)
                hit = CALL_ID.match(c.id or "")
                if hit:
                    step, attempt = int(hit.group(1)), int(hit.group(2))
                else:  # an id we did not mint: a repeat of the last step, or the next one
                    prev = h.max_step
                    if (prev >= 0 and prev < len(task.gold_plan)
                            and c.name == task.gold_plan[prev].name
                            and (prev + 1 >= len(task.gold_plan)
                                 or task.gold_plan[prev + 1].name != c.name)):
                        step, attempt = prev, 1
                    else:
                        step, attempt = prev + 1, 0
                where[c.id] = (step, attempt)
                h.max_step = max(h.max_step, step)
        elif m.role == "tool" and m.tool_call_id in where:
            step, attempt = where[m.tool_call_id]
            obs = parse_obs(m.content)
            h.obs[step] = obs
            if attempt > 0:
                h.requeried.add(step)
            if warned_at is not None and i > warned_at:
                h.since_warning.add(step)
            h.last = (step, attempt, obs)
    return h


def _estimate_usage(messages: list[Message], tools: list[ToolSpec], out: ModelOutput) -> Usage:
    n_in = sum(len(m.content or "") + sum(len(json.dumps(c.arguments)) for c in m.tool_calls)
               for m in messages)
    n_in += sum(len(t.name) + len(t.description) + len(json.dumps(t.parameters)) for t in tools)
    n_out = len(out.text or "") + sum(len(c.name) + len(json.dumps(c.arguments))
                                      for c in out.tool_calls)
    return Usage(input_tokens=n_in // 4 + 1, output_tokens=n_out // 4 + 1)


def _call(task: Task, step: int, attempt: int) -> ToolCall:
    g = task.gold_plan[step]
    return ToolCall(id=call_id(step, attempt), name=g.name, arguments=dict(g.arguments))


def decide(
    messages: list[Message],
    tools: list[ToolSpec],
    profile: SimProfile,
    seed: int,
    task: Task | None,
    render: RenderFn | None,
    forced: ToolCall | None = None,
) -> ModelOutput:
    """The simulated agent's next output. `task` is the task whose query opens the
    conversation (None: unknown query); `render` is its generator's `render_answer`.
    `forced` is the call a forced `tool_choice` makes it emit instead, unless the policy
    already calls that tool (a grammar-constrained server does the same)."""
    out = _decide(messages, tools, profile, seed, task, render)
    if forced is not None and not any(c.name == forced.name for c in out.tool_calls):
        out = ModelOutput(tool_calls=[forced])
    out.usage = _estimate_usage(messages, tools, out)
    return out


def _decide(
    messages: list[Message],
    tools: list[ToolSpec],
    p: SimProfile,
    seed: int,
    task: Task | None,
    render: RenderFn | None,
) -> ModelOutput:
    if (task is None or not task.gold_plan) and tools:
        # tools it does not know, or a user's own question (`run --tasks`: no gold plan)
        return decide_generic(messages, tools, p, seed)
    if task is None or render is None:
        return ModelOutput(text=UNKNOWN_ANSWER)
    offered = {t.name for t in tools}
    plan = task.gold_plan
    warned_at = warning_index(messages)
    h = _read_history(messages, task, warned_at)

    def can_call(step: int) -> bool:
        return step < len(plan) and plan[step].name in offered

    if warned_at is not None:
        return _after_warning(messages[:warned_at], task, h, p, seed, render, can_call)

    if h.called == 0:
        if not can_call(0) or draw(p, seed, task.id, 0, "no_tool") < p.p_no_tool:
            if draw(p, seed, task.id, 0, "refuse") < p.p_refuse:
                return ModelOutput(text=REFUSAL)
            return ModelOutput(text=styled(perturb(task.reference_answer), p, []))
        intro = None if p.verbosity == "terse" else f"I'll call {plan[0].name} to find out."
        return ModelOutput(text=intro, tool_calls=[_call(task, 0, 0)])

    turn = h.called  # distinct per turn: one call per turn
    if h.last is not None and is_failure(h.last[2]):
        step, attempt, obs = h.last
        if (attempt == 0 and step not in h.requeried and can_call(step)
                and draw(p, seed, task.id, step, "retry") < p.p_retry):
            what = obs["error"].get("type", "error") if obs else "empty result"
            note = None if p.verbosity == "terse" else (
                f"The call to {plan[step].name} failed ({what}); I'll try it again.")
            return ModelOutput(text=note, tool_calls=[_call(task, step, 1)])
    elif h.last is not None:
        step, attempt, obs = h.last
        why = mismatch(obs, task, step)
        if (why and attempt == 0 and step not in h.requeried and can_call(step)
                and draw(p, seed, task.id, step, "notice") < p.p_notice):
            note = (f"The result of {plan[step].name} looks wrong: {why}."
                    " I'll query again with the right arguments.")
            return ModelOutput(text=note, tool_calls=[_call(task, step, 1)])
    nxt = h.max_step + 1
    if can_call(nxt):
        text: str | None = None
        if p.verbosity != "terse":
            text = f"Next I'll call {plan[nxt].name}."
        saw_bad = h.last is not None and mismatch(h.last[2], task, h.last[0]) is not None
        p_unc = min(1.0, 2 * p.p_uncertain_words) if saw_bad else p.p_uncertain_words
        if draw(p, seed, task.id, turn, "uncertain") < p_unc:
            text = ("The previous result looks wrong or invalid, but I'll continue. "
                    + (text or "")).strip()
        return ModelOutput(text=text, tool_calls=[_call(task, nxt, 0)])
    return ModelOutput(text=_final(task, h, p, seed, render))


RECHECK_ATTEMPT = 2  # call id attempt of a re-query made after an interceptor warning


def _after_warning(
    before: list[Message],
    task: Task,
    h: _History,
    p: SimProfile,
    seed: int,
    render: RenderFn,
    can_call: Callable[[int], bool],
) -> ModelOutput:
    """The turn(s) after an interceptor warning. Heeding (one draw per episode), the agent
    re-issues, once each and one per turn, the gold calls whose observation does not match
    the query (the `notice` test), finishes the plan if it had not (an agent that answered
    without tools looks things up now) and answers anew from what it then holds. Not
    heeding, it repeats the answer the warning held back. Its re-check text names no cause,
    so the interceptor's L2 after a warning reads doubt, not the re-check itself."""
    if draw(p, seed, task.id, 0, "heed_warning") >= p.p_heed_warning:
        previous = next((m.content for m in reversed(before)
                         if m.role == "assistant" and not m.tool_calls and m.content), None)
        return ModelOutput(text=previous or _final(task, h, p, seed, render))
    plan = task.gold_plan
    pending = [s for s in sorted(h.obs) if s < len(plan) and s not in h.since_warning
               and can_call(s) and mismatch(h.obs[s], task, s)]
    if pending:
        step = pending[0]
        text = None if p.verbosity == "terse" else (
            f"Re-checking: the result of {plan[step].name} does not match the question, so"
            " I'll call it again with the arguments the question asks for.")
        return ModelOutput(text=text, tool_calls=[_call(task, step, RECHECK_ATTEMPT)])
    nxt = h.max_step + 1
    if can_call(nxt):
        text = None if p.verbosity == "terse" else f"Let me look this up with {plan[nxt].name}."
        return ModelOutput(text=text, tool_calls=[_call(task, nxt, 0)])
    return ModelOutput(text=_final(task, h, p, seed, render, tag="recheck"))


def _final(task: Task, h: _History, p: SimProfile, seed: int, render: RenderFn,
           tag: str = "") -> str:
    """The answer from the observations held. `tag` names a fresh answer attempt (after a
    warning), which draws its own `correct_anyway` and `base_error` outcomes."""
    steps = sorted(s for s in h.obs if s < len(task.gold_plan))
    observations = [h.obs[s] for s in steps]
    failed = [s for s in steps if is_failure(h.obs[s])]
    if failed:
        if draw(p, seed, task.id, 0, "abstain" + tag) < p.p_abstain:
            return FAILURE_ABSTAIN.format(tool=task.gold_plan[failed[0]].name)
        return styled(invent(task.reference_answer), p, h.tools_used)
    corrupted = any(mismatch(h.obs[s], task, s) for s in steps)
    if corrupted and draw(p, seed, task.id, 0, "correct_anyway" + tag) >= p.p_correct_anyway:
        answer = render(task, observations)  # the bad observation propagates
    else:
        answer = task.reference_answer if corrupted else render(task, observations)
        if draw(p, seed, task.id, 0, "base_error" + tag) < p.base_error:
            answer = perturb(answer)
    text = styled(answer, p, h.tools_used)
    if draw(p, seed, task.id, 0, "false_alarm" + tag) < p.p_false_alarm:
        text = f"{text} {FALSE_ALARM_TEXT}"
    return text

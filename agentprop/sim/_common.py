"""What the suite policy and the generic policy share: the draws, the call ids, the fixed
texts, how an answer is made wrong, styled and how a tool message is read. In a module of
its own so that the generic policy (`_generic.py`) and the suite policy (`_policy.py`),
which calls it, import it without an import cycle."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import date, timedelta
from typing import Any

from agentprop.agent import WARNING_PREFIX
from agentprop.core import Message
from agentprop.sim._profiles import SimProfile

Observation = dict[str, Any]

UNKNOWN_ANSWER = "I don't know."
REFUSAL = "I'm sorry, but I can't look that up reliably right now, so I can't answer."
FALSE_ALARM_TEXT = ("(Something in the tool result looks off to me, so you may want to"
                    " double-check this.)")
"""The hedge a profile adds with probability `p_false_alarm` (no interceptor keyword)."""
FAILURE_ABSTAIN = "The {tool} lookup failed, so I can't give you a reliable answer right now."
"""What a profile says when it abstains after a failed call (probability `p_abstain`)."""


CALL_ID = re.compile(r"^call_sim_(\d+)_(\d+)$")
ECHO_CONTAINERS = ("query", "request", "arguments", "args", "input", "params")


def norm(value: Any) -> Any:
    """`value` in the form two echoes of one argument compare equal in (case, spacing and
    int/float aside)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return " ".join(value.casefold().split())
    return json.dumps(value, sort_keys=True, default=str)


def echoed(obs: Observation, key: str) -> tuple[bool, Any]:
    """Whether `obs` echoes argument `key` (at its top level or in a request container),
    and the value it echoes."""
    if key in obs:
        return True, obs[key]
    for c in ECHO_CONTAINERS:
        inner = obs.get(c)
        if isinstance(inner, dict) and key in inner:
            return True, inner[key]
    return False, None


def draw(profile: SimProfile, seed: int, task_id: str, step: int, purpose: str) -> float:
    """A uniform number in [0, 1) fixed by its inputs."""
    h = hashlib.sha256(f"{profile.name}|{seed}|{task_id}|{step}|{purpose}".encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def call_id(step: int, attempt: int) -> str:
    return f"call_sim_{step}_{attempt}"


_NUMBER = re.compile(r"(?<![\d\-:./])(\d+(?:\.\d+)?)(?![\d\-:/]|\.\d)")
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


_NOTHING_FOUND = "I couldn't find any matching records for that request."


def perturb(answer: str) -> str:
    """A wrong version of `answer`: its first number moved out of any tolerance, else its
    first date shifted by a day, else a generic wrong answer."""
    m = _NUMBER.search(answer)
    if m:
        x = float(m.group(1))
        delta = max(5.0, round(abs(x) * 0.3))
        new = x + delta
        text = str(int(new)) if "." not in m.group(1) else f"{new:.1f}"
        return answer[: m.start(1)] + text + answer[m.end(1):]
    d = _DATE.search(answer)
    if d:
        try:
            shifted = date(int(d.group(1)), int(d.group(2)), int(d.group(3))) + timedelta(1)
        except ValueError:
            shifted = None
        if shifted is not None:
            return answer[: d.start()] + shifted.isoformat() + answer[d.end():]
    return _NOTHING_FOUND


def invent(answer: str) -> str:
    """The answer an agent makes up after a failed call: the figures of `answer` with its
    first number (else date) moved (`perturb`), or `answer` itself when it has neither."""
    made_up = perturb(answer)
    return answer if made_up == _NOTHING_FOUND else made_up


def styled(answer: str, profile: SimProfile, tool_names: list[str]) -> str:
    """`answer` wrapped in the text a profile of this verbosity puts around it."""
    if profile.verbosity == "terse":
        return answer
    if profile.verbosity == "normal":
        return f"Based on the tool results: {answer}"
    used = ", ".join(dict.fromkeys(tool_names)) or "the available tools"
    return (f"I looked this up with {used}. Here is what I found: {answer}"
            " Let me know if you need anything else.")


def parse_obs(content: str | None) -> Observation:
    """A tool message's content as the policy reads it: a JSON object, else the JSON
    value under ``value``, else the text under ``text``."""
    try:
        value = json.loads(content or "")
    except ValueError:
        return {"text": content or ""}
    return value if isinstance(value, dict) else {"value": value}


def warning_index(messages: list[Message]) -> int | None:
    """Position of the interceptor warning the agent is answering: the latest user message,
    if it starts with the interceptor's prefix (None otherwise)."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.role == "user":
            return i if (m.content or "").startswith(WARNING_PREFIX) else None
    return None

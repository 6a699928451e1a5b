"""The `noticed` classifier's prompt (the labelling rule's question) and the strict parse
of its reply.

The question is the rule of tests/fixtures/noticed_heldout2026.jsonl, asked of one text
with its place (`where`, `call`). The answers a place allows are listed in the prompt;
any other reply, or an answer the place does not allow (REQUERY for a final message), is
``unscored``: never read as "not noticed". The text sits between marker lines so the
simulated classifier (`_simnoticed.py`) can read it back.
"""

from __future__ import annotations

import re

from agentprop.analysis.noticing import CallRelation, Where
from agentprop.core import Message, NoticedValue

NOTICED_SYSTEM = (
    "You read one message written by a tool-using AI agent after it received a tool "
    "result. Decide whether the message shows the agent saw a PROBLEM with the tool call "
    "or its result: the result does not match what was asked (another city, date, "
    "patient, product), the call failed or returned an error, or the agent says it "
    "doubts the data. Routine narration and plan steps, politeness and apologies that "
    "name no problem, offers and closing questions, problem words used as domain content "
    "(\"no errors found\", \"error margin\"), factual negative results (\"no events that "
    "day\") and scope disclaimers (\"I can't give medical advice\") are NOT a problem. "
    "If several answers apply, the acting one wins: REQUERY or VERIFY, then CLARIFY, "
    "then ABSTAIN, then MENTION. Reply with exactly one word."
)

_MEANING = {
    "REQUERY": "it saw a problem and this call redoes or fixes the same tool call",
    "VERIFY": "it saw a problem and this call of another tool checks it",
    "CLARIFY": "it saw a problem and asks the user to confirm or clarify",
    "ABSTAIN": "it saw a problem and declines to give the answer",
    "MENTION": "it names a problem but does none of the above",
    "NONE": "no sign that it saw a problem",
}

_PLACE = {
    ("beside_call", "same_tool"): "beside a new call of the SAME tool",
    ("beside_call", "other_tool"): "beside a call of ANOTHER tool",
    ("final", None): "the agent's final message to the user (no tool call)",
    ("text_turn", None): "a reasoning turn with no tool call",
}

_TEXT_RE = re.compile(r"<<<TEXT\n(.*)\nTEXT>>>", re.DOTALL)
_WHERE_RE = re.compile(r"^Where: (\w+); call: (\w+)$", re.MULTILINE)
_STRIP = " \t\r\n.,;:!*_`'\"()[]"


def allowed_answers(where: Where, call: CallRelation) -> tuple[str, ...]:
    """The answers the place allows, acting ones first."""
    acting = (("REQUERY",) if call == "same_tool" else ("VERIFY",)) \
        if where == "beside_call" else ()
    return (*acting, "CLARIFY", "ABSTAIN", "MENTION", "NONE")


def build_noticed_messages(text: str, where: Where, call: CallRelation) -> list[Message]:
    """The classifier's prompt for one text at its place."""
    answers = allowed_answers(where, call)
    place = _PLACE.get((where, call if where == "beside_call" else None), where)
    listing = "\n".join(f"{a}: {_MEANING[a]}" for a in answers)
    user = (f"Where: {where}; call: {call or 'none'}\nThe message is {place}.\n"
            f"<<<TEXT\n{text}\nTEXT>>>\n\nAnswer with one of these words:\n{listing}\n"
            f"Reply with exactly one word: {', '.join(answers)}.")
    return [Message(role="system", content=NOTICED_SYSTEM), Message(role="user", content=user)]


def parse_noticed_prompt(messages: list[Message]) -> tuple[str, Where, CallRelation] | None:
    """(text, where, call) from a prompt built by `build_noticed_messages`."""
    for msg in messages:
        if msg.role != "user" or not msg.content:
            continue
        t, w = _TEXT_RE.search(msg.content), _WHERE_RE.search(msg.content)
        if t and w and w.group(1) in ("beside_call", "final", "text_turn"):
            call = w.group(2) if w.group(2) in ("same_tool", "other_tool") else None
            return t.group(1), w.group(1), call  # type: ignore[return-value]
    return None


def parse_noticed(reply: str | None, where: Where, call: CallRelation) -> NoticedValue:
    """The reading in a reply: its first word, one of the answers the place allows (any
    case, punctuation around it ignored); anything else is ``unscored``."""
    words = (reply or "").strip().split()
    first = words[0].strip(_STRIP).upper() if words else ""
    if first not in allowed_answers(where, call):
        return "unscored"
    return first.lower()  # type: ignore[return-value]

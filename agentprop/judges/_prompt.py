"""The LLM-judge prompt (the paper's criterion) and the strict parse of its reply.

The prompt delimits question, reference and answer with marker lines so the sim-judge
models can read them back (`parse_judge_prompt`). The answer is sent in full.
"""

from __future__ import annotations

import re

from agentprop.core import Message

JUDGE_SYSTEM = (
    "You grade the final answer of an AI agent against a reference answer. "
    "Reply YES if the agent answer substantively matches the reference, NO otherwise. "
    "Accept minor wording differences and extra explanation as long as the core fact is "
    "correct. Reply with exactly one word: YES or NO."
)

_TEMPLATE = (
    "Question:\n<<<QUESTION\n{question}\nQUESTION>>>\n\n"
    "Reference answer:\n<<<REFERENCE\n{reference}\nREFERENCE>>>\n\n"
    "Agent answer:\n<<<ANSWER\n{answer}\nANSWER>>>\n\n"
    "Does the agent answer substantively match the reference? Reply YES or NO."
)

_Q_RE = re.compile(r"<<<QUESTION\n(.*?)\nQUESTION>>>", re.DOTALL)
_R_RE = re.compile(r"<<<REFERENCE\n(.*?)\nREFERENCE>>>", re.DOTALL)
_A_RE = re.compile(r"<<<ANSWER\n(.*)\nANSWER>>>", re.DOTALL)  # greedy: the answer is last


def build_judge_messages(question: str, reference: str, answer: str) -> list[Message]:
    return [
        Message(role="system", content=JUDGE_SYSTEM),
        Message(role="user", content=_TEMPLATE.format(
            question=question, reference=reference, answer=answer)),
    ]


def parse_fenced(messages: list[Message], last: re.Pattern[str]
                 ) -> tuple[str, str, str] | None:
    """(question, reference, the `last` fenced block) from the first user message that
    holds all three: the question and reference fences every judge prompt shares."""
    for msg in messages:
        if msg.role != "user" or not msg.content:
            continue
        q, r = _Q_RE.search(msg.content), _R_RE.search(msg.content)
        a = last.search(msg.content, r.end() if r else 0)
        if q and r and a:
            return q.group(1), r.group(1), a.group(1)
    return None


def parse_judge_prompt(messages: list[Message]) -> tuple[str, str, str] | None:
    """(question, reference, answer) from a prompt built by `build_judge_messages`."""
    return parse_fenced(messages, _A_RE)


STRIP_CHARS = " \t\r\n.,;:!*_`'\"()[]"


def parse_yes_no(text: str | None) -> bool | None:
    """YES → True, NO → False; the reply must be a single word or start with YES/NO as its
    own first word ("Yes, it matches" counts; "The answer is YES" does not). Else None."""
    if not text:
        return None
    words = text.strip().split()
    if not words:
        return None
    first = words[0].strip(STRIP_CHARS).upper()
    if first == "YES":
        return True
    if first == "NO":
        return False
    return None

"""The agreement judges: does a trace's answer agree with its reference on what was asked?

For a task without graded facts (a user's own question) the reference is the task's
`reference_answer` when the user gave one, else the final answer of the trace's **clean
pair**: the baseline trace of the same run, model, task, seed and arm. `agree` decides with
`answers_agree` (deterministic, offline; the clean run's structured observations tell which
values came from the tools); `agree:<provider/model>` asks a model the same question with a
strict prompt (AGREE / DISAGREE, anything else unscored) through `models.get_model`.

Unscored (``correct=None``, with the reason): the clean pair is not stored yet (marked
``retry``: `judge_workspace` judges the trace again on its next run), the clean pair ended
in an error, gave no answer or abstained, or nothing in the two answers is comparable. A
baseline trace without a user reference is its own reference: unscored ("the clean run is
the reference"); how much clean answers agree across seeds is the noise floor, measured
with `answers_agree` on the clean answers, not by this judge. A missing or abstained answer
of the judged trace does not give the reference's answer: incorrect, as for the facts judge.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from agentprop.core import Message, Task, ToolResultEvent, Trace, UnknownNameError, Verdict
from agentprop.judges._agreement import answers_agree
from agentprop.judges._base import JUDGE_FORMS, JUDGES, TRANSIENT_KINDS, Judge, unscored
from agentprop.judges._prompt import STRIP_CHARS, parse_fenced
from agentprop.models import GenerateConfig, Model, ModelError

if TYPE_CHECKING:
    from agentprop.store import Workspace

PairLookup = Callable[[Trace], "Trace | None"]

NO_PAIR = "no clean pair yet"
"""The reason of a verdict made before the trace's clean pair was stored (retried)."""

AGREE_SYSTEM = (
    "You compare two answers to the same question. Reply AGREE if the candidate answer "
    "gives the same answer to the question as the reference answer, ignoring wording, "
    "order, extra detail and formatting. Reply DISAGREE if it gives a different value, "
    "entity or decision for what the question asks (one number, date, time, hash, name or "
    "yes/no is enough). Reply with exactly one word: AGREE or DISAGREE."
)

_TEMPLATE = (
    "Question:\n<<<QUESTION\n{question}\nQUESTION>>>\n\n"
    "Reference answer:\n<<<REFERENCE\n{reference}\nREFERENCE>>>\n\n"
    "Candidate answer:\n<<<CANDIDATE\n{candidate}\nCANDIDATE>>>\n\n"
    "Does the candidate give the same answer to the question as the reference? "
    "Reply AGREE or DISAGREE."
)
_C_RE = re.compile(r"<<<CANDIDATE\n(.*)\nCANDIDATE>>>", re.DOTALL)  # greedy: it is last


def build_agree_messages(question: str, reference: str, candidate: str) -> list[Message]:
    return [Message(role="system", content=AGREE_SYSTEM),
            Message(role="user", content=_TEMPLATE.format(
                question=question, reference=reference, candidate=candidate))]


def parse_agree_prompt(messages: list[Message]) -> tuple[str, str, str] | None:
    """(question, reference, candidate) from a prompt built by `build_agree_messages`."""
    return parse_fenced(messages, _C_RE)


def parse_agree(text: str | None) -> bool | None:
    """AGREE → True, DISAGREE → False, as the reply's first word; anything else None."""
    words = (text or "").strip().split()
    first = words[0].strip(STRIP_CHARS).upper() if words else ""
    return {"AGREE": True, "DISAGREE": False}.get(first)


def workspace_pairs(ws: Workspace) -> PairLookup:
    """The clean pair of a trace among a workspace's stored traces (None when not stored)."""

    # a clean trace is the pair of every condition of its unit: read it once per judge run
    load = functools.lru_cache(maxsize=512)(ws.get_trace)

    def lookup(trace: Trace) -> Trace | None:
        rows = ws.trace_rows(run_id=trace.run_id, model=trace.model, task_id=trace.task_id,
                             condition="baseline", seed=trace.seed, arm=trace.arm)
        return load(rows[0]["id"]) if rows else None

    return lookup


def observations(trace: Trace) -> list[Mapping[str, Any]]:
    """The tool results a trace's agent saw, those without an error."""
    return [e.observation for e in trace.events
            if isinstance(e, ToolResultEvent) and "error" not in e.observation]


class _Paired(Judge):
    """What both agreement judges share: finding the reference of a trace."""

    def __init__(self, pairs: PairLookup | None) -> None:
        self.pairs = pairs

    def reference(self, trace: Trace, task: Task
                  ) -> tuple[str, list[Mapping[str, Any]], str] | Verdict:
        """(reference text, the clean run's observations, where it comes from), or the
        unscored verdict saying why there is none."""
        if task.reference_answer.strip():
            return task.reference_answer, [], "user reference"
        if trace.condition == "baseline":
            return unscored(trace, self.name, "the clean run is the reference")
        clean = self.pairs(trace) if self.pairs is not None else None
        if clean is None:
            return unscored(trace, self.name, NO_PAIR, retry=True)
        fin = clean.final
        if clean.status != "ok":
            return unscored(trace, self.name, f"clean pair status {clean.status}",
                            pair=clean.id)
        if fin is None or fin.abstained or not (fin.answer or "").strip():
            why = "abstained" if fin is not None and fin.abstained else "gave no answer"
            return unscored(trace, self.name, f"clean pair {why}", pair=clean.id)
        return str(fin.answer), observations(clean), f"clean pair {clean.id}"

    def to_compare(self, trace: Trace, task: Task
                   ) -> tuple[str, list[Mapping[str, Any]], str] | Verdict:
        """The reference to compare the trace's answer with, or the verdict that needs
        no comparison: unscored without a reference, wrong without an answer."""
        ref = self.reference(trace, task)
        if isinstance(ref, Verdict):
            return ref
        missing = self._no_answer(trace)
        return ref if missing is None else missing

    def _no_answer(self, trace: Trace) -> Verdict | None:
        fin = trace.final
        if fin is None or fin.abstained or not (fin.answer or "").strip():
            why = "abstained" if fin is not None and fin.abstained else "no answer"
            return Verdict(trace_id=trace.id, judge=self.name, correct=False,
                           raw={"reason": why})
        return None


class AgreeJudge(_Paired):
    """`answers_agree` between the trace's answer and its reference (offline)."""

    kind = "agree"

    def __init__(self, pairs: PairLookup | None = None) -> None:
        super().__init__(pairs)
        self.name = "agree"

    async def judge(self, trace: Trace, task: Task) -> Verdict:
        ref = self.to_compare(trace, task)
        if isinstance(ref, Verdict):
            return ref
        text, obs, source = ref
        ok = answers_agree(task.query, text, trace.final_answer, observations=obs)
        if ok is None:
            return unscored(trace, self.name, "nothing comparable", reference=source)
        return Verdict(trace_id=trace.id, judge=self.name, correct=ok,
                       raw={"reference": source})


class AgreeLLMJudge(_Paired):
    """A model asked whether the answer agrees with the reference; temperature 0."""

    kind = "llm"  # the runner counts its model calls and retries its transient failures

    def __init__(self, model: Model, pairs: PairLookup | None = None, *,
                 max_tokens: int = 64) -> None:
        super().__init__(pairs)
        self.model = model
        self.name = f"agree:{model.id}"
        self.config = GenerateConfig(temperature=0.0, max_tokens=max_tokens, seed=0)

    async def judge(self, trace: Trace, task: Task) -> Verdict:
        ref = self.to_compare(trace, task)
        if isinstance(ref, Verdict):
            return ref
        text, _obs, source = ref
        messages = build_agree_messages(task.query, text, str(trace.final_answer))
        try:
            out = await self.model.generate(messages, [], self.config)
        except ModelError as e:
            return Verdict(trace_id=trace.id, judge=self.name, correct=None,
                           raw={"error": {"kind": e.kind, "message": e.message,
                                          "attempts": e.attempts},
                                "transient": e.kind in TRANSIENT_KINDS})
        return Verdict(trace_id=trace.id, judge=self.name, correct=parse_agree(out.text),
                       cost=out.cost,
                       raw={"output": out.text, "cached": out.cached, "reference": source,
                            "simulated": self.model.simulated,
                            "usage": out.usage.model_dump()})


def _pairs(options: Mapping[str, Any]) -> PairLookup | None:
    if options.get("pairs") is not None:
        return options["pairs"]
    ws = options.get("workspace")
    return workspace_pairs(ws) if ws is not None else None


@JUDGES.register("agree")
def _make_agree(arg: str, **options: Any) -> Judge:
    if not arg:
        return AgreeJudge(_pairs(options))
    from agentprop.judges._llm import _make_model

    if "," in arg:
        raise UnknownNameError(f"judge 'agree:{arg}' takes one model id; valid forms: "
                               f"{JUDGE_FORMS}")
    return AgreeLLMJudge(_make_model(arg, options), _pairs(options),
                         max_tokens=int(options.get("max_tokens", 64)))

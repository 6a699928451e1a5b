"""LLM judges: one model with the paper's criterion, and a majority ensemble of several.

Model calls go through `agentprop.models.get_model` (the response cache is the workspace
passed as ``cache=``; retries and rate limits are the provider's). A ModelError becomes an
unscored verdict whose raw holds the error; for the transient kinds (connection,
timeout, rate_limit, server, auth) it is also marked ``transient`` and
`judge_workspace` does not write it, so a rerun retries it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from agentprop.core import Task, Trace, UnknownNameError, Verdict
from agentprop.judges._base import JUDGE_FORMS, JUDGES, TRANSIENT_KINDS, Judge
from agentprop.judges._prompt import build_judge_messages, parse_yes_no
from agentprop.models import GenerateConfig, Model, ModelError, get_model, split_model_id


def _make_model(model_id: str, options: dict[str, Any]) -> Model:
    opts = dict(options.get("model_options") or {})
    if options.get("cache") is not None:
        opts.setdefault("cache", options["cache"])
    prefix, _ = split_model_id(model_id)
    if prefix == "sim-judge":
        if options.get("suite") is not None:
            opts.setdefault("suite", options["suite"])
        for shared in ("facts_memo", "vocabulary"):
            if options.get(shared) is not None:
                opts.setdefault(shared, options[shared])
    return get_model(model_id, **opts)


class LLMJudge(Judge):
    """One LLM with the paper's criterion; temperature 0, strict YES/NO parse."""

    kind = "llm"

    def __init__(self, model: Model, *, max_tokens: int = 64) -> None:
        self.model = model
        self.name = f"llm:{model.id}"
        self.config = GenerateConfig(temperature=0.0, max_tokens=max_tokens, seed=0)

    async def judge(self, trace: Trace, task: Task) -> Verdict:
        fin = trace.final
        answer = fin.answer if fin else None
        if answer is None or not answer.strip() or (fin is not None and fin.abstained):
            # nothing to grade: incorrect, as the facts judge; no model call
            return Verdict(trace_id=trace.id, judge=self.name, correct=False,
                           raw={"reason": "abstained" if fin and fin.abstained else "no answer"})
        messages = build_judge_messages(task.query, task.reference_answer, answer)
        try:
            out = await self.model.generate(messages, [], self.config)
        except ModelError as e:
            return Verdict(
                trace_id=trace.id, judge=self.name, correct=None,
                raw={"error": {"kind": e.kind, "message": e.message, "attempts": e.attempts},
                     "transient": e.kind in TRANSIENT_KINDS},
            )
        return Verdict(
            trace_id=trace.id, judge=self.name, correct=parse_yes_no(out.text), cost=out.cost,
            raw={"output": out.text, "cached": out.cached, "simulated": self.model.simulated,
                 "usage": out.usage.model_dump()},
        )


def majority(votes: list[bool | None]) -> bool | None:
    """Majority of the scored votes; None on an even split or when more than half of the
    members are unscored."""
    n = len(votes)
    yes = sum(v is True for v in votes)
    no = sum(v is False for v in votes)
    if n == 0 or (n - yes - no) * 2 > n or yes == no:
        return None
    return yes > no


class EnsembleJudge(Judge):
    """Majority of LLM judges; each member's own verdict is returned too (`judge_many`)."""

    kind = "ensemble"

    def __init__(self, members: list[LLMJudge]) -> None:
        self.members = members
        self.name = "ensemble:" + ",".join(m.model.id for m in members)

    async def judge(self, trace: Trace, task: Task) -> Verdict:
        return (await self.judge_many(trace, task))[0]

    async def judge_many(self, trace: Trace, task: Task) -> list[Verdict]:
        member_verdicts = list(await asyncio.gather(*(m.judge(trace, task) for m in self.members)))
        votes = {v.judge: v.correct for v in member_verdicts}
        ens = Verdict(
            trace_id=trace.id, judge=self.name,
            correct=majority([v.correct for v in member_verdicts]),
            cost=sum(v.cost for v in member_verdicts), members=votes,
            raw={"member_verdicts": {v.judge: v.model_dump(mode="json", exclude={"created_at"})
                                     for v in member_verdicts}},
        )
        return [ens, *member_verdicts]


@JUDGES.register("llm")
def _make_llm(arg: str, **options: Any) -> Judge:
    if not arg:
        raise UnknownNameError(f"judge 'llm' needs a model id; valid forms: {JUDGE_FORMS}")
    return LLMJudge(_make_model(arg, options), max_tokens=int(options.get("max_tokens", 64)))


@JUDGES.register("ensemble")
def _make_ensemble(arg: str, **options: Any) -> Judge:
    ids = [m for m in arg.split(",") if m]
    if len(ids) < 2:
        raise UnknownNameError(
            f"judge 'ensemble:{arg}' needs at least two model ids; valid forms: {JUDGE_FORMS}")
    if len(set(ids)) != len(ids):
        raise UnknownNameError(f"judge 'ensemble:{arg}' lists a model twice")
    max_tokens = int(options.get("max_tokens", 64))
    # sim-judge members decide from one facts reading per answer (their noise stays their own)
    shared = {**options, "facts_memo": options.get("facts_memo", {})}
    return EnsembleJudge([LLMJudge(_make_model(m, shared), max_tokens=max_tokens) for m in ids])

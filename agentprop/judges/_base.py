"""The judge contract and the judge registry that the built-in judges register into.

Name parsing and lookup (`canonical_name`, `get_judge`) live in `_lookup.py`, above the
judge modules, so this module never imports the judges that import it.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from agentprop.core import Registry, Task, Trace, Verdict

JUDGE_FORMS = (
    "heuristic, facts, llm:<provider/model> (e.g. llm:openai/gpt-4o-mini), "
    "ensemble:<m1>,<m2>,<m3> (e.g. ensemble:sim-judge/strict,sim-judge/lenient,sim-judge/noisy), "
    "agree (the answer agrees with the reference or the clean run's answer), "
    "agree:<provider/model> (e.g. agree:sim-judge/exact)"
)

TRANSIENT_KINDS = frozenset({"connection", "timeout", "rate_limit", "server", "auth"})
"""ModelError kinds that say nothing about the answer: such a failure is not a verdict and is
never written (a rerun retries it). Other kinds (bad_request, bad_response) are recorded as
unscored verdicts."""


class Judge:
    """Decides whether a trace's final answer is correct for its task.

    `judge` returns one Verdict; `judge_many` may return more (the ensemble also returns
    each member's own verdict so per-judge agreement can be computed).
    """

    kind: ClassVar[str] = ""
    name: str = ""

    async def judge(self, trace: Trace, task: Task) -> Verdict:
        raise NotImplementedError

    async def judge_many(self, trace: Trace, task: Task) -> list[Verdict]:
        return [await self.judge(trace, task)]


class JudgeFactory(Protocol):
    def __call__(self, arg: str, **options: Any) -> Judge: ...


JUDGES: Registry[JudgeFactory] = Registry("judge")


def unscored(trace: Trace, judge: str, reason: str, **raw: Any) -> Verdict:
    return Verdict(trace_id=trace.id, judge=judge, correct=None, raw={"reason": reason, **raw})


def is_transient(verdict: Verdict) -> bool:
    """True when the verdict records a model failure that a rerun may fix (not written)."""
    raw = verdict.raw if isinstance(verdict.raw, dict) else {}
    if raw.get("transient"):
        return True
    members = raw.get("member_verdicts")
    if isinstance(members, dict):
        return any(
            isinstance(m, dict) and isinstance(m.get("raw"), dict) and m["raw"].get("transient")
            for m in members.values()
        )
    return False


async def verdicts_for(judge: Judge, trace: Trace, task: Task | None) -> list[Verdict]:
    """What `judge` records for `trace` in a judging pass (one rule for the driver and the
    worker processes): an unscored verdict without calling it when the trace did not end
    `ok` or its task is not in the suite, else its verdicts."""
    if trace.status != "ok":
        return [unscored(trace, judge.name, f"trace status {trace.status}")]
    if task is None:
        return [unscored(trace, judge.name, f"task {trace.task_id} not in the suite")]
    return await judge.judge_many(trace, task)

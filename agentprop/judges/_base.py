"""The judge contract, the judge registry and the parser for judge names.

A judge name is ``heuristic``, ``facts``, ``llm:<provider/model>`` or
``ensemble:<m1>,<m2>[,...]``; `get_judge` turns it into a Judge. Verdicts carry the
canonical name (spaces removed), so the same judge always writes the same rows.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from agentprop.core import Registry, Task, Trace, UnknownNameError, Verdict

JUDGE_FORMS = (
    "heuristic, facts, llm:<provider/model> (e.g. llm:openai/gpt-4o-mini), "
    "ensemble:<m1>,<m2>,<m3> (e.g. ensemble:sim-judge/strict,sim-judge/lenient,sim-judge/noisy)"
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


def _load_builtin() -> None:
    from agentprop.judges import _facts, _heuristic, _llm  # noqa: F401  (they register)


def canonical_name(name: str) -> str:
    """``ensemble: a, b`` → ``ensemble:a,b``; raises UnknownNameError for malformed names."""
    _load_builtin()
    text = "".join(str(name).split())
    kind, _, arg = text.partition(":")
    if kind not in JUDGES:
        raise UnknownNameError(f"unknown judge {name!r}; valid forms: {JUDGE_FORMS}")
    return f"{kind}:{arg}" if arg else kind


def get_judge(name: str, **options: Any) -> Judge:
    """Instantiate the judge `name`. Options: ``cache`` (a Workspace for the model response
    cache), ``suite`` (for sim-judge models), ``model_options`` (passed to `get_model`)."""
    text = canonical_name(name)
    kind, _, arg = text.partition(":")
    return JUDGES.get(kind)(arg, **options)


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

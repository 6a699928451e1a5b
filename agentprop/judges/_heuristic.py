"""The paper's substring heuristic, kept exactly as its code behaved, as a baseline.

With R the reference and A the answer, both lower-cased (a missing answer is ""):
correct ⇔ R non-empty and (R[:20] is a substring of A[:200], or one of R's first three
whitespace tokens that is longer than 3 characters is a substring of A).
It knows nothing about facts: the paper found it at chance level against humans.
"""

from __future__ import annotations

from typing import Any

from agentprop.core import Task, Trace, Verdict
from agentprop.judges._base import JUDGES, Judge


def heuristic_correct(reference: str | None, answer: str | None) -> bool:
    """The rule itself. A missing answer is treated as "" and is therefore incorrect."""
    r = (reference or "").lower()
    a = (answer or "").lower()
    if not r:
        return False
    if r[:20] in a[:200]:
        return True
    return any(len(tok) > 3 and tok in a for tok in r.split()[:3])


class HeuristicJudge(Judge):
    kind = "heuristic"

    def __init__(self) -> None:
        self.name = "heuristic"

    async def judge(self, trace: Trace, task: Task) -> Verdict:
        answer = trace.final_answer
        ok = heuristic_correct(task.reference_answer, answer)
        return Verdict(trace_id=trace.id, judge=self.name, correct=ok,
                       raw={"rule": "substring", "answer_missing": answer is None})


@JUDGES.register("heuristic")
def _make(arg: str, **options: Any) -> Judge:
    from agentprop.core import UnknownNameError

    if arg:
        raise UnknownNameError(f"judge 'heuristic' takes no argument (got 'heuristic:{arg}')")
    return HeuristicJudge()

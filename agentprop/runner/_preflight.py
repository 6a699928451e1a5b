"""The pre-flight check: a model whose first episodes all fail stops the run.

An unreachable server, a bad key or an unknown model would otherwise record thousands of
identical error traces. Each model's first traces are held back until one shows the agent
was reached (`EpisodeExecutor.reached`); then they are all accepted. If the first
`limit` episodes of a model (or all of them, when it has fewer) fail that check, the run
stops with `RunAborted` and the held traces are never stored.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable

from agentprop.core import ErrorEvent, Trace
from agentprop.runner._errors import RunAborted


class Preflight:
    """`record(trace)` passes a trace on to `accept`, holding a model's first failures."""

    def __init__(self, per_model: Counter[str], limit: int,
                 reached: Callable[[Trace], bool], accept: Callable[[Trace], None]) -> None:
        self.per_model = per_model
        self.limit = limit
        self.reached = reached
        self.accept = accept
        self.verified: set[str] = set()
        self.held: dict[str, list[Trace]] = defaultdict(list)

    def record(self, trace: Trace) -> None:
        model = trace.model
        if model in self.verified or self.limit <= 0:
            self.accept(trace)
            return
        if self.reached(trace):
            self.verified.add(model)
            for t in self.held.pop(model, []):
                self.accept(t)
            self.accept(trace)
            return
        held = self.held[model]
        held.append(trace)
        if len(held) >= min(self.limit, self.per_model[model]):
            err = next((e for e in trace.events if isinstance(e, ErrorEvent)), None)
            why = f"{err.kind}: {err.message}" if err else trace.status
            raise RunAborted(
                f"model {model}: the first {len(held)} episodes all failed ({why}); "
                "nothing was recorded for them"
            )

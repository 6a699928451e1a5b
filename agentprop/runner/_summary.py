"""What one invocation of the runner did, counted trace by trace."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agentprop.core import ModelCallEvent, ToolResultEvent, Trace


class RunSummary(BaseModel):
    """What one invocation did. `completed` counts traces written by this invocation;
    tokens and cost are what it spent (cache hits are counted in `cached_calls`, not billed)."""

    units: int = 0
    completed: int = 0
    skipped: int = 0
    errors: int = 0
    step_limit: int = 0
    model_calls: int = 0
    cached_calls: int = 0
    tool_calls: int = 0
    wall_s: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    tokens: int = 0
    cost: float = 0.0
    rate_limited: int = 0
    not_started: int = 0
    max_cost: float | None = None
    calls_by_model: dict[str, int] = Field(default_factory=dict)
    run_ids: list[str] = Field(default_factory=list)

    def count(self, trace: Trace) -> None:
        self.completed += 1
        if trace.status != "ok":
            self.errors += 1
        if trace.status == "step_limit":
            self.step_limit += 1
        for ev in trace.events:
            if isinstance(ev, ToolResultEvent):
                self.tool_calls += 1
            if isinstance(ev, ModelCallEvent):
                out = ev.output
                self.model_calls += 1
                self.calls_by_model[trace.model] = self.calls_by_model.get(trace.model, 0) + 1
                if out.cached:  # a cache hit costs nothing now: count it, don't bill it
                    self.cached_calls += 1
                    continue
                self.input_tokens += out.usage.input_tokens
                self.output_tokens += out.usage.output_tokens
                self.cost += out.cost
        self.tokens = self.input_tokens + self.output_tokens


def trace_cost(trace: Trace) -> float:
    """What an episode spent: its model calls' cost, cache hits excluded."""
    return sum(ev.output.cost for ev in trace.events
               if isinstance(ev, ModelCallEvent) and not ev.output.cached)

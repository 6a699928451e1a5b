"""What one invocation of the runner did, counted trace by trace."""

from __future__ import annotations

from pydantic import BaseModel, Field

from agentprop.core import ModelCallEvent, ToolProbe, ToolResultEvent, Trace


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
    wall_s: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    tokens: int = 0
    cost: float = 0.0
    rate_limited: int = 0
    not_started: int = 0
    lost: int = 0
    """Units whose worker died under them (`--executor processes|ray`): nothing of them
    is stored, and a rerun of the same command runs them."""
    max_cost: float | None = None
    replaced_code_points: int = 0
    """Code points UTF-8 cannot encode (lone surrogates) replaced by U+FFFD in what this
    invocation stored: in model answers (``raw.replaced_code_points`` of the call) and
    anywhere else in a trace (``meta.replaced_code_points``)."""
    tool_calls: int = 0
    """Tool calls executed (at the MCP boundary, for an external agent)."""
    unobserved_model_calls: int = 0
    """Episodes of an external agent whose model calls agentprop did not see (no model
    turn reached the gateway): `model_calls`, tokens and cost do not include theirs."""
    calls_by_model: dict[str, int] = Field(default_factory=dict)
    run_ids: list[str] = Field(default_factory=list)
    preflight: list[ToolProbe] = Field(default_factory=list)

    def merged(self, other: RunSummary) -> RunSummary:
        """This invocation's and `other`'s work together (batches run one after the
        other): counts, tokens and cost add up, wall times too."""
        out = self.model_copy(deep=True)
        for name in ("units", "completed", "skipped", "errors", "step_limit", "model_calls",
                     "cached_calls", "input_tokens", "output_tokens", "tokens", "rate_limited",
                     "not_started", "lost", "replaced_code_points", "tool_calls",
                     "unobserved_model_calls"):
            setattr(out, name, getattr(self, name) + getattr(other, name))
        out.cost, out.wall_s = self.cost + other.cost, self.wall_s + other.wall_s
        for m, n in other.calls_by_model.items():
            out.calls_by_model[m] = out.calls_by_model.get(m, 0) + n
        out.run_ids = list(dict.fromkeys([*self.run_ids, *other.run_ids]))
        out.preflight = [*self.preflight, *other.preflight]
        return out

    def count(self, trace: Trace) -> None:
        self.completed += 1
        if trace.status != "ok":
            self.errors += 1
        if trace.status == "step_limit":
            self.step_limit += 1
        if trace.meta.get("external") and not trace.meta.get("model_turns_recorded"):
            self.unobserved_model_calls += 1
        for ev in trace.events:
            if isinstance(ev, ToolResultEvent):
                self.tool_calls += 1
            if isinstance(ev, ModelCallEvent):
                out = ev.output
                self.replaced_code_points += int((out.raw or {}).get("replaced_code_points", 0))
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

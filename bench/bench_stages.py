"""Time the stage table (20,000 traces, target well under 2 s) and the propagation rates
(1,000 clustered bootstrap resamples per group)."""

from __future__ import annotations

import time

from agentprop.analysis.stages import propagation_rates, stage_table
from agentprop.core import (
    FinalEvent,
    InjectionEvent,
    ModelCallEvent,
    ModelOutput,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
)

N = 20_000


def _trace(i: int) -> Trace:
    orig, bad = {"city": "London", "date": "2025-06-17"}, {"city": "Paris", "date": "2025-06-17"}
    visible = i % 5 != 0
    events = [
        ModelCallEvent(step=0, request_hash="h", output=ModelOutput()),
        ToolCallEvent(step=0, call=ToolCall(id="c1", name="get_weather", arguments=orig)),
        InjectionEvent(protocol="p2", error_type="semantic_wrong", status="applied",
                       call_id="c1", tool="get_weather", param="city", original="London",
                       injected="Paris"),
        ToolResultEvent(step=0, call_id="c1", name="get_weather", arguments=bad,
                        observation={"city": "Paris" if visible else "London", "temp": 14},
                        counterfactual={"city": "London", "temp": 14}),
        ModelCallEvent(step=1, request_hash="h", output=ModelOutput()),
        ToolCallEvent(step=1, call=ToolCall(id="c2", name="get_weather", arguments=orig)),
        ToolResultEvent(step=1, call_id="c2", name="get_weather", arguments=orig,
                        observation={"city": "London", "temp": 14}),
        ModelCallEvent(step=2, request_hash="h", output=ModelOutput(text="14 C")),
        FinalEvent(step=2, answer="14 C"),
    ]
    return Trace.model_construct(
        id=f"t{i}", run_id="r", model=f"m{i % 8}", task_id=f"k{i % 1000}", domain="weather",
        split="test", difficulty="easy", condition="p2:semantic_wrong", seed=0, arm="",
        status="ok", simulated=True, events=events, meta={},
    )


def main() -> None:
    traces = [_trace(i) for i in range(N)]
    verdicts = {t.id: i % 3 != 0 for i, t in enumerate(traces)}
    t0 = time.perf_counter()
    df = stage_table(traces, verdicts)
    t1 = time.perf_counter()
    rates = propagation_rates(df, by="model", n_boot=1000)
    t2 = time.perf_counter()
    print(f"traces={len(df)} stage_table={t1 - t0:.2f}s "
          f"propagation_rates(groups={len(rates)}, n_boot=1000)={t2 - t1:.2f}s")


if __name__ == "__main__":
    main()

from agentprop.core import InjectionEvent, ToolCall, Trace, WorkUnit
from agentprop.store import Workspace


def test_unit_key_is_stable_and_distinguishes_arms() -> None:
    a = WorkUnit(run_id="r", model="sim/x", task_id="t", condition="baseline", seed=0)
    b = WorkUnit(
        run_id="r", model="sim/x", task_id="t", condition="baseline", seed=0, arm="treatment"
    )
    assert a.key == WorkUnit(**a.model_dump()).key
    assert a.key != b.key


def test_trace_roundtrip_and_idempotent_store(tmp_path) -> None:
    t = Trace(
        id="x",
        run_id="r",
        model="sim/x",
        task_id="t",
        domain="weather",
        split="test",
        difficulty="easy",
        events=[
            InjectionEvent(
                protocol="p2",
                error_type="semantic_wrong",
                status="applied",
                tool="get_weather",
                param="city",
                original="London",
                injected="Paris",
            )
        ],
    )
    ws = Workspace(tmp_path / "w")
    assert ws.put_traces([t]) == 1
    assert ws.put_traces([t]) == 0
    got = ws.get_trace("x")
    assert got is not None and got.events[0] == t.events[0]
    assert ToolCall(name="a").arguments == {}

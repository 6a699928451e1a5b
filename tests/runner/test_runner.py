"""Runner: interleaved planning, resume, preflight abort, secrets, start order."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from runner_fakes import FakeModel, tiny_suite

from agentprop.agent import AgentHooks
from agentprop.core import Task, WorkUnit
from agentprop.runner import RunAborted, RunError, plan_units, run_units
from agentprop.store import Workspace

SUITE = tiny_suite(24)


def test_plan_interleaves_models_conditions_arms() -> None:
    tasks = SUITE.tasks[:3]
    units = plan_units("r", ["m1", "m2"], tasks, ["baseline", "p2:x"], seeds=(0, 1),
                       arms=("control", "treatment"))
    assert len(units) == 2 * 3 * 2 * 2 * 2 == len({u.key for u in units})
    first = [(u.model, u.condition, u.arm) for u in units[:8]]
    assert first == [(m, c, a) for m in ("m1", "m2") for c in ("baseline", "p2:x")
                     for a in ("control", "treatment")]
    assert {u.task_id for u in units[:8]} == {tasks[0].id}
    # Consecutive units alternate arms; every window of 8 holds each combination once.
    assert all(a.arm != b.arm for a, b in itertools.pairwise(units))
    assert [u.seed for u in units[:24]] == [0] * 24 and units[24].seed == 1
    again = plan_units("r", ["m1", "m1"], [tasks[0], tasks[0].id], ["baseline"])
    assert len(again) == 1


async def test_run_resume_and_start_order(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    model = FakeModel("a", delay_s=0.001)
    units = plan_units("r1", ["fake/a"], SUITE.tasks, ["baseline"], seeds=(0, 1))
    started: list[str] = []

    def spy(unit: WorkUnit, task: Task) -> list[AgentHooks]:
        started.append(unit.key)
        return []

    s = await run_units(units[:30], workspace=ws, suite=SUITE, models={"fake/a": model},
                        concurrency=5, progress=False, extra_hooks=spy)
    assert started == [u.key for u in units[:30]]
    assert (s.units, s.completed, s.skipped, s.errors, s.model_calls) == (30, 30, 0, 0, 60)
    assert s.tokens == 60 * 110 and s.cost == pytest.approx(0.06)
    assert ws.count_traces(run_id="r1") == 30
    calls_before = model.calls
    s2 = await run_units(units, workspace=ws, suite=SUITE, models={"fake/a": model},
                         concurrency=5, progress=False)
    assert (s2.completed, s2.skipped) == (18, 30)
    assert model.calls - calls_before == 36
    assert ws.trace_ids("r1") == {u.key for u in units}
    t = ws.get_trace(units[0].key)
    assert t is not None and t.status == "ok" and t.final_answer and "temp_c" in t.final_answer
    run = ws.get_run("r1")
    assert run is not None and run.suite_checksum == SUITE.checksum
    assert run.config["units"] == 30 and run.config["models"] == ["fake/a"]
    # each trace's stage row was written with it, against the run's suite
    assert ws.conn.execute("SELECT COUNT(*), COUNT(DISTINCT context) FROM stages "
                           "WHERE context LIKE ?", (f"%{SUITE.checksum}",)).fetchone() \
        == (48, 1)


async def test_model_errors_are_kept_after_a_success(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    model = FakeModel("b", fail="server", fail_task="5")
    units = plan_units("r", ["fake/b"], SUITE.tasks, ["baseline"])
    s = await run_units(units, workspace=ws, suite=SUITE, models={"fake/b": model},
                        concurrency=1, progress=False)
    assert (s.completed, s.errors) == (24, 1)
    bad = [t for t in ws.iter_traces() if t.status == "error"]
    assert [t.task_id for t in bad] == ["tiny-005"]
    assert bad[0].events[-1].type == "error"


async def test_preflight_aborts_without_recording(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    units = plan_units("r", ["fake/ok", "fake/down"], SUITE.tasks, ["baseline"])
    models: dict[str, Any] = {"fake/ok": FakeModel("ok"),
                              "fake/down": FakeModel("down", fail="connection")}
    with pytest.raises(RunAborted, match=r"fake/down.*connection"):
        await run_units(units, workspace=ws, suite=SUITE, models=models, concurrency=4,
                        progress=False)
    assert ws.count_traces(model="fake/down") == 0
    assert all(t.status == "ok" for t in ws.iter_traces())


async def test_unknown_condition_and_task(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    models: dict[str, Any] = {"fake/a": FakeModel("a")}
    units = plan_units("r", ["fake/a"], SUITE.tasks[:2], ["p2:nonsense"])
    with pytest.raises(RunError, match="nonsense"):
        await run_units(units, workspace=ws, suite=SUITE, models=models, progress=False)
    units = plan_units("r", ["fake/a"], ["no-such-task"], ["baseline"])
    with pytest.raises(RunError, match="no-such-task"):
        await run_units(units, workspace=ws, suite=SUITE, models=models, progress=False)
    assert ws.count_traces() == 0


async def test_secrets_never_reach_the_database(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-Zq9SECRETvalue-1234567890"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("TEST_LEAK_VAR", secret)
    ws = Workspace(tmp_path / "ws")
    units = plan_units("r", ["fake/leaky"], SUITE.tasks, ["baseline"])
    model = FakeModel("leaky", fail="auth", fail_task="3", leak=True)
    s = await run_units(units, workspace=ws, suite=SUITE, models={"fake/leaky": model},
                        model_options={"api_key": secret, "base_url":
                                       f"https://user:{secret}@example.invalid/v1"},
                        manifest={"note": f"key={secret}"}, concurrency=2, progress=False)
    assert s.errors == 1
    err = next(t for t in ws.iter_traces() if t.status == "error")
    assert "<redacted>" in err.events[-1].message  # type: ignore[union-attr]
    ws.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    ws.close()
    blob = b"".join(p.read_bytes() for p in (tmp_path / "ws").iterdir() if p.is_file())
    assert secret.encode() not in blob
    assert b"example.invalid" in blob  # the manifest is there, minus the credentials


def test_fake_plugin_registered() -> None:
    from agentprop.models import get_model

    assert get_model("fake/x").id == "fake/x"
    from agentprop.domains import get_domain

    assert get_domain("tiny").name == "tiny"


def test_summary_bills_only_calls_that_were_not_cached() -> None:
    from agentprop.core import ModelCallEvent, ModelOutput, Trace, Usage
    from agentprop.runner import RunSummary

    def call(cached: bool) -> ModelCallEvent:
        out = ModelOutput(text="x", usage=Usage(input_tokens=100, output_tokens=10),
                          cost=0.5, cached=cached)
        return ModelCallEvent(step=0, request_hash="h", output=out)

    t = Trace(id="t", run_id="r", model="openai/x", task_id="k", domain="weather",
              split="test", difficulty="easy", events=[call(False), call(True)])
    s = RunSummary()
    s.count(t)
    assert (s.model_calls, s.cached_calls) == (2, 1)
    assert s.cost == 0.5 and s.tokens == 110

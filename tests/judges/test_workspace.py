"""judge_workspace: resumable, cached, error traces, unreachable models; the CLI."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.judges import JudgeUnavailableError, judge_workspace
from agentprop.store import Workspace
from agentprop.suite import Suite
from tests.judges.conftest import CALENDAR, MEDICAL, RETAIL, TASKS, WEATHER, make_trace

ENSEMBLE = "ensemble:sim-judge/strict,sim-judge/lenient,sim-judge/noisy"


def _workspace(path: Path) -> Workspace:
    ws = Workspace(path)
    traces = [
        make_trace("w-good", WEATHER, "Tomorrow in London: 14°C, light rain."),
        make_trace("w-bad", WEATHER, "Paris: 21 °C, sunny."),
        make_trace("m-good", MEDICAL, "Severity high for P0012."),
        make_trace("m-bad", MEDICAL, "Severity moderate for P0012."),
        make_trace("r-good", RETAIL, "O-1042: $74.97, 1,250 points."),
        make_trace("c-abst", CALENDAR, None, abstained=True),
        make_trace("c-err", CALENDAR, None, status="error"),
    ]
    ws.put_traces(traces)
    return ws


def test_judge_workspace_end_to_end(tmp_path: Path, suite: Suite) -> None:
    ws = _workspace(tmp_path / "w")
    s = judge_workspace(ws, ["heuristic", "facts", ENSEMBLE], suite=suite, primary="facts",
                        progress=False)
    facts = {v.trace_id: v.correct for v in ws.verdicts("facts")}
    assert facts == {"w-good": True, "w-bad": False, "m-good": True, "m-bad": False,
                     "r-good": True, "c-abst": False, "c-err": None}
    err = next(v for v in ws.verdicts("facts") if v.trace_id == "c-err")
    assert err.raw["reason"] == "trace status error"
    ens = {v.trace_id: v for v in ws.verdicts(ENSEMBLE)}
    assert len(ens) == 7 and set(ens["w-good"].members) == {
        "llm:sim-judge/strict", "llm:sim-judge/lenient", "llm:sim-judge/noisy"}
    for member in ens["w-good"].members:  # each member's own verdict is stored too
        assert {v.trace_id for v in ws.verdicts(member)} >= {"w-good", "m-bad"}
    assert ws.get_meta("primary_judge") == "facts" and s.primary == "facts"
    st = s.judges[ENSEMBLE]
    assert st.written == 7 and st.model_calls == 5 * 3  # abstention and error: no call
    assert st.correct + st.incorrect + st.unscored == 7
    # resumable: a second run has nothing to do and makes no model call
    again = judge_workspace(ws, [ENSEMBLE, "facts"], suite=suite, progress=False)
    assert again.judges[ENSEMBLE].pending == 0 and again.model_calls == 0
    # cache: drop the verdicts, rerun → every call answered from the workspace cache
    with ws.transaction() as conn:
        conn.execute("DELETE FROM verdicts")
    third = judge_workspace(ws, [ENSEMBLE], suite=suite, progress=False)
    assert third.judges[ENSEMBLE].model_calls == 0
    assert third.judges[ENSEMBLE].cached_calls == 15
    assert {v.trace_id: v.correct for v in ws.verdicts(ENSEMBLE)} == {
        k: v.correct for k, v in ens.items()}
    with ws.transaction() as conn:
        conn.execute("DELETE FROM verdicts")
    fresh = judge_workspace(ws, [ENSEMBLE], suite=suite, progress=False, use_cache=False)
    assert fresh.judges[ENSEMBLE].model_calls == 15


def test_unreachable_model_stops_and_writes_nothing(tmp_path: Path, suite: Suite) -> None:
    ws = _workspace(tmp_path / "w")
    with pytest.raises(JudgeUnavailableError, match="unreachable"):
        judge_workspace(ws, ["facts", "llm:sim-judge/unreachable"], suite=suite,
                        progress=False)
    assert ws.verdicts("llm:sim-judge/unreachable") == []


def test_primary_must_exist(tmp_path: Path, suite: Suite) -> None:
    from agentprop.judges import JudgeError

    ws = _workspace(tmp_path / "w")
    with pytest.raises(JudgeError):
        judge_workspace(ws, ["facts"], suite=suite, primary="heuristic", progress=False)


def _suite_file(tmp_path: Path) -> Path:
    p = tmp_path / "suite.jsonl"
    Suite(list(TASKS), seed=0).to_jsonl(p)
    return p


def test_cli(tmp_path: Path) -> None:
    _workspace(tmp_path / "w").close()
    suite = str(_suite_file(tmp_path))
    runner = CliRunner()
    r = runner.invoke(app, ["judge", "-w", str(tmp_path / "w"), "--judge", "facts", "--judge",
                            ENSEMBLE, "--primary", "facts", "--suite", suite, "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["judges"]["facts"]["written"] == 7 and out["primary"] == "facts"
    bad = runner.invoke(app, ["judge", "-w", str(tmp_path / "w"), "--judge", "nonsense"])
    assert bad.exit_code == 2 and "valid forms" in bad.output
    assert "Traceback" not in bad.output
    down = runner.invoke(app, ["judge", "-w", str(tmp_path / "w"), "--judge",
                               "llm:sim-judge/unreachable", "--suite", suite])
    assert down.exit_code == 1 and "unreachable" in down.output
    assert Workspace(tmp_path / "w").verdicts("llm:sim-judge/unreachable") == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_openai_sdk_through_serve_sim(tmp_path: Path, suite: Suite,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The real openai client against the models engineer's OpenAI-compatible sim server:
    a reply that is not YES/NO is unscored with the raw text kept; a rerun hits the cache;
    a closed port stops the run."""
    server = pytest.importorskip("agentprop.sim._server")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    ws = _workspace(tmp_path / "w")
    with server.ServerThread(server.ServerConfig(port=0), suite=suite) as srv:
        opts = {"base_url": srv.base_url, "max_attempts": 1}
        s1 = judge_workspace(ws, ["llm:openai/sim/balanced"], suite=suite, progress=False,
                             model_options=opts)
        calls = srv.stats["chat_completions"]
        assert calls == 5 and s1.judges["llm:openai/sim/balanced"].model_calls == 5
        v = next(v for v in ws.verdicts("llm:openai/sim/balanced") if v.trace_id == "w-good")
        assert v.correct is None and isinstance(v.raw["output"], str)
        with ws.transaction() as conn:
            conn.execute("DELETE FROM verdicts")
        s2 = judge_workspace(ws, ["llm:openai/sim/balanced"], suite=suite, progress=False,
                             model_options=opts)
        assert srv.stats["chat_completions"] == calls  # all from the cache
        assert s2.judges["llm:openai/sim/balanced"].cached_calls == 5
    with pytest.raises(JudgeUnavailableError):
        judge_workspace(ws, ["llm:openai/gpt-4o-mini"], suite=suite, progress=False,
                        model_options={"base_url": f"http://127.0.0.1:{_free_port()}/v1",
                                       "max_attempts": 1})
    assert ws.verdicts("llm:openai/gpt-4o-mini") == []


def test_judging_can_be_limited_to_runs(tmp_path: Path, suite: Suite) -> None:
    ws = Workspace(tmp_path / "w")
    mine = make_trace("mine", WEATHER, "Tomorrow in London: 14°C, light rain.")
    other = make_trace("other", WEATHER, "Paris: 21 °C, sunny.").model_copy(
        update={"run_id": "other-run"})
    ws.put_traces([mine.model_copy(update={"run_id": "eval-run"}), other])
    judge_workspace(ws, ["facts"], suite=suite, progress=False, run_ids=["eval-run"])
    assert {v.trace_id for v in ws.verdicts("facts")} == {"mine"}
    judge_workspace(ws, ["facts"], suite=suite, progress=False)
    assert {v.trace_id for v in ws.verdicts("facts")} == {"mine", "other"}

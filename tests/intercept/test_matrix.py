"""`agentprop intercept matrix` and `evaluate --guard` with simulated agents: each guard
against its own concurrent control, the numbers the CLI prints are the analysis's, and the
report draws the matrix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.store import Workspace

RUNNER = CliRunner()
MODEL = "sim/propagator"


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    ws = tmp_path_factory.mktemp("matrix") / "w"
    res = RUNNER.invoke(app, [
        "intercept", "matrix", "-w", str(ws), "-m", MODEL, "--mitigation", "retry",
        "--mitigation", "abstain_l1", "-c", "fault:timeout", "-c", "out:wrong_value",
        "--n", "20", "--concurrency", "4", "--json"])
    assert res.exit_code == 0, res.output
    return ws, json.loads(res.output)


def _cell(out: dict[str, Any], mitigation: str, condition: str) -> dict[str, Any]:
    return next(c for c in out["cells"]
                if c["mitigation"] == mitigation and c["condition"] == condition)


def test_each_mitigation_has_its_own_paired_run_with_clean_runs(
        matrix: tuple[Path, dict[str, Any]]) -> None:
    ws, out = matrix
    assert out["conditions"] == ["fault:timeout", "out:wrong_value", "baseline"]
    assert set(out["runs"]) == {"retry", "abstain_l1"}
    assert len(set(out["runs"].values())) == 2
    with Workspace(ws) as w:
        for run in out["runs"].values():
            arms = {(t.condition, t.arm) for t in w.iter_traces(run_id=run)}
            assert arms == {(c, a) for c in out["conditions"] for a in ("control", "treatment")}


def test_retry_fixes_a_transient_fault_and_cannot_touch_a_wrong_value(
        matrix: tuple[Path, dict[str, Any]]) -> None:
    _, out = matrix
    timeout = _cell(out, "retry", "fault:timeout")
    assert timeout["n_pairs"] == 20 and timeout["broken"] == 0
    assert timeout["delta_hallucination"] < 0 and timeout["delta_ci_high"] < 0
    wrong = _cell(out, "retry", "out:wrong_value")
    assert wrong["delta_hallucination"] == 0 and wrong["saved"] == wrong["broken"] == 0
    clean = _cell(out, "abstain_l1", "baseline")
    assert clean["false_alarm_rate"] is not None  # the cost on clean runs is measured


def test_cli_cells_are_the_analysis_numbers_and_the_report_draws_them(
        matrix: tuple[Path, dict[str, Any]]) -> None:
    ws, out = matrix
    res = RUNNER.invoke(app, ["analyze", "-w", str(ws), "--json", "--resamples", "1000"])
    assert res.exit_code == 0, res.output
    numbers = json.loads(res.output)
    for c in out["cells"]:
        key = f"mitigation_matrix.delta_hallucination[{c['mitigation']}|{c['condition']}]"
        assert numbers[key]["value"] == pytest.approx(c["delta_hallucination"]), key
        assert numbers[key]["ci"] == pytest.approx([c["delta_ci_low"], c["delta_ci_high"]])
    # guard runs are the matrix's, not interceptor evaluations of their own
    assert not any(k.startswith("interceptor.") for k in numbers)
    res = RUNNER.invoke(app, ["report", "-w", str(ws)])
    assert res.exit_code == 0, res.output
    assert (ws / "report" / "figures" / "mitigation_matrix.png").stat().st_size > 10_000


def test_text_output_fits_80_columns(matrix: tuple[Path, dict[str, Any]]) -> None:
    ws, _ = matrix
    res = RUNNER.invoke(app, [
        "intercept", "matrix", "-w", str(ws), "-m", MODEL, "--mitigation", "retry",
        "--mitigation", "abstain_l1", "-c", "fault:timeout", "-c", "out:wrong_value",
        "--n", "20"], env={"COLUMNS": "80"}, terminal_width=80)
    assert res.exit_code == 0, res.output
    assert max(len(line) for line in res.output.splitlines()) <= 80
    for name in ("fault:timeout", "out:wrong_value", "abstain_l1", "retry"):
        assert name in res.output
    assert "retry on clean runs: false alarms" in res.output


@pytest.mark.parametrize(("args", "message"), [
    (["--mitigation", "retyr"], "did you mean 'retry'"),
    (["--mitigation", "tests.intercept.test_guards:_FrameworkThing"], "--agent"),
    (["-c", "fault:timout"], "fault:timeout"),
    (["--split", "train"], "invalid split"),
])
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    res = RUNNER.invoke(app, ["intercept", "matrix", "-w", str(tmp_path / "w"), "-m", MODEL,
                              "--n", "5", *args])
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output
    assert not (tmp_path / "w").exists()  # nothing written


def test_evaluate_guard_refuses_to_mix_with_another_guard_in_one_run(tmp_path: Path) -> None:
    base = ["intercept", "evaluate", "-w", str(tmp_path / "w"), "-m", MODEL, "-c",
            "fault:timeout", "--n", "6", "--run-id", "one", "--json"]
    res = RUNNER.invoke(app, [*base, "--guard", "retry"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["guard"] == "retry" and out["replay"] == []  # retry does more than abstain
    acted = {r["condition"]: r["acted_rate"] for r in out["guard_actions"]}
    assert acted == {"baseline": 0.0, "fault:timeout": 1.0}
    res = RUNNER.invoke(app, [*base, "--guard", "abstain_l1"])
    assert res.exit_code == 2 and "guard retry" in res.output

"""`agentprop intercept sweep --max-false-abstain`: Learn-then-Test on a small sim
workspace (val and test runs of two sim agents, judged by the facts judge), the stored
guarantee, the realised rates recomputed by replay, and the no-valid-config path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import binom
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.intercept import InterceptConfig, replay
from agentprop.store import Workspace

from .test_cli import _workspace

RUNNER = CliRunner()
ALPHA = 0.2


@pytest.fixture(scope="module")
def sim_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("ltt") / "w"
    for split in ("val", "test"):
        res = RUNNER.invoke(app, [
            "run", "-w", str(ws), "-m", "sim/propagator", "-m", "sim/self-correcting",
            "-c", "baseline", "-c", "p2:type_mismatch", "-c", "p2:semantic_wrong",
            "--split", split, "-n", "30", "--concurrency", "8", "--preflight", "off",
            "--json"])
        assert res.exit_code == 0, res.output
    assert RUNNER.invoke(app, ["judge", "-w", str(ws), "-j", "facts", "--json"]).exit_code == 0
    return ws


def _sweep(ws: Path, *args: str) -> tuple[int, str]:
    res = RUNNER.invoke(app, ["intercept", "sweep", "-w", str(ws), *args])
    return res.exit_code, res.output


def test_the_guarantee_is_chosen_stored_and_measured_on_test(sim_ws: Path) -> None:
    code, out = _sweep(sim_ws, "--max-false-abstain", str(ALPHA), "--json")
    assert code == 0, out
    res = json.loads(out)
    g = res["guarantee"]
    assert (g["alpha"], g["delta"], g["correction"]) == (ALPHA, 0.1, "bonferroni")
    assert g["config"] == res["best_label"]
    # the p-value is the exact binomial tail of the chosen configuration's val counts
    assert g["p_value"] == pytest.approx(binom.cdf(g["k"], g["n"], ALPHA), rel=1e-12)
    assert g["p_value"] <= g["level"] == pytest.approx(0.1 / 12)
    assert g["val_rate"] == pytest.approx(g["k"] / g["n"])
    chosen = next(c for c in g["candidates"] if c["config"] == g["config"])
    assert chosen["valid"] and len(g["candidates"]) == 12
    # the most hallucinations caught among the valid configurations
    rows = {r["config"]: r for r in res["rows"]}
    valid = [c["config"] for c in g["candidates"] if c["valid"]]
    assert rows[g["config"]]["tp"] == max(rows[c]["tp"] for c in valid)
    assert [r["config"] for r in res["rows"] if r["best"]] == [g["config"]]

    # the realised rates, recomputed by replaying the chosen configuration on test
    cfg = InterceptConfig.model_validate(res["best"])
    with Workspace(sim_ws) as ws:
        verdicts = {tid: ok for tid, _, ok, _ in ws.verdict_rows("facts")}
        fires = [(t.condition, replay(t, cfg).fires) for t in ws.iter_traces(
                     split="test", arm=["", "control"])
                 if t.status == "ok" and verdicts.get(t.id) is True]
        meta = ws.meta()
    assert (g["held_out_split"], g["held_out"]["n"]) == ("test", len(fires)) and fires
    assert g["held_out"]["k"] == sum(f for _, f in fires)
    base = [f for c, f in fires if c == "baseline"]
    assert (g["baseline"]["n"], g["baseline"]["k"]) == (len(base), sum(base))
    assert 0 <= g["aurc_val"]["value"] <= 1 and g["aurc_held_out"]["n"] > g["held_out"]["n"]
    # stored where `--config best` reads it, with the guarantee beside it
    assert meta.interceptor_config == res["best"]
    assert meta.interceptor_guarantee == g
    # the risk–coverage curve the AURC is the area under: coverage rises to 1, and at
    # coverage 1 the risk is the share of wrong answers
    curve = g["aurc_val"]
    assert curve["coverage"] == sorted(curve["coverage"]) and curve["coverage"][-1] == 1.0
    assert len(curve["risk"]) == len(curve["coverage"])
    assert all(0 <= r <= 1 for r in curve["risk"])


def test_the_report_draws_the_risk_coverage_curves(sim_ws: Path) -> None:
    code, out = _sweep(sim_ws, "--max-false-abstain", str(ALPHA))
    assert code == 0, out
    res = RUNNER.invoke(app, ["report", "-w", str(sim_ws)])
    assert res.exit_code == 0, res.output
    assert (sim_ws / "report" / "figures" / "risk_coverage.png").stat().st_size > 5_000


def test_the_text_output_states_promise_and_realised_rates(sim_ws: Path) -> None:
    code, out = _sweep(sim_ws, "--max-false-abstain", str(ALPHA), "--delta", "0.05")
    assert code == 0, out
    assert f"α = {ALPHA:g}" in out and "1 − δ = 0.95" in out
    assert "realised false-abstain rate, test:" in out and "clean baseline" in out
    assert "AURC of the signal strength: val " in out


def test_no_valid_configuration_is_one_line_exit_1_and_stores_nothing(
    sim_ws: Path, tmp_path: Path,
) -> None:
    assert _sweep(sim_ws)[0] == 0  # an F1 choice, no guarantee
    with Workspace(sim_ws) as ws:
        before = ws.meta()
    assert before.interceptor_guarantee is None
    code, out = _sweep(sim_ws, "--max-false-abstain", "0.01")
    assert code == 1 and "Traceback" not in out
    assert "no configuration keeps P(abstain | right answer) ≤ 0.01" in out
    assert "collect more val traces or raise --max-false-abstain" in out
    assert len(out.strip().splitlines()) == 1
    with Workspace(sim_ws) as ws:
        after = ws.meta()
    assert after.interceptor_config == before.interceptor_config
    assert after.interceptor_sweep == before.interceptor_sweep
    # the hand-built sweep workspace: 4 right answers promise nothing at any sensible α
    _workspace(tmp_path / "w", judged=True)
    code, out = _sweep(tmp_path / "w", "--max-false-abstain", "0.2")
    assert code == 1 and "on 4 right val answers" in out


@pytest.mark.parametrize("args", [["--max-false-abstain", "0"], ["--max-false-abstain", "1"],
                                  ["--max-false-abstain", "0.1", "--delta", "1.5"],
                                  ["--delta", "0.1"]])
def test_bad_levels_are_one_line_and_exit_2(sim_ws: Path, args: list[str]) -> None:
    code, out = _sweep(sim_ws, *args)
    assert code == 2 and "Traceback" not in out and len(out.strip().splitlines()) == 1


def test_an_f1_sweep_clears_a_stale_guarantee(sim_ws: Path) -> None:
    assert _sweep(sim_ws, "--max-false-abstain", str(ALPHA))[0] == 0
    with Workspace(sim_ws) as ws:
        assert ws.meta().interceptor_guarantee is not None
    assert _sweep(sim_ws)[0] == 0
    with Workspace(sim_ws) as ws:
        assert ws.meta().interceptor_guarantee is None


def test_evaluate_of_the_guaranteed_config_prints_its_realised_rate(sim_ws: Path) -> None:
    assert _sweep(sim_ws, "--max-false-abstain", str(ALPHA))[0] == 0
    args = ["intercept", "evaluate", "-w", str(sim_ws), "-m", "sim/self-correcting", "-n",
            "8", "-c", "p2:type_mismatch", "--preflight", "off"]
    res = RUNNER.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    g = out["guarantee"]
    ab = out["ab"]
    assert (g["alpha"], g["delta"]) == (ALPHA, 0.1)
    assert (g["k"], g["n"]) == (sum(a["false_alarms"] for a in ab),
                                sum(a["n_control_correct"] for a in ab))
    text = RUNNER.invoke(app, args).output  # resumed: the same run, printed
    assert f"false-abstain rate of this run: {g['k']}/{g['n']}" in text
    assert f"promised ≤ α = {ALPHA:g}" in text
    # another configuration's evaluation makes no claim about the guarantee
    other = RUNNER.invoke(app, [*args, "--config", "tau_l1=1,tau_l2=2,l3=on", "--json"])
    assert other.exit_code == 0 and "guarantee" not in json.loads(other.output)

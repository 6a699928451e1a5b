"""One home per formula: on one workspace, `agentprop intercept evaluate --json`, `agentprop
label agreement --json` and numbers.json give the same Δ, saved/broken, McNemar p and κ;
and two interceptor evaluations in one workspace stay two sets of numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import Label
from agentprop.store import Workspace

RUNNER = CliRunner()
MODEL = "sim/propagator"
CONFIG = "tau_l1=1,tau_l2=2,l3=on"


def _ok(*args: str) -> str:
    res = RUNNER.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def _evaluate(ws: Path, *extra: str) -> dict[str, Any]:
    out = _ok("intercept", "evaluate", "-w", str(ws), "-m", MODEL, "--n", "24",
              "--config", CONFIG, "-c", "p2:type_mismatch", "--json", *extra)
    return json.loads(out)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("agree") / "W"
    _ok("run", "-m", MODEL, "-m", "sim/balanced", "-c", "baseline", "-c", "p2:semantic_wrong",
        "-n", "40", "--split", "test", "-w", str(ws), "--json")
    _ok("judge", "-w", str(ws), "-j", "facts", "-j", "heuristic", "--json")
    with Workspace(ws) as w:
        rows = w.trace_rows(model=MODEL)
        verdicts = {v[0]: v[2] for v in w.verdict_rows("facts")}
        labels = []
        for i, r in enumerate(rows[:40]):  # a human who disagrees with facts now and then
            ok = verdicts.get(r["id"])
            if ok is None:
                continue
            human = ok if i % 5 else not ok
            labels.append(Label(trace_id=r["id"], annotator="ann",
                                label="correct" if human else "incorrect"))
            if i % 3 == 0:
                labels.append(Label(trace_id=r["id"], annotator="bob",
                                    label="correct" if ok else "incorrect"))
        w.put_labels(labels)
    return ws


def test_cli_json_and_numbers_json_agree(workspace: Path) -> None:
    ev = _evaluate(workspace)
    agreement = json.loads(_ok("label", "agreement", "-w", str(workspace), "--json"))
    _ok("report", "-w", str(workspace))
    numbers = json.loads((workspace / "report" / "numbers.json").read_text())
    analyzed = json.loads(_ok("analyze", "-w", str(workspace), "--json"))
    assert analyzed == numbers

    (ab,) = ev["ab"]  # one model, one condition: numbers.json keys it by the model
    n = numbers
    assert n[f"interceptor.n_pairs[{MODEL}]"]["value"] == ab["n_pairs"] > 0
    assert n[f"interceptor.delta_hallucination[{MODEL}]"]["value"] == ab["delta_hallucination"]
    assert n[f"interceptor.delta_hallucination[{MODEL}]"]["ci"] == [ab["delta_ci_low"],
                                                                    ab["delta_ci_high"]]
    assert n[f"interceptor.saved[{MODEL}]"]["value"] == ab["saved"] > 0
    assert n[f"interceptor.broken[{MODEL}]"]["value"] == ab["broken"]
    assert n[f"interceptor.mcnemar_p[{MODEL}]"]["value"] == ab["mcnemar_p"] is not None
    assert n[f"interceptor.ztest_p[{MODEL}]"]["value"] == ab["ztest_p"]
    assert n[f"interceptor.false_alarm_rate[{MODEL}]"]["value"] == ab["false_alarm_rate"]

    for judge in ("facts", "heuristic"):
        k = agreement["judges"][judge]
        entry = n[f"judges.kappa[{judge}~human]"]
        assert entry["value"] == k["kappa"] and entry["n"] == k["n"] > 0
        assert entry["ci"] == [k["ci_low"], k["ci_high"]]
        asym = n[f"judges.kappa_asymptotic[{judge}~human]"]["ci"]
        assert asym == [k["asymptotic_ci_low"], k["asymptotic_ci_high"]]
        (tp, fp), (fn, tn) = k["confusion"]
        assert [n[f"judges.{c}[{judge}~human]"]["value"] for c in ("tp", "fp", "fn", "tn")] \
            == [tp, fp, fn, tn]
    assert n["judges.krippendorff_alpha[annotators]"]["value"] == agreement[
        "krippendorff_alpha"]


def test_two_evaluations_give_two_sets_of_numbers(workspace: Path) -> None:
    first = _evaluate(workspace)  # the abstain-mode run of the test above (resumed)
    second = _evaluate(workspace, "--mode", "warn")
    assert first["run_id"] != second["run_id"]
    numbers = json.loads(_ok("analyze", "-w", str(workspace), "--json", "--resamples", "50"))
    assert f"interceptor.n_pairs[{MODEL}]" not in numbers  # never a blend of the two
    for ev in (first, second):
        key = f"{MODEL}@{ev['run_id']}"
        (ab,) = ev["ab"]
        assert numbers[f"interceptor.n_pairs[{key}]"]["value"] == ab["n_pairs"]
        assert numbers[f"interceptor.delta_hallucination[{key}]"]["value"] == pytest.approx(
            ab["delta_hallucination"])


def test_a_run_id_is_not_resumed_under_another_configuration(workspace: Path) -> None:
    first = _evaluate(workspace)
    res = RUNNER.invoke(app, ["intercept", "evaluate", "-w", str(workspace), "-m", MODEL,
                              "--n", "24", "--config", CONFIG, "-c", "p2:type_mismatch",
                              "--mode", "warn", "--run-id", first["run_id"], "--json"])
    assert res.exit_code == 2
    assert "already holds an evaluation" in res.output and "Traceback" not in res.output

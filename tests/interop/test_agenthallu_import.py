"""Importing the paper's release reproduces its published numbers; bad files write nothing."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.interop import ReleaseFormatError, import_agenthallu, read_release
from agentprop.store import DB_NAME, Workspace

RELEASE = Path(__file__).parents[1] / "fixtures" / "agenthallu-release"
runner = CliRunner()


@pytest.fixture(scope="module")
def numbers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    ws = tmp_path_factory.mktemp("ws") / "W"
    res = runner.invoke(app, ["import", "agenthallu", str(RELEASE), "--workspace", str(ws)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["analyze", "--workspace", str(ws), "--json",
                              "--resamples", "200"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def v(numbers: dict[str, dict], name: str) -> float:
    return float(numbers[name]["value"])


def test_pooled_r23_is_123_of_158(numbers: dict[str, dict]) -> None:
    # semantic_wrong traces, S2 = eps >= 2, S3 = not ensemble_correct
    assert numbers["propagation.r_23"]["n"] == 158
    assert v(numbers, "propagation.r_23") == pytest.approx(123 / 158)
    lo, hi = numbers["propagation.r_23"]["ci"]
    assert lo < 123 / 158 < hi


def test_per_model_r23_range(numbers: dict[str, dict]) -> None:
    per = {k: x for k, x in numbers.items()
           if k.startswith("propagation.r_23[") and x["value"] is not None}
    assert len(per) == 9
    lowest = min(per, key=lambda k: per[k]["value"])
    highest = max(per, key=lambda k: per[k]["value"])
    assert lowest == "propagation.r_23[deepseek_v3]" and per[lowest]["n"] == 14
    assert per[lowest]["value"] == pytest.approx(0.429, abs=5e-4)
    assert highest == "propagation.r_23[gpt41_nano]" and per[highest]["n"] == 35
    assert per[highest]["value"] == pytest.approx(0.971, abs=5e-4)


def test_p_s1_and_rejection_recovery_spearman(numbers: dict[str, dict]) -> None:
    assert v(numbers, "propagation.p_S1[gemini_20_flash]") == pytest.approx(0.05)
    assert v(numbers, "propagation.p_S1[gpt4o_mini]") == pytest.approx(0.40)
    assert numbers["propagation.p_S1[gpt4o_mini]"]["n"] == 200
    assert v(numbers, "rejection_recovery.spearman_rho") == pytest.approx(0.126, abs=5e-4)
    assert v(numbers, "rejection_recovery.spearman_p") == pytest.approx(0.747, abs=5e-4)
    assert numbers["rejection_recovery.spearman_rho"]["n"] == 9
    # the paper's Table 6 examples: GPT-4.1-nano rejection 37.5 %, recovery 2.9 %
    assert v(numbers, "rejection_recovery.rejection[gpt41_nano]") == pytest.approx(0.375)
    assert v(numbers, "rejection_recovery.recovery[gpt41_nano]") == pytest.approx(1 / 35)
    # injection-to-error range 0.57–0.90 (ensemble)
    inj = [x["value"] for k, x in numbers.items() if k.startswith("propagation.inj_to_err[")]
    assert min(inj) == pytest.approx(0.567, abs=1e-3) and max(inj) == pytest.approx(0.90)


def test_interceptor_numbers(numbers: dict[str, dict]) -> None:
    # control vs held-out treatment, paired on (model, task_id): 600 pairs per model
    assert numbers["interceptor.n_pairs[gpt4o_mini]"]["value"] == 600
    assert v(numbers, "interceptor.hallucination_control[gpt4o_mini]") == pytest.approx(0.558,
                                                                                      abs=5e-4)
    assert v(numbers, "interceptor.hallucination_treatment[gpt4o_mini]") == pytest.approx(
        0.328, abs=5e-4)
    assert v(numbers, "interceptor.saved[gpt4o_mini]") == 163
    assert v(numbers, "interceptor.broken[gpt4o_mini]") == 25
    assert v(numbers, "interceptor.delta_hallucination[gpt4o_mini]") == pytest.approx(-0.230,
                                                                                    abs=5e-4)
    assert v(numbers, "interceptor.hallucination_control[gemini_20_flash]") == pytest.approx(
        0.445)
    assert v(numbers, "interceptor.hallucination_treatment[gemini_20_flash]") == pytest.approx(
        0.432, abs=5e-4)
    assert v(numbers, "interceptor.abstention_treatment[gemini_20_flash]") == pytest.approx(
        0.028, abs=5e-4)
    assert v(numbers, "interceptor.mcnemar_p[gpt4o_mini]") < 0.001


def test_baseline_vs_p2_and_judges(numbers: dict[str, dict]) -> None:
    # the paper's Table 5: P2 | injection applied, GPT-4o-mini 16.2 %, o3-mini 24.3 %
    assert v(numbers, "baseline_vs_p2.p2_injected_correct[gpt4o_mini]") == pytest.approx(0.1625)
    assert v(numbers, "baseline_vs_p2.p2_injected_correct[o3_mini]") == pytest.approx(0.243,
                                                                                    abs=5e-4)
    assert numbers["baseline_vs_p2.baseline_correct[gpt4o_mini]"]["value"] is None  # no file
    for name in ("judges.kappa[heuristic~majority]", "judges.kappa[gpt4o_mini~majority]",
                 "judges.kappa_loo[gpt4o_mini~majority]", "judges.kappa[majority~human]"):
        assert name in numbers
    assert numbers["judges.kappa[gpt4o_mini~majority]"]["n"] == 1350


def test_imported_traces_carry_release_semantics(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "W")
    res = import_agenthallu(RELEASE, ws)
    assert ws.get_meta("imported") == "agenthallu"
    assert ws.get_meta("primary_judge") == "majority"
    assert set(ws.judges()) == {"heuristic", "gpt4o", "gemini_25_flash", "gpt4o_mini",
                                "majority"}
    t = ws.get_trace("p2_semantic_wrong_gpt4o_mini_calendar_100_34fc8f")
    assert t is not None and t.condition == "p2:semantic_wrong"
    assert t.release_stages["S1"] is True and t.release_stages["S2"] is True
    assert t.meta["imported"] == "agenthallu" and t.final_answer
    rows = ws.trace_rows()
    assert {r["domain"] for r in rows} <= {"calendar", "weather", "medical", "knowledge"}
    assert {r["split"] for r in rows} == {"test"}
    assert {r["arm"] for r in rows} == {"", "control", "treatment"}
    assert len(res.labels) == 13
    ws.close()


def _copy(tmp_path: Path) -> Path:
    d = tmp_path / "release"
    shutil.copytree(RELEASE, d)
    return d


def _rewrite(path: Path, fn) -> None:  # type: ignore[no-untyped-def]
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    rows = fn(rows)
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)


@pytest.mark.parametrize("corrupt,message", [
    (lambda rows: [rows[0], [*rows[1][:10], "x", *rows[1][11:]], *rows[2:]],
     "p2_all_rejudged.csv line 2: eps must be a non-negative integer"),
    (lambda rows: [[c for c in rows[0] if c != "ensemble_correct"], *rows[1:]],
     "p2_all_rejudged.csv: missing column(s) ensemble_correct"),
])
def test_malformed_file_writes_nothing(tmp_path: Path, corrupt, message: str) -> None:  # type: ignore[no-untyped-def]
    d = _copy(tmp_path)
    _rewrite(d / "p2_all_rejudged.csv", corrupt)
    ws = tmp_path / "W"
    res = runner.invoke(app, ["import", "agenthallu", str(d), "--workspace", str(ws)])
    assert res.exit_code != 0
    assert message in res.output.replace("\n", " ")
    assert "Traceback" not in res.output
    assert not (ws / DB_NAME).exists()


def test_malformed_late_file_leaves_existing_workspace_untouched(tmp_path: Path) -> None:
    d = _copy(tmp_path)
    _rewrite(d / "interceptor_heldout_600.csv",
             lambda rows: [*rows[:5], [*rows[5][:6], "maybe", *rows[5][7:]], *rows[6:]])
    ws = Workspace(tmp_path / "W")
    with pytest.raises(ReleaseFormatError, match="abstained must be True or False"):
        import_agenthallu(d, ws)
    assert ws.count_traces() == 0 and ws.verdicts() == [] and ws.get_meta("imported") is None
    ws.close()


def test_baseline_and_panel_files_are_recognised(tmp_path: Path) -> None:
    d = tmp_path / "rel"
    d.mkdir()
    p2_header = ["session_id", "task_id", "model", "domain", "difficulty", "source",
                 "error_type", "tool_selected", "tool_correct", "final_correct", "eps", "weps",
                 "reached_output", "cascade_count", "cost", "final_answer", "ground_truth",
                 "query", "gpt4o_verdict", "gemini_25_flash_verdict", "gpt4o_mini_verdict",
                 "ensemble_correct", "heuristic_correct"]
    base_header = [c for c in p2_header if c not in
                   {"error_type", "eps", "weps", "reached_output", "cascade_count"}]

    def p2row(sid: str, task: str, eps: int, ok: bool) -> list[str]:
        return [sid, task, "m", "weather", "easy", "synthetic", "semantic_wrong", "get", "True",
                str(ok), str(eps), "0", "False", "0", "0", "ans", "ref", "q",
                str(ok), str(ok), str(ok), str(ok), "True"]

    with (d / "p2_x.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(p2_header)
        w.writerow(p2row("p2_a", "weather_001", 2, False))
        w.writerow(p2row("p2_b", "weather_002", 1, True))
    with (d / "baseline_x.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(base_header)
        for sid, task, ok in (("b1", "weather_001", True), ("b2", "weather_002", True),
                              ("b3", "weather_003", False)):
            r = dict(zip(p2_header, p2row(sid, task, 0, ok), strict=True))
            w.writerow([r[c] for c in base_header])
    with (d / "judge_panel.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["session_id", "task_id", "model", "injection_type", "heuristic_correct",
                    "gpt4o_verdict", "gemini_25_flash_verdict", "gpt4o_mini_verdict",
                    "majority", "unanimous_yes", "unanimous_no", "candidate", "reference"])
        w.writerow(["p2_a", "weather_001", "m", "semantic_wrong", "True", "False", "False",
                    "False", "False", "False", "True", "ans", "ref"])
        w.writerow(["p2_c", "medical_004", "m", "out_of_range", "True", "True", "False",
                    "True", "True", "False", "False", "<b>x</b>", "ref"])
    (d / "notes.csv").write_text("a,b\n1,2\n")
    res = read_release(d)
    assert res.files == {"baseline_x.csv": "baseline", "judge_panel.csv": "panel",
                         "p2_x.csv": "p2"}
    assert res.skipped == ["notes.csv"]
    by_id = {t.id: t for t in res.traces}
    assert by_id["b1"].condition == "baseline" and by_id["p2_c"].condition == "p2:out_of_range"
    assert by_id["p2_c"].domain == "medical" and by_id["p2_c"].release_stages["S1"] is None
    ws = Workspace(tmp_path / "W")
    import_agenthallu(d, ws)
    ws.close()
    out = runner.invoke(app, ["analyze", "--workspace", str(tmp_path / "W"), "--json",
                              "--resamples", "50"])
    assert out.exit_code == 0, out.output
    n = json.loads(out.stdout)
    assert n["baseline_vs_p2.baseline_correct[m]"]["value"] == pytest.approx(2 / 3)
    assert n["baseline_vs_p2.p2_injected_correct[m]"]["value"] == pytest.approx(1 / 2)
    assert n["baseline_vs_p2.matched_baseline_correct[m]"]["value"] == pytest.approx(1.0)
    assert n["baseline_vs_p2.matched_p2_injected_correct[m]"]["value"] == pytest.approx(0.5)

"""The simulation check and the judge validity, measured outside the analysis (by the study,
on the shipped validation set), reach numbers.json, tables/ and the page as registered
sections: typed fields of the analysis input, no special case in the report."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from agentprop.analysis import AnalysisInput, JudgeValidity, build_input, numbers_manifest
from agentprop.core import FinalEvent, Trace, Verdict
from agentprop.report import analyze, build_report

SIM_ROWS = [
    {"model": "sim/a", "metric": "r_23", "true": 0.5, "estimate": 0.45, "ci_lo": 0.3,
     "ci_hi": 0.6, "n": 40, "covered": True, "note": "easy tasks only", "level": 0.99,
     "judge": "facts"},
    {"model": "sim/a", "metric": "S2_rate", "true": 0.9, "estimate": 0.5, "ci_lo": 0.4,
     "ci_hi": 0.6, "n": 40, "covered": False, "note": "", "level": 0.99, "judge": "facts"},
]
VALIDITY = {"tasks": 12, "judges": {
    "facts": {"n": 50, "kappa": 0.9, "kappa_lo": 0.8, "kappa_hi": 0.95, "accuracy": 0.96,
              "false_accept_rate": 0.05, "false_reject_rate": 0.04, "right": 25},
    "heuristic": {"n": 50, "kappa": None},
    "noticed": {"n": 40, "kappa": 0.61, "kappa_lo": 0.4, "kappa_hi": 0.8,
                "false_alarm_rate": 0.0, "negatives": 15}},
    "labels": {"facts": "two graders, 2026-11-30, by the rule", "noticed": "held out set"},
    "held_out": {"facts": False, "noticed": True},
    "stress": {"facts": {"paraphrase": {"expect": "stable", "n": 50, "flips": 1, "rate": 0.02},
                         "number": {"expect": "flip", "n": 20, "flips": 16, "rate": 0.8}}},
    "real_text": {
        "_source": {"model": "SmolLM2-135M-Instruct (Q4_1, in-process)", "labels": "two"},
        "facts": {"n": 231, "prevalence": 0.0, "kappa": None, "accuracy": 0.996,
                  "positive": {"n": 0, "precision": 0.0, "recall": None},
                  "negative": {"n": 231, "precision": 1.0, "recall": 0.996}},
        "noticed": {"n": 127, "prevalence": 0.3, "kappa": 0.0, "kappa_lo": 0.0,
                    "kappa_hi": 0.0, "positive": {"n": 38, "recall": 0.0},
                    "negative": {"n": 89, "recall": 1.0}}}}


def _input(**extra: object) -> AnalysisInput:
    traces = [Trace(id=f"t{k}", run_id="r", model="sim/a", task_id=f"weather_{k:03d}",
                    domain="weather", split="test", difficulty="easy", condition="baseline",
                    events=[FinalEvent(step=0, answer="fine")]) for k in range(3)]
    return build_input(traces, [Verdict(trace_id=t.id, judge="facts", correct=True)
                                for t in traces], **extra)  # type: ignore[arg-type]


def test_numbers_carry_the_check_and_the_measured_kappa() -> None:
    res = analyze(_input(simulation_check=pd.DataFrame(SIM_ROWS),
                         judge_validity=JudgeValidity.from_summary(VALIDITY)), n_resamples=20)
    m = numbers_manifest(res)
    assert m["simulation_check.r_23[sim/a]"] == {
        "value": 0.45, "n": 40, "ci": [0.3, 0.6], "true": 0.5, "covered": True}
    assert m["simulation_check.S2_rate[sim/a]"]["covered"] is False
    assert m["judge_validity.kappa[facts]"] == {"value": 0.9, "n": 50, "ci": [0.8, 0.95]}
    assert "judge_validity.kappa[heuristic]" not in m  # not measured: no card
    # the card's other numbers: false alarms (labels; a detector's on clean runs too) and
    # the stress flip rates
    assert m["judge_validity.false_alarm_rate[facts]"]["value"] == 0.04
    assert m["judge_validity.false_alarm_rate[facts]"]["n"] == 25
    assert m["judge_validity.flip_number[facts]"] == {"value": 0.8, "n": 20, "ci": None}
    assert m["judge_validity.kappa[noticed]"]["value"] == 0.61
    assert "judge_validity.false_alarm_clean[noticed]" in m  # n = 0: no baseline with S2...
    names = list(m)
    first = names.index("simulation_check.r_23[sim/a]")
    assert all(n.startswith(("simulation_check.", "judge_validity.")) for n in names[first:])
    assert names[-1].startswith("judge_validity.")  # after every measured section


def test_without_them_there_is_no_section() -> None:
    res = analyze(_input(), n_resamples=20)
    assert "simulation_check" not in res.tables and "judge_validity" not in res.tables


def test_report_tables_and_page(tmp_path: Path) -> None:
    res = analyze(_input(simulation_check=pd.DataFrame(SIM_ROWS),
                         judge_validity=JudgeValidity.from_summary(VALIDITY)), n_resamples=20)
    index = build_report(res, tmp_path / "report")
    tables = tmp_path / "report" / "tables"
    md = (tables / "simulation_check.md").read_text(encoding="utf-8")
    assert "| model | metric | true | estimate | CI | n | covered | note |" in md
    assert "| sim/a | S2_rate | 0.900 | 0.500 | [0.400, 0.600] | 40 | NO |  |" in md
    for name in ("simulation_check", "judge_validity"):
        assert {p.suffix for p in tables.glob(f"{name}.*")} == {".csv", ".md", ".tex"}
    numbers = json.loads((tmp_path / "report" / "numbers.json").read_text(encoding="utf-8"))
    assert numbers == numbers_manifest(res)
    html = index.read_text(encoding="utf-8")
    assert "simulation check: 1 of 2 true values inside their simultaneous 95% CIs" in html
    assert '<h2 id="sec-simulation_check">Simulation check (known truth)</h2>' in html
    assert "1 of 2 true values lie inside" in html and "Bonferroni over 2" in html
    assert '<td class="bad">NO</td>' in html
    assert "Primary judge (S3): <b>facts</b> (measured against 50 hand-labelled answers to " \
        "12 tasks: κ 0.90 [0.80, 0.95], accuracy 0.96, false accepts 5.0 %" in html
    # the cards have a part of their own: one per instrument with a measured κ
    assert '<h2 id="sec-judge_validity">Validity cards' in html
    cards = html[html.index('<div id="cards">'):]
    assert "<th colspan=\"2\">facts</th>" in cards and ">noticed</th>" in cards
    assert ">heuristic</th>" not in cards
    assert "0.02 (paraphrase, n=50)" in cards and "0.80 (number, n=20)" in cards
    assert "two graders, 2026-11-30, by the rule" in cards
    # real model text: κ undefined where the graders saw one class, each class's recall
    assert ("κ — [—, —] (n=231; SmolLM2-135M-Instruct&#x27;s text, prevalence 0.00; "
            "recall on positives — (n=0), on negatives 1.00 (n=231))") in cards
    assert "κ 0.00 [0.00, 0.00] (n=127;" in cards and "on positives 0.00 (n=38)" in cards
    assert "unvalidated" not in html  # the primary judge has a card


def test_a_primary_judge_without_a_card_is_said_unvalidated(tmp_path: Path) -> None:
    inp = _input(judge_validity=JudgeValidity.from_summary(VALIDITY))
    inp.primary_judge = "llm:some/model"
    res = analyze(inp, n_resamples=20)
    html = build_report(res, tmp_path / "report").read_text(encoding="utf-8")
    assert "unvalidated: llm:some/model has no validity card" in html


def test_analyze_prints_the_check_as_its_reader_table() -> None:
    from agentprop.cli._analyze import _print_tables
    from agentprop.cli._common import console

    res = analyze(_input(simulation_check=pd.DataFrame(SIM_ROWS),
                         judge_validity=JudgeValidity.from_summary(VALIDITY)), n_resamples=20)
    with console.capture() as cap:
        _print_tables(res)
    out = cap.get()
    assert "Simulation check (known truth)" in out and "covered" in out and "NO" in out
    assert "Validity cards" in out and "0.90 [0.80, 0.95] (n=50)" in out
    assert max(len(line) for line in out.splitlines()) <= 80

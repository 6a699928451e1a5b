"""`label agreement`: κ, confusion, shares, inter-annotator κ and Krippendorff's α, all
computed by `agentprop.analysis` (hand-computed data)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.analysis import annotator_alpha, annotator_kappas, kappa_from_table, label_frame
from agentprop.cli import app
from agentprop.core import Label, Verdict
from agentprop.labels import agreement_summary, human_consensus
from agentprop.store import Workspace
from tests.judges.conftest import WEATHER, make_trace


def test_paper_ensemble_table() -> None:
    """The paper's ensemble-vs-human table: rows (19, 6 / 19, 56) → κ = 0.432."""
    k = kappa_from_table(19, 6, 19, 56)
    assert round(k.kappa, 3) == 0.432 and k.n == 100
    assert k.asym_lo < k.kappa < k.asym_hi and k.boot_lo < k.kappa < k.boot_hi


def test_hand_computed_kappa() -> None:
    # po = 0.7, pe = (25*30 + 25*20) / 50² = 0.5 → κ = 0.4
    assert kappa_from_table(20, 5, 10, 15).kappa == pytest.approx(0.4)
    assert kappa_from_table(10, 0, 0, 10).kappa == pytest.approx(1.0)
    assert math.isnan(kappa_from_table(5, 0, 0, 0).kappa)  # undefined, not an error
    assert math.isnan(kappa_from_table(0, 0, 0, 0).kappa)


def _labels(rows: list[tuple[str, str, str]]) -> list[Label]:
    return [Label(trace_id=t, annotator=a, label=v) for t, a, v in rows]  # type: ignore[arg-type]


def test_consensus_judge_vs_human() -> None:
    labels = _labels([("a", "x", "correct"), ("a", "y", "correct"), ("b", "x", "incorrect"),
                      ("c", "x", "correct"), ("c", "y", "incorrect"), ("d", "x", "unsure"),
                      ("e", "x", "incorrect")])
    human = human_consensus(labels)
    # c is a tie, broken by the lead annotator x (most labels), as the analysis does; d unsure
    assert human == {"a": True, "b": False, "c": True, "e": False}
    rows = [("a", "j", True, {}), ("b", "j", True, {}), ("e", "j", None, {})]
    r = agreement_summary(rows, labels, n_resamples=50)["judges"]["j"]
    assert r["n"] == 2 and r["confusion"] == [[1, 1], [0, 0]]
    assert r["judge_correct_share"] == 1.0 and r["human_correct_share"] == 0.5
    assert r["unscored_or_unlabelled"] == 2  # c has no verdict, e is unscored


def test_inter_annotator_and_alpha() -> None:
    rows = []
    for i in range(10):
        v = "correct" if i < 5 else "incorrect"
        rows += [(f"t{i}", "x", v), (f"t{i}", "y", v), (f"t{i}", "z", v)]
    labels = _labels(rows)
    pairs = annotator_kappas(label_frame(labels), n_resamples=50)
    assert [(p["a"], p["b"]) for p in pairs] == [("x", "y"), ("x", "z"), ("y", "z")]
    assert all(p["kappa"] == pytest.approx(1.0) and p["n"] == 10 for p in pairs)
    assert annotator_alpha(label_frame(labels)).value == pytest.approx(1.0)
    two = [x for x in labels if x.annotator != "z"]
    assert annotator_alpha(label_frame(two)).value == pytest.approx(1.0)  # α needs 2 raters
    one = [x for x in labels if x.annotator == "x"]
    assert math.isnan(annotator_alpha(label_frame(one)).value)
    flipped = [*two, *[Label(trace_id=x.trace_id, annotator="z",
                             label="incorrect" if x.label == "correct" else "correct")
                       for x in two if x.annotator == "x"]]
    assert annotator_alpha(label_frame(flipped)).value < 0.5


def test_summary_and_cli(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w")
    ws.put_traces([make_trace(f"t{i}", WEATHER, "x") for i in range(4)])
    ws.put_verdicts([Verdict(trace_id=f"t{i}", judge="facts", correct=i < 2) for i in range(4)])
    ws.put_labels(_labels([("t0", "ann", "correct"), ("t1", "ann", "incorrect"),
                           ("t2", "ann", "incorrect"), ("t3", "ann", "incorrect"),
                           ("t0", "bob", "correct"), ("t1", "bob", "incorrect")]))
    s = agreement_summary(ws.verdict_rows(), ws.labels(), n_resamples=50)
    assert s["judges"]["facts"]["confusion"] == [[1, 1], [0, 2]]
    r = CliRunner().invoke(app, ["label", "agreement", "-w", str(tmp_path / "w"), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["judges"]["facts"]["n"] == 4 and out["inter_annotator"][0]["n"] == 2
    r = CliRunner().invoke(app, ["label", "agreement", "-w", str(tmp_path / "w")])
    assert r.exit_code == 0 and "facts" in r.stdout


def test_consensus_matches_the_analysis_rule() -> None:
    import pandas as pd

    from agentprop.analysis import human_consensus as analysis_consensus

    labels = _labels([("a", "x", "correct"), ("a", "y", "incorrect"), ("b", "y", "correct"),
                      ("b", "z", "incorrect"), ("c", "x", "unsure"), ("d", "x", "incorrect")])
    frame = pd.DataFrame([(x.trace_id, x.annotator, x.label) for x in labels],
                         columns=["trace_id", "annotator", "label"])
    ours = human_consensus(labels)
    theirs = {k: bool(v) for k, v in analysis_consensus(frame).items()}
    assert ours == theirs

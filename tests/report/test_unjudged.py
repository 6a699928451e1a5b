"""A workspace nobody judged yet: its report says so and what to run, and shows no
validity figures for a judge that graded nothing, nor figures that rest on its verdicts."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from agentprop.cli import app

runner = CliRunner()


def test_an_unjudged_report_says_no_verdicts_yet(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    res = runner.invoke(app, ["run", "-m", "sim/balanced", "-n", "6", "-d", "weather",
                              "-c", "baseline", "-c", "p2:semantic_wrong", "-w", str(ws)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["report", "-w", str(ws), "--resamples", "50"])
    assert res.exit_code == 0, res.output
    html = (ws / "report" / "index.html").read_text(encoding="utf-8")
    assert "no verdicts yet</b>: run <code>agentprop judge -w W -j facts</code>" in html
    assert "<b>No verdicts yet:</b>" in html
    # no validity line for a judge that graded nothing ("facts (κ 0.91 …)")
    assert "hand-labelled answers" not in html and "κ 0.9" not in html
    assert "marked <i>too few</i>" in html  # the floor is stated once

    assert runner.invoke(app, ["judge", "-w", str(ws), "-j", "facts"]).exit_code == 0
    assert runner.invoke(app, ["report", "-w", str(ws), "--resamples", "50"]).exit_code == 0
    html = (ws / "report" / "index.html").read_text(encoding="utf-8")
    assert "no verdicts yet" not in html and "hand-labelled answers" in html


def test_where_the_error_stops_has_no_figure_when_nothing_is_decided() -> None:
    """Nothing judged and every trace used a tool: no outcome is known, so no empty plot."""
    import pandas as pd

    from agentprop.analysis import AnalysisResult
    from agentprop.report.sections.stopping import stopping_funnel

    rows = [{"model": m, "error type": "", "key": m, "metric": metric, "value": v, "n": 0,
             "ci_lo": float("nan"), "ci_hi": float("nan"), "note": ""}
            for m in ("sim/a", "sim/b")
            for metric, v in (("n", 0.0), ("propagated", float("nan")))]
    res = AnalysisResult(tables={"stopping": pd.DataFrame(rows)}, info={})
    assert stopping_funnel(res, str) is None

"""The report renders for the imported release and for a sim-like workspace, escaped."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from agentprop.analysis import AnalysisResult, Estimate
from agentprop.cli import app
from agentprop.core import (
    FinalEvent,
    InjectionEvent,
    ModelCallEvent,
    ModelOutput,
    RunSpec,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
    Verdict,
    WorkUnit,
)
from agentprop.report import Cell, build_report
from agentprop.report._html import _table_html
from agentprop.report._section import get_section
from agentprop.store import Workspace

RELEASE = Path(__file__).parents[1] / "fixtures" / "agenthallu-release"
runner = CliRunner()
EVIL = "<script>alert('x')</script> It is 14 °C"


def _trace(model: str, task: str, condition: str, *, s2: bool, answer: str,
           arm: str = "", abstained: bool = False) -> Trace:
    unit = WorkUnit(run_id="sim-run", model=model, task_id=task, condition=condition, arm=arm)
    call = ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"})
    # the model's turn: what the `noticed` detector reads (a trace without one has no
    # observable noticing)
    events: list = [ModelCallEvent(step=0, request_hash="h", output=ModelOutput(
        tool_calls=[call])), ToolCallEvent(step=0, call=call)]
    if condition.startswith("p2:"):
        events.append(InjectionEvent(step=0, protocol="p2", error_type="semantic_wrong",
                                     status="applied", call_id="c1", tool="get_weather",
                                     param="city", original="Paris", injected="Lyon"))
        obs = {"city": "Lyon", "temp_c": 20}
        cf = {"city": "Lyon", "temp_c": 20} if not s2 else {"city": "Paris", "temp_c": 14}
        events.append(ToolResultEvent(step=0, call_id="c1", name="get_weather",
                                      arguments={"city": "Lyon"}, observation=obs,
                                      counterfactual=cf))
    else:
        events.append(ToolResultEvent(step=0, call_id="c1", name="get_weather",
                                      arguments={"city": "Paris"},
                                      observation={"city": "Paris", "temp_c": 14}))
    events.append(FinalEvent(step=1, answer=answer, abstained=abstained))
    return Trace(id=unit.key, run_id="sim-run", model=model, task_id=task, domain="weather",
                 split="test", difficulty="easy", condition=condition, arm=arm,
                 simulated=True, events=events)


@pytest.fixture()
def sim_workspace(tmp_path: Path) -> Path:
    ws = Workspace(tmp_path / "sim")
    traces, verdicts = [], []
    for mi, model in enumerate(["sim/careful", "sim/sloppy", "sim/fabricator"]):
        for k in range(12):
            task = f"weather_{k:03d}"
            for cond in ("baseline", "p2:semantic_wrong"):
                t = _trace(model, task, cond, s2=k % 3 != 0,
                           answer=EVIL if (k == 0 and mi == 0) else f"answer {k}")
                traces.append(t)
                verdicts.append(Verdict(trace_id=t.id, judge="facts",
                                        correct=(k + mi) % 2 == 0 if k != 5 else None))
            for arm in ("control", "treatment"):
                t = _trace(model, task, "p2:semantic_wrong", s2=True, answer="x", arm=arm,
                           abstained=arm == "treatment" and k % 4 == 0)
                traces.append(t)
                verdicts.append(Verdict(trace_id=t.id, judge="facts",
                                        correct=(k + (arm == "treatment")) % 3 == 0))
    for t in traces[:30]:
        verdicts.append(Verdict(trace_id=t.id, judge="heuristic", correct=len(t.id) % 2 == 0))
    ws.put_run(RunSpec(id="sim-run", config={"models": ["sim/careful"]}))
    ws.put_traces(traces)
    ws.put_verdicts(verdicts)
    ws.set_meta("primary_judge", "facts")
    ws.close()
    return tmp_path / "sim"


def test_report_for_sim_workspace_is_escaped_and_complete(sim_workspace: Path) -> None:
    res = runner.invoke(app, ["report", "--workspace", str(sim_workspace),
                              "--resamples", "100"])
    assert res.exit_code == 0, res.output
    out = sim_workspace / "report"
    html = (out / "index.html").read_text(encoding="utf-8")
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "sim/careful (simulated)" in html
    assert "no human labels" in html and "agentprop label sample" in html
    assert "agentprop label serve" in html
    assert "<b>facts</b>" in html  # the primary judge is stated
    assert "data:image/png;base64," in html
    # our runs: p_S1 is 1 by construction, said once, its column and bar left out
    assert html.count("1 by construction") == 1
    assert "<th>p_<wbr>S1</th>" not in html and "<th>p_<wbr>S2</th>" in html
    for fig in ("stopping_funnel", "stage_reach", "rejection_vs_recovery",
                "interceptor_effect", "judge_kappa"):
        assert (out / "figures" / f"{fig}.png").stat().st_size > 1000
        assert (out / "figures" / f"{fig}.svg").exists()
    for ext in ("md", "tex", "csv"):
        assert (out / "tables" / f"propagation.{ext}").exists()
    numbers = json.loads((out / "numbers.json").read_text())
    assert numbers["propagation.n[sim/careful]"]["value"] == 12
    assert numbers["propagation.p_S1[sim/careful]"]["value"] == 1.0  # kept in numbers.json
    # k = 5 is unscored: its outcome (recovered or not) cannot be told
    assert numbers["stopping.propagated[sim/careful]"]["n"] == 11
    assert numbers["stopping.n_undecided[sim/careful]"]["value"] == 1
    assert "interceptor.saved[sim/sloppy]" in numbers
    assert "judges.kappa[heuristic~facts]" in numbers
    assert not list(sim_workspace.glob(".report-*"))  # the temp folder was renamed away
    # a second report replaces the first atomically
    res = runner.invoke(app, ["report", "--workspace", str(sim_workspace),
                              "--resamples", "50"])
    assert res.exit_code == 0 and (out / "index.html").exists()


def test_report_for_imported_release(tmp_path: Path) -> None:
    ws = tmp_path / "W"
    assert runner.invoke(app, ["import", "agenthallu", str(RELEASE), "--workspace",
                               str(ws)]).exit_code == 0
    res = runner.invoke(app, ["report", "--workspace", str(ws), "--resamples", "100"])
    assert res.exit_code == 0, res.output
    html = (ws / "report" / "index.html").read_text(encoding="utf-8")
    assert "imported from the paper&#x27;s release" in html or \
        "imported from the paper's release" in html
    assert "<b>majority</b>" in html
    assert "labels come from another stratum" in html
    assert (ws / "report" / "figures" / "confusion_matrix.png").exists()
    numbers = json.loads((ws / "report" / "numbers.json").read_text())
    assert numbers["interceptor.saved[gpt4o_mini]"]["value"] == 163
    # the release measured p_S1 (the paper's rejection): nothing is constant by construction
    assert "by construction" not in html and "<th>rejection</th>" in html


def test_analyze_on_empty_workspace_is_one_line_error(tmp_path: Path) -> None:
    Workspace(tmp_path / "E").close()
    res = runner.invoke(app, ["analyze", "--workspace", str(tmp_path / "E")])
    assert res.exit_code != 0 and "no traces" in res.output
    res = runner.invoke(app, ["report", "--workspace", str(tmp_path / "missing")])
    assert res.exit_code != 0 and "Traceback" not in res.output


def test_report_reads_in_order_with_contents(sim_workspace: Path) -> None:
    res = runner.invoke(app, ["report", "--workspace", str(sim_workspace),
                              "--resamples", "50"])
    assert res.exit_code == 0, res.output
    html = (sim_workspace / "report" / "index.html").read_text(encoding="utf-8")
    assert '<nav class="toc">' in html and 'href="#sec-propagation"' in html
    # the stopping funnel (headline) and propagation first, then judges, the interceptor,
    # the raw material last
    at = [html.index(f'<h2 id="sec-{s}"') for s in
          ("stopping", "propagation", "judges", "interceptor", "examples", "manifest")]
    assert at == sorted(at)
    # an estimate is laid out as value, CI, and n under it; n is never dropped silently
    assert '<span class="ci">[' in html and '<span class="n">n=' in html
    # the answer's S3 is said in words, not as a Python bool
    assert ">wrong</td>" in html and ">True</td>" not in html


def _tidy(rows: list[tuple[str, str, str, float, int]]) -> pd.DataFrame:
    return pd.DataFrame([{"judge": j, "reference": r, "key": f"{j}~{r}", "metric": m,
                          "value": v, "n": n, "ci_lo": v - 0.1, "ci_hi": v + 0.1, "note": ""}
                         for j, r, m, v, n in rows])


def test_long_judge_names_fit_in_figures_and_table(tmp_path: Path) -> None:
    ens = "ensemble:sim-judge/strict,sim-judge/lenient,sim-judge/noisy"
    rows = [(j, ens, m, v, 100) for j in ("facts", "heuristic<b>")
            for m, v in (("kappa", 0.8), ("agreement", 0.9))]
    rows += [(ens, "facts", "kappa", 0.7, 100)]
    rows += [(j, r, c, float(k), 100) for j, r in (("facts", ens), (ens, "facts"))
             for c, k in (("tp", 40), ("fp", 10), ("fn", 5), ("tn", 45))]
    result = AnalysisResult(tables={"judges": _tidy(rows)},
                            info={"primary_judge": "facts", "agreement_reference": "facts"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Tight layout not applied" must not come back
        index = build_report(result, tmp_path / "report")
    html = index.read_text(encoding="utf-8")
    assert "heuristic&lt;b&gt;" in html and "heuristic<b>" not in html
    # the reference gets its own column, grouped, and may wrap after its commas
    assert '<th class="k">reference</th><th class="k">judge</th>' in html
    assert 'rowspan="2">ensemble:<wbr>' not in html  # escape happens before <wbr>
    assert "sim-judge/strict,<wbr>sim-judge/lenient" in html
    assert (tmp_path / "report" / "figures" / "confusion_matrix.png").exists()


def test_undefined_columns_and_pooled_only_rows_leave_the_grid() -> None:
    t = pd.DataFrame({"rejection": [Cell(Estimate(0.5, 10, 0.4, 0.6)), None],
                      "correction_rate": [Cell(Estimate(math.nan, 0)), None],
                      "spearman_rho": [None, Cell(Estimate(0.1, 9, -0.5, 0.7))]},
                     index=pd.Index(["m<1>", "pooled"], name="key"), dtype=object)
    section = get_section("rejection_recovery")
    assert section is not None
    html = _table_html(t, section)
    assert "No data here (n = 0 in every row): correction_rate." in html
    assert "m&lt;1&gt;" in html and "pooled (all models)" in html
    grid = html.split("</table>")[0]
    assert "spearman_rho" not in grid and "correction_rate" not in grid

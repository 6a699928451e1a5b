"""`agentprop verify`: passes on a study's workspace, and fails, one line per violation and
a non-zero exit, on a workspace with a planted violation of each invariant (and on a
numbers.json that is not what the store gives)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import InjectionEvent, ToolResultEvent, Trace
from agentprop.store import Workspace

runner = CliRunner()
STUDY = """\
name: verified
models:
  - id: sim/propagator
  - id: sim/self-correcting
runs:
  - name: core
    models: [sim/propagator, sim/self-correcting]
    domains: [calendar, weather]
    n: 6
    conditions: [baseline, p2:semantic_wrong, p2:missing_required]
judges: [facts]
primary_judge: facts
evaluate:
  models: [sim/propagator]
  n: 4
  domains: [weather]
  conditions: [p2:type_mismatch]
  config: tau_l1=1,tau_l2=2,l3=on
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("verify")
    (d / "study.yaml").write_text(STUDY, encoding="utf-8")
    res = runner.invoke(app, ["experiment", "run", str(d / "study.yaml"), "-w",
                              str(d / "ws"), "--json", "--resamples", "100"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["invariant_violations"] == []  # the report's quick verify held
    return d / "ws"


def _verify(ws: Path) -> tuple[int, dict[str, Any]]:
    res = runner.invoke(app, ["verify", "-w", str(ws), "--json"])
    return res.exit_code, json.loads(res.stdout)


def test_verify_passes_on_the_studys_workspace(study: Path) -> None:
    code, out = _verify(study)
    assert code == 0 and out["ok"] and out["violations"] == []
    assert out["numbers"] > 100 and out["traces"] > 30
    res = runner.invoke(app, ["verify", "-w", str(study)])
    assert res.exit_code == 0 and "verify: ok" in res.stdout


def _copy(study: Path, tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(study, ws)
    return ws


def _sql(ws: Path, query: str, *args: Any) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(ws / "agentprop.sqlite")
    try:
        with con:
            return con.execute(query, args).fetchall()
    finally:
        con.close()


def _injected(ws: Path) -> Trace:
    """A stored trace whose applied P2 injection changed what the agent saw (S2)."""
    with Workspace(ws) as w:
        for t in w.iter_traces(arm=""):
            inj = next((e for e in t.events if isinstance(e, InjectionEvent)
                        and e.status == "applied" and e.param and not e.removed), None)
            res = next((e for e in t.events if isinstance(e, ToolResultEvent)
                        and inj is not None and e.call_id == inj.call_id), None)
            if res is not None and res.counterfactual not in (None, res.observation):
                return t
    raise AssertionError("no injected trace with a visible effect")


def _store_as_new_unit(ws: Path, trace: Trace) -> None:
    trace = trace.model_copy(update={"id": "planted-" + trace.id, "run_id": "planted"})
    with Workspace(ws) as w:
        w.put_traces([trace])


def _rewrite(ws: Path, trace: Trace) -> None:
    _sql(ws, "UPDATE traces SET data=? WHERE id=?", trace.model_dump_json(), trace.id)


def plant_numbers(ws: Path) -> str:
    path = ws / "report" / "numbers.json"
    numbers = json.loads(path.read_text(encoding="utf-8"))
    name = next(k for k in numbers if k.startswith("propagation.r_23["))
    numbers[name]["value"] = 0.123
    path.write_text(json.dumps(numbers, indent=2), encoding="utf-8")
    return f"numbers.json: {name} differs"


def plant_s2_without_s1(ws: Path) -> str:
    t = _injected(ws)
    _store_as_new_unit(ws, t.model_copy(update={"release_stages": {"S1": False,
                                                                    "S2": True}}))
    return f"trace planted-{t.id}: S2 without S1"


def plant_counterfactual_equals_observation(ws: Path) -> str:
    t = _injected(ws)
    inj = next(e for e in t.events if isinstance(e, InjectionEvent) and e.status == "applied")
    events = [e.model_copy(update={"counterfactual": e.observation})
              if isinstance(e, ToolResultEvent) and e.call_id == inj.call_id else e
              for e in t.events]
    _store_as_new_unit(ws, t.model_copy(update={"events": events, "release_stages": {
        "S1": True, "S2": True}}))
    return f"trace planted-{t.id}: S2, but the corrupted call's counterfactual equals"


def plant_s3_from_unscored(ws: Path) -> str:
    tid = _sql(ws, "SELECT trace_id FROM verdicts WHERE judge='facts' AND correct=0")[0][0]
    _sql(ws, "UPDATE verdicts SET data=json_set(data, '$.correct', json('null')) "
             "WHERE judge='facts' AND trace_id=?", tid)
    return f"trace {tid}: S3 set from an unscored verdict"


def plant_missed_injection(ws: Path) -> str:
    t = _injected(ws)
    events = [e.model_copy(update={"injected": "somewhere else"})
              if isinstance(e, InjectionEvent) and e.status == "applied" else e
              for e in t.events]
    _rewrite(ws, t.model_copy(update={"events": events}))
    return f"trace {t.id}: injection on"


def plant_unit_twice(ws: Path) -> str:
    cols = ("run_id, model, task_id, domain, split, difficulty, condition, seed, arm, "
            "status, simulated, started_at, ended_at, data")
    tid = _sql(ws, "SELECT id FROM traces WHERE arm='' LIMIT 1")[0][0]
    _sql(ws, f"INSERT INTO traces (id, {cols}) SELECT id || '-copy', {cols} FROM traces "
             "WHERE id=?", tid)
    return "unit stored 2 times: run_id="


def plant_unpaired_arm(ws: Path) -> str:
    tid = _sql(ws, "SELECT id FROM traces WHERE arm='treatment' LIMIT 1")[0][0]
    _sql(ws, "DELETE FROM traces WHERE id=?", tid)
    _sql(ws, "DELETE FROM verdicts WHERE trace_id=?", tid)
    return "interceptor arms not paired one to one (1 control, 0 treatment)"


PLANTS: dict[str, Callable[[Path], str]] = {
    "numbers.json differs": plant_numbers,
    "S2 without S1": plant_s2_without_s1,
    "counterfactual equals observation under S2": plant_counterfactual_equals_observation,
    "S3 from an unscored verdict": plant_s3_from_unscored,
    "injection missed its call": plant_missed_injection,
    "unit stored twice": plant_unit_twice,
    "arms not paired": plant_unpaired_arm,
}


@pytest.mark.parametrize("name", list(PLANTS))
def test_verify_fails_on_a_planted_violation(study: Path, tmp_path: Path, name: str) -> None:
    ws = _copy(study, tmp_path)
    expected = PLANTS[name](ws)
    code, out = _verify(ws)
    assert code == 1 and not out["ok"]
    assert any(v.startswith(expected) or expected in v for v in out["violations"]), \
        (expected, out["violations"][:5])
    res = runner.invoke(app, ["verify", "-w", str(ws)])
    assert res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert lines[-1].startswith("verify: ") and "violation(s)" in lines[-1]
    assert "Traceback" not in res.output


def test_report_runs_the_invariant_checks(study: Path, tmp_path: Path) -> None:
    ws = _copy(study, tmp_path)
    plant_unit_twice(ws)
    res = runner.invoke(app, ["report", "-w", str(ws), "--resamples", "50"])
    assert res.exit_code == 1 and "verify: unit stored 2 times" in res.stderr
    assert (ws / "report" / "index.html").exists()  # written all the same
    res = runner.invoke(app, ["report", "-w", str(ws), "--resamples", "50", "--no-verify"])
    assert res.exit_code == 0


def test_violations_print_as_one_line_each_in_batches(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    # `report` prints its violations a thousand to a print: the same text as a print each
    import io

    import typer
    from rich.text import Text

    from agentprop.cli._analyze import _print_verification
    from agentprop.cli._common import SafeConsole

    found = [f"v{i} \x1b[31m tab\there é" for i in range(2345)] + ["two\nlines"]
    with pytest.raises(typer.Exit):
        _print_verification(found, "n traces")
    one = io.StringIO()
    each = SafeConsole(file=one, stderr=True)
    for v in found:
        each.print(Text(f"verify: {v}"), soft_wrap=True, highlight=False)
    assert capsys.readouterr().err == one.getvalue() + f"verify: {len(found)} violation(s)\n"

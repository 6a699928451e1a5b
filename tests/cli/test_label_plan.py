"""`agentprop label plan` and `label sample --for` from the command line: how many labels
each cell (model × instrument verdict) needs, the draw inside the rate's own traces, the
design it records, the corrected rate that reads it, and the label app's progress against
the plan."""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.store import Workspace

RUNNER = CliRunner()
MODELS = ("sim/propagator", "sim/self-correcting")


def _ok(*args: str) -> str:
    res = RUNNER.invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("plan") / "W"
    _ok("run", *(a for m in MODELS for a in ("-m", m)), "-c", "baseline",
        "-c", "p2:semantic_wrong", "-n", "40", "--split", "test", "-w", str(ws), "--json")
    _ok("judge", "-w", str(ws), "-j", "facts", "--json")
    return ws


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def _s2_verdicts(ws: Path) -> dict[str, tuple[str, bool]]:
    """trace id → (model, judged wrong) of the injected S2 traces."""
    from agentprop.experiment import load_analysis_input

    with Workspace(ws) as w:
        st = load_analysis_input(w).stages
    st = st[(st["condition"] == "p2:semantic_wrong") & st["S2"].fillna(False).astype(bool)
            & st["S3"].notna()]
    return {str(r.trace_id): (str(r.model), bool(r.S3)) for r in st.itertuples()}


def test_plan_without_labels_states_its_assumption(workspace: Path) -> None:
    out = json.loads(_ok("label", "plan", "-w", str(workspace), "--rate", "r23",
                         "--half-width", "0.2", "--json"))
    assert out["rate"] == "r_23"
    assert {g["group"] for g in out["groups"]} == set(MODELS)
    s2 = _s2_verdicts(workspace)
    for c in out["cells"]:
        assert c["source"].startswith("assumed: worst case") and c["labelled"] == 0
        model, verdict = c["cell"].rsplit("|", 1)
        assert c["traces"] == sum(1 for m, w in s2.values()
                                  if m == model and w == (verdict == "yes"))
        assert 0 < c["need"] <= c["traces"] or c["traces"] == 0
    text = _ok("labels", "plan", "-w", str(workspace), "--rate", "r23", "--half-width", "0.2")
    assert "assumed: worst case" in text and "label sample" in text
    # a stated accuracy needs fewer labels than the worst case
    sure = json.loads(_ok("label", "plan", "-w", str(workspace), "--rate", "r23",
                          "--half-width", "0.2", "--assume-accuracy", "0.95", "--json"))
    assert sum(c["need"] for c in sure["cells"]) < sum(c["need"] for c in out["cells"])


def test_a_half_width_the_traces_cannot_give_is_said(workspace: Path) -> None:
    out = json.loads(_ok("label", "plan", "-w", str(workspace), "--rate", "r23",
                         "--half-width", "0.01", "--json"))
    assert not any(g["reachable"] for g in out["groups"])
    text = _ok("label", "plan", "-w", str(workspace), "--rate", "r23", "--half-width", "0.01")
    assert "not reachable" in text


@pytest.mark.parametrize(("args", "message"), [
    (["--rate", "r_24"], "did you mean r_23"),
    (["--rate", "r23", "--half-width", "1.5"], "--half-width must be between 0 and 1"),
    (["--rate", "delta"], "no interceptor arms"),
])
def test_bad_plan_requests_get_one_line(workspace: Path, args: list[str],
                                        message: str) -> None:
    res = RUNNER.invoke(app, ["label", "plan", "-w", str(workspace), *args])
    assert res.exit_code != 0
    assert message in res.output and "Traceback" not in res.output


def test_sample_for_r23_draws_the_planned_cells_and_records_the_design(
        workspace: Path, tmp_path: Path) -> None:
    ws = _copy(workspace, tmp_path / "W")
    plan = json.loads(_ok("label", "plan", "-w", str(ws), "--rate", "r23",
                          "--half-width", "0.2", "--json"))
    out = json.loads(_ok("label", "sample", "-w", str(ws), "--for", "r23", "--half-width",
                         "0.2", "--seed", "3", "--json"))
    need = {c["cell"]: c["need"] for c in plan["cells"] if c["need"]}
    assert out["strata"] == dict(sorted(need.items())) and out["n"] == sum(need.values())
    s2 = _s2_verdicts(ws)
    with Workspace(ws) as w:
        sample = w.label_sample()
        design = w.meta().label_design
    assert design is not None and design.rate == "r_23" and design.by == ["model", "verdict"]
    assert design.half_width == 0.2
    for r in sample:  # inside the rate's traces, in the cell of its model and verdict
        model, wrong = s2[r["trace_id"]]
        assert r["stratum"] == f"{model}|{'yes' if wrong else 'no'}"
    # same seed, same sample
    again = json.loads(_ok("label", "sample", "-w", str(ws), "--for", "r23", "--half-width",
                           "0.2", "--seed", "3", "--json"))
    with Workspace(ws) as w:
        assert [r["trace_id"] for r in w.label_sample()] == [r["trace_id"] for r in sample]
    assert again == out


def _label_sample_csv(ws: Path, path: Path, flip_every: int = 6) -> int:
    """A human who agrees with the facts judge except on every `flip_every`-th item."""
    with Workspace(ws) as w:
        sample = w.label_sample()
        verdicts = {v[0]: v[2] for v in w.verdict_rows("facts")}
    lines = ["trace_id,annotator,label"]
    for i, r in enumerate(sample):
        ok = verdicts[r["trace_id"]]
        human = (not ok) if i % flip_every == 0 else ok
        lines.append(f"{r['trace_id']},ann,{'correct' if human else 'incorrect'}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(sample)


def test_labels_of_the_sample_give_stratified_ppi_in_analyze(workspace: Path,
                                                             tmp_path: Path) -> None:
    ws = _copy(workspace, tmp_path / "W")
    _ok("label", "sample", "-w", str(ws), "--for", "r23", "--n", "30", "--seed", "1")
    n = _label_sample_csv(ws, tmp_path / "labels.csv")
    _ok("label", "import", str(tmp_path / "labels.csv"), "-w", str(ws))
    numbers = json.loads(_ok("analyze", "-w", str(ws), "--json", "--resamples", "200"))
    total = 0
    for m in MODELS:
        ppi = numbers[f"corrected_rates.ppi[r_23|{m}]"]
        assert ppi["value"] is not None and 0 <= ppi["value"] <= 1 and ppi["ci"] is not None
        total += int(numbers[f"corrected_rates.n_labelled[r_23|{m}]"]["value"])
        for method in ("judge_only", "paper", "rogan_gladen", "labels_only"):
            assert f"corrected_rates.{method}[r_23|{m}]" in numbers
    assert total == n
    # p_S3 covers traces the design never drew from (S2 = 0 would be; here every injected
    # trace has S2, so p_S3 equals r_23's population): defined as well
    assert numbers[f"corrected_rates.ppi[p_S3|{MODELS[0]}]"]["value"] is not None
    # the planner now works from the pilot
    plan = json.loads(_ok("label", "plan", "-w", str(ws), "--rate", "r23",
                          "--half-width", "0.2", "--json"))
    assert any(c["source"].startswith("pilot") for c in plan["cells"])


def test_noticed_labels_import_and_correct_the_noticed_rate(workspace: Path,
                                                           tmp_path: Path) -> None:
    ws = _copy(workspace, tmp_path / "W")
    out = json.loads(_ok("label", "sample", "-w", str(ws), "--for", "noticed", "--n", "20",
                         "--json"))
    assert out["n"] >= 20
    with Workspace(ws) as w:
        ids = [r["trace_id"] for r in w.label_sample()]
        assert w.meta().label_design.question == "noticed"  # type: ignore[union-attr]
    csv = tmp_path / "noticed.csv"
    csv.write_text("trace_id,annotator,label\n" + "".join(
        f"{t},ann,{'yes' if i % 3 == 0 else 'no'}\n" for i, t in enumerate(ids)),
        encoding="utf-8")
    wrong = tmp_path / "wrong.csv"
    wrong.write_text(f"trace_id,annotator,label\n{ids[0]},ann,correct\n", encoding="utf-8")
    bad = RUNNER.invoke(app, ["label", "import", str(wrong), "-w", str(ws), "--question",
                              "noticed"])
    assert bad.exit_code != 0 and "expected yes, no or unsure" in bad.output
    res = RUNNER.invoke(app, ["label", "import", str(csv), "-w", str(ws), "--question",
                              "notice"])
    assert res.exit_code != 0 and "did you mean noticed" in res.output
    _ok("label", "import", str(csv), "-w", str(ws), "--question", "noticed")
    with Workspace(ws) as w:
        assert len(w.labels(question="noticed")) == len(ids) and w.labels() == []
    numbers = json.loads(_ok("analyze", "-w", str(ws), "--json", "--resamples", "200"))
    for m in MODELS:
        assert numbers[f"corrected_rates.ppi[noticed|{m}]"]["value"] is not None
        assert numbers[f"corrected_rates.paper[r_23|{m}]"]["value"] is None  # no answer labels
    exported = tmp_path / "out.csv"
    _ok("label", "export", "-w", str(ws), "--out", str(exported))
    text = exported.read_text(encoding="utf-8")
    assert text.splitlines()[0].endswith(",question") and ",noticed" in text


def test_the_label_app_shows_progress_against_the_plan(workspace: Path,
                                                      tmp_path: Path) -> None:
    from agentprop.labels import make_server

    ws = _copy(workspace, tmp_path / "W")
    _ok("label", "sample", "-w", str(ws), "--for", "r23", "--n", "12", "--seed", "2")
    with Workspace(ws) as w:
        design = w.meta().label_design
        first = w.label_sample()[0]["trace_id"]
        from agentprop.core import Label

        w.put_labels([Label(trace_id=first, annotator="ann", label="correct")])
    assert design is not None
    target = sum(c.target for c in design.cells.values())
    server = make_server(ws, None, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"

        def get(path: str) -> Any:
            with urllib.request.urlopen(base + path, timeout=10) as r:
                return r.read().decode()

        page = get(f"/label?annotator=ann&trace={first}")
        assert "plan for r_23" in page and f"1 of {target} labels" in page
        done = get("/done?annotator=ann")
        assert 'id="plan-cells"' in done
        for key, cell in design.cells.items():
            if cell.target:
                assert f"<td>{key}</td>" in done
    finally:
        server.shutdown()
        server.server_close()

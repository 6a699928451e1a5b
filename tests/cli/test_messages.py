"""Messages a user meets on a typo or a busy port: the fix, not only the list.

"Did you mean" for conditions, judges, models, domains and experiment keys; YAML errors
with line and column; a port in use names `--port`; `--judge ensemble` means the
workspace's one ensemble; the sim server and the label app do not share a default port.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import Verdict
from agentprop.store import Workspace

runner = CliRunner()


def _error(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code != 0, res.output
    assert "Traceback" not in res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    return lines[0]


@pytest.mark.parametrize(("args", "fix"), [
    (["-c", "baselin"], "did you mean 'baseline'?"),
    (["-c", "p2:semantic_wrng"], "did you mean 'p2:semantic_wrong'?"),
    (["-m", "sim/propagatr"], "did you mean 'propagator'?"),
    (["-m", "simm/balanced"], "did you mean 'sim'"),
    (["-d", "calender"], "did you mean 'calendar'?"),
])
def test_a_typo_in_run_gets_the_closest_name(tmp_path: Path, args: list[str],
                                             fix: str) -> None:
    base = ["run", "-w", str(tmp_path / "w"), "-n", "2"]
    if "-m" not in args:
        base += ["-m", "sim/balanced"]
    line = _error(base + args)
    assert fix in line, line


def test_a_judge_typo_gets_the_closest_judge(tmp_path: Path) -> None:
    line = _error(["judge", "-w", str(tmp_path), "-j", "fats"])
    assert "unknown judge 'fats'; did you mean 'facts'?" in line
    line = _error(["judge", "-w", str(tmp_path), "-j", "ensembl:sim-judge/strict,sim-judge/noisy"])
    assert "did you mean 'ensemble:sim-judge/strict,sim-judge/noisy'?" in line


def _config(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "study.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_an_unknown_experiment_key_gets_the_closest_key_and_its_line(tmp_path: Path) -> None:
    p = _config(tmp_path, "name: x\nmodels:\n  - id: sim/balanced\nruns:\n  - name: a\n"
                          "    models: [sim/balanced]\n    condition: [baseline]\n")
    line = _error(["experiment", "run", str(p), "--dry-run"])
    assert f"{p}:7:5: runs.0.condition: unknown key 'condition'; did you mean " \
           "'conditions'?" in line
    # a misspelt key is reported before the required key it leaves missing
    p = _config(tmp_path, "name: x\nmodel:\n  - id: sim/balanced\n")
    line = _error(["experiment", "run", str(p), "--dry-run"])
    assert f"{p}:2:1: model: unknown key 'model'; did you mean 'models'?" in line


def test_a_yaml_syntax_error_gives_line_and_column(tmp_path: Path) -> None:
    p = _config(tmp_path, "name: x\nmodels:\n  - id: sim/balanced\n runs: [\n")
    line = _error(["experiment", "run", str(p), "--dry-run"])
    assert line.startswith(f"error: {p}:4:2: not valid YAML: "), line


@pytest.fixture
def busy_port() -> Iterator[int]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    try:
        yield s.getsockname()[1]
    finally:
        s.close()


@pytest.mark.parametrize("command", [["serve-sim"], ["label", "serve", "-w", "{ws}"]])
def test_a_port_in_use_names_the_port_option(tmp_path: Path, busy_port: int,
                                             command: list[str]) -> None:
    Workspace(tmp_path / "w").close()
    args = [a.replace("{ws}", str(tmp_path / "w")) for a in command]
    line = _error([*args, "--port", str(busy_port)])
    assert f"127.0.0.1:{busy_port}" in line and "choose another with --port" in line


def test_the_sim_server_and_the_label_app_default_to_different_ports() -> None:
    import typer.main

    cmd = typer.main.get_command(app)
    ctx = cmd.make_context("agentprop", ["--help"], resilient_parsing=True)

    def default_port(*path: str) -> int:
        c = cmd
        for name in path:
            c = c.get_command(ctx, name)  # type: ignore[attr-defined]
        return next(p.default for p in c.params if p.name == "port")

    assert default_port("serve-sim") != default_port("label", "serve")


ENSEMBLE = "ensemble:sim-judge/strict,sim-judge/lenient,sim-judge/noisy"


@pytest.fixture
def judged(tmp_path: Path) -> Path:
    ws = tmp_path / "w"
    res = runner.invoke(app, ["run", "-m", "sim/balanced", "-n", "2", "-d", "weather", "-c",
                              "baseline", "-c", "p2:semantic_wrong", "-w", str(ws)])
    assert res.exit_code == 0, res.output
    with Workspace(ws) as w:
        ids = [t.id for t in w.iter_traces()]
        w.put_verdicts([Verdict(trace_id=i, judge=j, correct=True)
                        for i in ids for j in (ENSEMBLE, "llm:sim-judge/strict",
                                               "llm:sim-judge/noisy")])
    return ws


def test_judge_ensemble_means_the_workspaces_one_ensemble(judged: Path) -> None:
    res = runner.invoke(app, ["stages", "-w", str(judged), "--judge", "ensemble", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["judge"] == ENSEMBLE
    line = _error(["stages", "-w", str(judged), "--judge", "llm"])
    assert "llm:sim-judge/noisy, llm:sim-judge/strict" in line and "give one in full" in line
    line = _error(["stages", "-w", str(judged), "--judge", "heuristc"])
    assert "did you mean 'heuristic'?" in line


def test_limit_says_how_the_tasks_drawn_became_units(tmp_path: Path) -> None:
    """`--limit 10` with one injected condition stores fewer traces than 10 when it draws
    knowledge tasks (nothing to corrupt there): the summary and --help say so."""
    args = ["run", "-m", "sim/balanced", "-n", "10", "-c", "p2:semantic_wrong"]
    res = runner.invoke(app, [*args, "-w", str(tmp_path / "a"), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["tasks"] == 10 and out["not_injectable"] > 0
    assert out["units"] == out["completed"] == 10 - out["not_injectable"]
    res = runner.invoke(app, [*args, "-w", str(tmp_path / "b")])
    assert (f"10 tasks drawn, {out['not_injectable']} not injectable: {out['units']} units"
            in " ".join(res.stdout.split()))
    help_text = " ".join(runner.invoke(app, ["run", "--help"]).stdout.split())
    assert "fewer units than tasks" in help_text

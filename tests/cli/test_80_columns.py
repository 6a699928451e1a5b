"""Every table-printing command at COLUMNS=80: nothing wider than the terminal, no name
cut with "…", and the names the tables hold (models, judges, conditions, metrics) whole.

The commands run as a user runs them, in a subprocess with COLUMNS=80, on one small
study (sim agents, an LLM-judge ensemble, an interceptor sweep and evaluation, human
labels imported by two annotators).
"""

from __future__ import annotations

import csv
import os
import random
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENSEMBLE = "ensemble:sim-judge/strict,sim-judge/lenient,sim-judge/noisy"
STUDY = f"""\
name: narrow
concurrency: 8
models:
  - id: sim/tool-averse
  - id: sim/propagator
  - id: sim/self-correcting
runs:
  - name: core
    models: [sim/tool-averse, sim/propagator, sim/self-correcting]
    domains: [calendar, weather, medical]
    n: 6
    conditions: [baseline, p2:all]
judges: [heuristic, facts, "{ENSEMBLE}"]
primary_judge: facts
labels: {{n: 12, by: [model, domain], overlap: 4, seed: 1,
          condition: p2:semantic_wrong}}
sweep:
  models: [sim/propagator, sim/tool-averse]
  split: val
  n: 8
  conditions: [p2:all]
evaluate:
  models: [sim/propagator, sim/self-correcting]
  n: 6
  conditions: [p2:semantic_wrong, p2:type_mismatch]
  config: best
"""


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80", "LINES": "50", "TERM": "dumb"}
    env.pop("FORCE_COLOR", None)
    return subprocess.run([sys.executable, "-c", "from agentprop.cli import main; main()",
                           *args], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=600)


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("narrow")
    (d / "study.yaml").write_text(STUDY, encoding="utf-8")
    res = _cli(["experiment", "run", "study.yaml", "-w", "ws"], d)
    assert res.returncode == 0, res.stderr[-2000:]
    (d / "experiment_run.txt").write_text(res.stdout + res.stderr, encoding="utf-8")
    con = sqlite3.connect(d / "ws" / "agentprop.sqlite")
    ids = [r[0] for r in con.execute("SELECT trace_id FROM label_sample")]
    con.close()
    rng = random.Random(0)
    with open(d / "labels.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["trace_id", "annotator", "label"])
        for i, tid in enumerate(ids):
            w.writerow([tid, "ada", rng.choice(["yes", "no"])])
            if i < 6:
                w.writerow([tid, "grace-hopper-the-second", rng.choice(["yes", "no"])])
    assert _cli(["label", "import", "-w", "ws", "labels.csv"], d).returncode == 0
    return d


COMMANDS = {
    "models list": (["models", "list"], ["sim/self-correcting", "uncertain", "OPENROUTER_API_KEY"]),
    "suite stats": (["suite", "stats"], ["knowledge", "checksum"]),
    "stages": (["stages", "-w", "ws"], ["sim/self-correcting", "recovered"]),
    "judge": (["judge", "-w", "ws", "-j", "facts", "-j", "heuristic"], ["heuristic", "unscored"]),
    "analyze": (["analyze", "-w", "ws", "--resamples", "50"],
                ["sim/self-correcting", "noticed_not_recovered", "unnoticed_recovered"]),
    "label sample": (["label", "sample", "-w", "ws", "--n", "12", "--seed", "1",
                      "--condition", "p2:semantic_wrong"], ["sim/self-correcting"]),
    "label plan": (["label", "plan", "-w", "ws", "--rate", "r23", "--half-width", "0.1"],
                   ["sim/self-correcting", "instrument says"]),
    "label agreement": (["label", "agreement", "-w", "ws"],
                        ["heuristic", "sim-judge/lenient", "grace-hopper-the-second"]),
    "intercept sweep": (["intercept", "sweep", "-w", "ws"], ["precision", "abstain"]),
    "intercept evaluate": (["intercept", "evaluate", "-w", "ws", "-m", "sim/propagator",
                            "-m", "sim/self-correcting", "-n", "6", "-c", "p2:semantic_wrong",
                            "-c", "p2:type_mismatch"],
                           ["sim/self-correcting", "p2:semantic_wrong", "p2:type_mismatch",
                            "two-proportion p"]),
    "intercept sweep --max-false-abstain": (
        ["intercept", "sweep", "-w", "ws", "--max-false-abstain", "0.9"],
        ["Learn-then-Test", "realised false-abstain rate", "AURC"]),
    "traces list": (["traces", "list", "-w", "ws", "-n", "3"], []),
    "experiment --dry-run": (["experiment", "run", "study.yaml", "--dry-run"],
                             ["sim/self-correcting"]),
}


def _check(text: str, names: list[str]) -> None:
    lines = text.splitlines()
    wide = [ln for ln in lines if len(ln) > 80]
    assert not wide, f"wider than 80 columns:\n{wide[0]}"
    cut = [ln for ln in lines if "…" in ln]
    assert not cut, f"a cut name:\n{cut[0]}"
    # a name the layout stacks over lines is broken only after a separator: each of its
    # parts is in the text whole (a cut would leave a part that is not)
    squeezed = re.sub(r"\s+", "", text)
    for name in names:
        parts = [p for p in re.split(r"(?<=[/:_,|.\- ])", name) if p.strip()]
        assert name in text or name.replace(" ", "") in squeezed or \
            all(p.strip() in text for p in parts), name


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_table_fits_80_columns_without_cutting_a_name(study: Path, name: str) -> None:
    args, names = COMMANDS[name]
    res = _cli(args, study)
    assert res.returncode == 0, res.stderr[-2000:]
    _check(res.stdout + res.stderr, names)


def test_the_study_run_fits_80_columns(study: Path) -> None:
    """`experiment run` itself: its step lines (the judge list one judge a line when it
    does not fit), its plain-line progress (stderr is not a terminal), its headline."""
    text = (study / "experiment_run.txt").read_text(encoding="utf-8")
    _check(text, ["sim/self-correcting", ENSEMBLE])
    assert f"\n  {ENSEMBLE}\n" in text
    progress = [ln for ln in text.splitlines() if ln.startswith(("run ", "judging "))]
    assert progress and all(" · " in ln for ln in progress), progress


def test_every_help_fits_80_columns_without_cutting_a_name(tmp_path: Path) -> None:
    """--help of every command: env-var names and option names whole, docstrings
    reflowed (no line ends mid-sentence because the source did)."""
    import typer.main

    from agentprop.cli import app

    cmd = typer.main.get_command(app)
    ctx = cmd.make_context("agentprop", ["--help"], resilient_parsing=True)
    paths: list[list[str]] = [[]]
    for name in cmd.list_commands(ctx):  # type: ignore[attr-defined]
        sub = cmd.get_command(ctx, name)  # type: ignore[attr-defined]
        paths.append([name])
        if hasattr(sub, "list_commands"):
            paths += [[name, s] for s in sub.list_commands(ctx)]
    script = ("import sys; from agentprop.cli import main\n"
              "for p in sys.argv[1:]:\n"
              "    sys.argv = ['agentprop', *p.split(), '--help']\n"
              "    print('=== ' + p)\n"
              "    try:\n        main()\n    except SystemExit:\n        pass\n")
    env = {**os.environ, "COLUMNS": "80"}
    res = subprocess.run([sys.executable, "-c", script, *(" ".join(p) for p in paths)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    text = res.stdout
    assert text.count("=== ") == len(paths)
    _check(text, ["AGENTPROP_SERVE_TOOLS_EPISODE_TIMEOUT", "--episodes-port",
                  "AGENTPROP_EXPERIMENT_RUN_RESAMPLES"])
    # a reflowed summary: `run`'s docstring breaks its first sentence in the source
    assert "condition × seed. Resumable." in " ".join(text.split())

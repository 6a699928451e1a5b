"""Experiment files: YAML and TOML load; every bad file is one line (library and CLI)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.experiment import ConfigError, ExperimentConfig, load_config

ROOT = Path(__file__).resolve().parents[2]

YAML_OK = """\
name: tiny
models:
  - id: sim/propagator
    concurrency: 4
  - id: sim/balanced
runs:
  - name: core
    models: [sim/propagator, sim/balanced]
    domains: [calendar]
    n: 3
    conditions: [baseline, p2:semantic_wrong]
judges: [facts]
primary_judge: facts
report: false
"""

TOML_OK = """\
name = "tiny"
report = false
judges = ["facts"]
primary_judge = "facts"

[[models]]
id = "sim/propagator"
concurrency = 4

[[models]]
id = "sim/balanced"

[[runs]]
name = "core"
models = ["sim/propagator", "sim/balanced"]
domains = ["calendar"]
n = 3
conditions = ["baseline", "p2:semantic_wrong"]
"""

BAD = {
    "unknown_key.yaml": (YAML_OK + "colour: blue\n", "colour"),
    "unknown_nested.yaml": (
        YAML_OK.replace("    n: 3\n", "    n: 3\n    tasks_per_model: 3\n"),
        "tasks_per_model",
    ),
    "undeclared.yaml": (
        YAML_OK.replace("[sim/propagator, sim/balanced]", "[sim/propagator, sim/oracle]"),
        "sim/oracle",
    ),
    "duplicate.yaml": (
        YAML_OK.replace("  - id: sim/balanced\n", "  - id: sim/propagator\n"),
        "sim/propagator",
    ),
    "bad.yaml": ("name: tiny\nmodels: [\n  - id: x\n", "not valid YAML"),
    "bad.toml": ('name = "tiny"\nmodels = [\n', "not valid TOML"),
    "list.yaml": ("- name: tiny\n", "mapping"),
    "bad_n.yaml": (YAML_OK.replace("n: 3", "n: 0"), "n"),
    "primary_not_run.yaml": (YAML_OK.replace("primary_judge: facts", "primary_judge: heuristic"),
                             "primary_judge"),
    "unknown_judge.yaml": (YAML_OK.replace("judges: [facts]", "judges: [facts, oracle]"),
                           "unknown judge"),
    "best_without_sweep.yaml": (
        YAML_OK + "evaluate:\n  models: [sim/propagator]\n  n: 2\n", "sweep"),
}


# valid as a file, wrong against the suite: caught when planning, before anything is written
CLI_BAD = {**BAD, "unknown_domain.yaml": (YAML_OK.replace("[calendar]", "[calender]"),
                                          "unknown domain 'calender'")}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_yaml_and_toml_give_the_same_study(tmp_path: Path) -> None:
    y = load_config(_write(tmp_path, "s.yaml", YAML_OK))
    t = load_config(_write(tmp_path, "s.toml", TOML_OK))
    assert isinstance(y, ExperimentConfig)
    assert y == t
    assert [m.id for m in y.models] == ["sim/propagator", "sim/balanced"]
    assert y.models[0].concurrency == 4
    assert y.runs[0].n == 3 and y.runs[0].split == "test"
    assert y.report is False and y.judges == ["facts"]


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_file_is_one_line_config_error(tmp_path: Path, name: str) -> None:
    text, needle = BAD[name]
    with pytest.raises(ConfigError) as exc:
        load_config(_write(tmp_path, name, text))
    msg = str(exc.value)
    assert "\n" not in msg
    assert needle in msg


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")


def test_shipped_configs_load_and_demo_copy_matches() -> None:
    paper = load_config(ROOT / "configs" / "paper.yaml")
    demo = load_config(ROOT / "configs" / "demo.yaml")
    assert len(paper.models) == 9
    assert all(m.id.startswith("sim/") for m in demo.models)
    packaged = ROOT / "agentprop" / "experiment" / "demo.yaml"
    assert (ROOT / "configs" / "demo.yaml").read_bytes() == packaged.read_bytes()


@pytest.mark.parametrize(
    "name",
    ["unknown_key.yaml", "undeclared.yaml", "duplicate.yaml", "bad.yaml", "bad.toml",
     "primary_not_run.yaml", "best_without_sweep.yaml", "unknown_domain.yaml"],
)
def test_cli_bad_config_one_line_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    text, needle = CLI_BAD[name]
    cfg = _write(tmp_path, name, text)
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    ws = tmp_path / "ws"
    for extra in ([], ["--dry-run"]):
        args = ["experiment", "run", str(cfg), "--workspace", str(ws), *extra]
        res = CliRunner().invoke(app, args)
        assert res.exit_code != 0
        assert res.exception is None or isinstance(res.exception, SystemExit)
        assert res.stdout == ""
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1, res.stderr
        assert "Traceback" not in res.stderr and needle in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_cli_missing_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["experiment", "run", str(tmp_path / "nope.toml")])
    assert res.exit_code != 0
    assert len(res.stderr.strip().splitlines()) == 1 and "not found" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_cli_unknown_provider_fails_before_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = _write(tmp_path, "p.yaml", YAML_OK.replace("sim/balanced", "nosuch/model"))
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["experiment", "run", str(cfg), "-w", str(tmp_path / "ws")])
    assert res.exit_code != 0
    assert len(res.stderr.strip().splitlines()) == 1 and "unknown model provider" in res.stderr
    assert not (tmp_path / "ws").exists()


def test_unknown_provider_rejected_even_in_a_dry_run(tmp_path: Path) -> None:
    from agentprop.experiment import ConfigError, load_config

    p = tmp_path / "x.yaml"
    p.write_text("name: x\nmodels:\n  - id: foo/bar\nruns:\n  - name: a\n    models: [foo/bar]\n")
    with pytest.raises(ConfigError, match="unknown model provider 'foo'"):
        load_config(p)


def test_unpriced_model_is_flagged_in_the_plan(tmp_path: Path) -> None:
    from agentprop.experiment import build_plan, load_config
    from agentprop.suite import load_suite

    p = tmp_path / "x.yaml"
    p.write_text("name: x\nmodels:\n  - id: openai/my-finetune\nruns:\n  - name: a\n"
                 "    models: [openai/my-finetune]\n    n: 3\n")
    plan = build_plan(load_config(p), load_suite())
    assert "no price for openai/my-finetune" in plan.steps[0].note

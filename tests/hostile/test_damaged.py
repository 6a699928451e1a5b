"""A damaged, oddly versioned or read-only workspace: one line naming the file, nothing
more written; reading commands work on a read-only workspace."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agentprop.store import Workspace
from tests.hostile._helpers import invoke, one_line_error

PAGE = 4096


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real workspace: sim traces (baseline and P2), facts verdicts, a label sample."""
    ws = tmp_path_factory.mktemp("pristine") / "w"
    for args in (["run", "-m", "sim/balanced", "-n", "20", "-c", "baseline", "-c",
                  "p2:semantic_wrong", "--json"], ["judge", "-j", "facts", "--json"],
                 ["label", "sample", "--n", "10"]):
        result = invoke(*args, "-w", str(ws))
        assert result.exit_code == 0, result.output
    con = sqlite3.connect(ws / "agentprop.sqlite")  # everything into the main file
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return ws


def _copy(pristine: Path, to: Path) -> Path:
    """The workspace as a closed one looks: the database file alone (no -wal, -shm)."""
    to.mkdir()
    shutil.copy(pristine / "agentprop.sqlite", to / "agentprop.sqlite")
    return to


def _damage(ws: Path, pages: list[int] | None = None) -> None:
    """Random bytes over a few pages (seeded), as a bad disk or a stray write would."""
    db = ws / "agentprop.sqlite"
    data = bytearray(db.read_bytes())
    n = len(data) // PAGE
    rng = random.Random(7)
    for page in pages if pages is not None else rng.sample(range(1, n), 4):
        data[page * PAGE:(page + 1) * PAGE] = rng.randbytes(PAGE)
    db.write_bytes(bytes(data))


def _digest(ws: Path) -> str:
    return hashlib.sha256((ws / "agentprop.sqlite").read_bytes()).hexdigest()


def _quick_check(ws: Path) -> str:
    con = sqlite3.connect(ws / "agentprop.sqlite")
    try:
        return str(con.execute("PRAGMA quick_check").fetchone()[0])
    except sqlite3.DatabaseError as e:
        return str(e)
    finally:
        con.close()


def _commands(ws: Path, out: Path) -> list[list[str]]:
    labels = out / "labels-in.csv"
    labels.write_text("trace_id,annotator,label\nx,ann,YES\n")
    w = ["-w", str(ws)]
    return [["traces", "list", *w], ["traces", "show", "0", *w],
            ["traces", "export", "-f", "csv", "-o", str(out / "t.csv"), *w],
            ["stages", *w], ["analyze", *w], ["report", *w], ["judge", "-j", "heuristic", *w],
            ["label", "agreement", *w], ["label", "export", "--out", str(out / "l.csv"), *w],
            ["label", "sample", *w], ["label", "import", str(labels), *w],
            ["intercept", "sweep", *w], ["run", "-m", "sim/balanced", "-n", "30", *w]]


@pytest.mark.parametrize("where", ["pages", "header"])
def test_every_command_refuses_a_damaged_workspace(pristine: Path, tmp_path: Path,
                                                   where: str) -> None:
    ws = _copy(pristine, tmp_path / "w")
    _damage(ws, [0] if where == "header" else None)
    assert _quick_check(ws) != "ok"  # the probe really damaged the file
    before = _digest(ws)
    for args in _commands(ws, tmp_path):
        line = one_line_error(invoke(*args))
        assert str(ws / "agentprop.sqlite") in line and "damaged" in line, (args, line)
        assert "restore" in line.lower()
        assert _digest(ws) == before, args  # nothing more written
        assert not (ws / "agentprop.sqlite-wal").exists() or (
            ws / "agentprop.sqlite-wal").stat().st_size == 0


def test_a_schema_version_that_is_not_json(pristine: Path, tmp_path: Path) -> None:
    ws = _copy(pristine, tmp_path / "w")
    con = sqlite3.connect(ws / "agentprop.sqlite")
    with con:
        con.execute("UPDATE meta SET value='v1 (hand edited' WHERE key='schema_version'")
    con.close()
    line = one_line_error(invoke("traces", "list", "-w", str(ws)))
    assert "schema version" in line and str(ws) in line


def _as_unprivileged(args: list[str]) -> list[str]:
    """`args` run so that file permissions bind: root has them dropped by setpriv."""
    if os.geteuid() != 0:
        return args
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot make a file read-only for us")
    caps = "-dac_override,-dac_read_search,-fowner"
    return [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}", *args]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = _as_unprivileged([sys.executable, "-c", "from agentprop.cli import main; main()",
                            *args])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_reading_commands_work_on_a_read_only_workspace(pristine: Path, tmp_path: Path
                                                        ) -> None:
    ws = _copy(pristine, tmp_path / "w")
    with Workspace(ws) as opened:  # closed: checkpointed, no -wal, as a finished workspace
        ids = opened.trace_ids()
    trace_id = next(iter(ids))
    out = tmp_path / "out"
    out.mkdir()
    read_only = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH
    for p in ws.iterdir():
        p.chmod(read_only)
    ws.chmod(read_only | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    files = sorted(p.name for p in ws.iterdir())
    assert "agentprop.sqlite-wal" not in files
    try:
        before = _digest(ws)
        for args in (["traces", "list"], ["traces", "show", trace_id],
                     ["traces", "export", "-f", "jsonl", "-o", str(out / "t.jsonl")],
                     ["stages"], ["analyze", "--resamples", "50"],
                     ["label", "export", "--out", str(out / "l.csv")],
                     ["label", "agreement", "--json"]):
            done = _cli(*args, "-w", str(ws))
            assert done.returncode == 0 or "no human labels" in done.stderr, (args, done.stderr)
            assert "Traceback" not in done.stderr, done.stderr
        assert len((out / "t.jsonl").read_text().splitlines()) == len(ids)
        # a writing command says so in one line, before doing any work
        done = _cli("judge", "-j", "heuristic", "-w", str(ws))
        assert done.returncode == 2 and "read-only" in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        assert _digest(ws) == before
        assert sorted(p.name for p in ws.iterdir()) == files
    finally:
        ws.chmod(0o755)
        for p in ws.iterdir():
            p.chmod(0o644)


@pytest.mark.parametrize("command", [
    ["run", "-m", "sim/balanced", "-n", "2"], ["stages"], ["traces", "list"],
    ["judge", "-j", "facts"], ["report"]])
def test_a_zero_length_database_is_refused_not_recreated(tmp_path: Path,
                                                          command: list[str]) -> None:
    ws = tmp_path / "w"
    ws.mkdir()
    db = ws / "agentprop.sqlite"
    db.touch()
    old = db.stat().st_mtime - 60  # emptied a while ago, not being created right now
    os.utime(db, (old, old))
    line = one_line_error(invoke(*command, "-w", str(ws)))
    assert "is empty (0 bytes)" in line and "agentprop.sqlite" in line
    assert db.stat().st_size == 0 and sorted(p.name for p in ws.iterdir()) == [db.name]


@pytest.mark.parametrize("shape", ["flow", "block", "mapping"])
def test_an_experiment_nested_20000_deep_is_one_line(tmp_path: Path, shape: str) -> None:
    deep = {"flow": "models: " + "[" * 20000 + "]" * 20000 + "\n",
            "block": "models:\n" + "".join("  " * i + "- \n" for i in range(3000)),
            "mapping": "runs: " + "{a: " * 20000 + "1" + "}" * 20000 + "\n"}[shape]
    study = tmp_path / "study.yaml"
    study.write_text("name: deep\n" + deep)
    line = one_line_error(invoke("experiment", "run", str(study), "-w", str(tmp_path / "w"),
                                 "--dry-run"))
    assert "nested too deeply" in line
    assert not (tmp_path / "w").exists()


def test_deep_tool_call_arguments_from_a_provider_are_a_recorded_unparsed_call() -> None:
    """Arguments nested thousands deep are the model's output: kept as an unparsed call
    with the reason (never retried, never a RecursionError)."""
    from agentprop.models._openai import parse_response

    deep = "[" * 200_000 + "]" * 200_000
    data = {"choices": [{"message": {"tool_calls": [
        {"id": "c", "function": {"name": "f", "arguments": deep}}]}}]}
    out = parse_response(data)
    assert not out.tool_calls and len(out.unparsed_calls) == 1
    assert "nested too deeply" in out.unparsed_calls[0].error


def test_a_deep_model_option_is_kept_as_text() -> None:
    from agentprop.cli._run import _parse_options

    deep = "[" * 200_000 + "]" * 200_000
    assert _parse_options([f"x={deep}"]) == {"x": deep}

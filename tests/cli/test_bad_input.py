"""Bad input to every command: one `error:` line on stderr (or typer's own usage error,
exit 2), a non-zero exit, no traceback, and nothing written or left half-written."""

from __future__ import annotations

import gc
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app

runner = CliRunner()
RELEASE = Path(__file__).resolve().parents[1] / "fixtures" / "agenthallu-release"


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A good small workspace plus the bad files the cases point at (paths are relative)."""
    sb = tmp_path_factory.mktemp("bad-input")
    good = sb / "good"
    res = runner.invoke(app, ["run", "-m", "sim/balanced", "-n", "2", "-d", "weather",
                              "-c", "baseline", "-c", "p2:semantic_wrong", "-w", str(good)])
    assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["judge", "-w", str(good), "-j", "facts"]).exit_code == 0
    gc.collect()  # close any connection left to the GC, then fold the WAL into the database
    with sqlite3.connect(good / "agentprop.sqlite") as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    (sb / "empty").mkdir()
    (sb / "afile").write_text("x")
    db = (good / "agentprop.sqlite").read_bytes()
    (sb / "v2").mkdir()
    (sb / "v2" / "agentprop.sqlite").write_bytes(db)
    with sqlite3.connect(sb / "v2" / "agentprop.sqlite") as c:
        c.execute("UPDATE meta SET value='2' WHERE key='schema_version'")
    c.close()
    (sb / "corrupt").mkdir()
    (sb / "corrupt" / "agentprop.sqlite").write_bytes(os.urandom(8192))
    (sb / "garbled.csv").write_bytes(b"\x00\xff\xfe garbage,\"unterminated\n1,2\n")
    (sb / "missingcols.csv").write_text("foo,bar\n1,2\n")
    (sb / "unknown_tid.csv").write_text("trace_id,annotator,label\nnope,alice,correct\n")
    (sb / "bad.jsonl").write_text("garbage\n")
    (sb / "garbled.yaml").write_text("name: [unclosed\n  - : :\n")
    for name in ("rel_trunc", "rel_cols", "rel_empty"):
        (sb / name).mkdir()
    src = (RELEASE / "p2_all_rejudged.csv").read_text()
    (sb / "rel_trunc" / "p2_all_rejudged.csv").write_text(src[: len(src) // 3])
    (sb / "rel_cols" / "p2_all_rejudged.csv").write_text("session_id,task_id\na,b\n")
    (sb / "tiny.yaml").write_text(
        "name: tiny\nmodels:\n  - id: sim/balanced\nruns:\n  - name: core\n"
        "    models: [sim/balanced]\n    domains: [weather]\n    split: test\n    n: 2\n"
        "    conditions: [baseline]\njudges: [facts]\nprimary_judge: facts\n"
    )
    return sb


@pytest.fixture
def in_sandbox(sandbox: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(sandbox)
    for var in ("AGENTPROP_WORKSPACE", "OPENAI_BASE_URL", "HTTP_PROXY", "HTTPS_PROXY",
                "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    yield sandbox


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        if p.is_file() else (0, 0)
        for p in root.rglob("*")
        # SQLite's own side files on open, and agentprop's record of the last clean
        # integrity check (store/_sound.py)
        if not p.name.endswith(("-wal", "-shm", ".agentprop-sound"))
    }


BAD_WS = {"nonexist": "nonexist", "afile": "afile", "unwritable": "/proc/x/ws", "empty": "empty",
          "schema v2": "v2", "corrupt db": "corrupt"}
# Commands that create their workspace treat a missing or empty folder as valid.
CREATORS = {"run", "import agenthallu", "demo", "experiment run"}
WS_COMMANDS = {
    "run": ["run", "-m", "sim/balanced", "-n", "2", "-w", "{W}"],
    "traces list": ["traces", "list", "-w", "{W}"],
    "traces export": ["traces", "export", "-w", "{W}", "--out", "out.jsonl"],
    "stages": ["stages", "-w", "{W}"],
    "judge": ["judge", "-w", "{W}", "-j", "facts"],
    "label sample": ["label", "sample", "-w", "{W}"],
    "label serve": ["label", "serve", "-w", "{W}", "--port", "0"],
    "label export": ["label", "export", "-w", "{W}", "--out", "l.csv"],
    "label agreement": ["label", "agreement", "-w", "{W}"],
    "analyze": ["analyze", "-w", "{W}", "--resamples", "10"],
    "report": ["report", "-w", "{W}", "--resamples", "10"],
    "import agenthallu": ["import", "agenthallu", str(RELEASE), "-w", "{W}"],
    "intercept sweep": ["intercept", "sweep", "-w", "{W}"],
    "intercept evaluate": ["intercept", "evaluate", "-w", "{W}", "-m", "sim/balanced", "--n", "2"],
    "demo": ["demo", "-w", "{W}"],
    "experiment run": ["experiment", "run", "tiny.yaml", "-w", "{W}"],
}
WS_CASES = [
    pytest.param([a.replace("{W}", w) for a in args], id=f"{cmd} | ws {kind}")
    for cmd, args in WS_COMMANDS.items()
    for kind, w in BAD_WS.items()
    if not (cmd in CREATORS and kind in ("nonexist", "empty"))
]

EVAL = ["intercept", "evaluate", "-w", "newws", "-m", "sim/balanced", "--n", "2"]
FIXED = ["--config", "tau_l1=1,tau_l2=2,l3=on"]
RUN = ["run", "-w", "newws", "-n", "2"]
OPTION_CASES = [
    pytest.param([*RUN, "-m", "foo/bar"], {}, id="run | unknown provider"),
    pytest.param([*RUN, "-m", "sim/nope"], {}, id="run | unknown sim profile"),
    pytest.param([*RUN, "-m", "openai/gpt-4o-mini", "--base-url", "http://127.0.0.1:9/v1"],
                 {"OPENAI_API_KEY": "x"}, id="run | --base-url nothing listens"),
    pytest.param([*RUN, "-m", "openai/gpt-4o-mini"],
                 {"OPENAI_API_KEY": "x", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
                 id="run | OPENAI_BASE_URL nothing listens"),
    pytest.param([*RUN, "-m", "sim/balanced", "-c", "nope"], {}, id="run | unknown condition"),
    pytest.param([*RUN, "-m", "sim/balanced", "-o", "bogus=1"], {},
                 id="run | unknown model option"),
    pytest.param(["run", "-w", "newws", "-m", "sim/balanced", "-n", "0"], {}, id="run | -n 0"),
    pytest.param(["run", "-w", "newws", "-m", "sim/balanced", "-n", "abc"], {},
                 id="run | -n abc"),
    pytest.param([*RUN, "-m", "sim/balanced", "--seed", "-1"], {}, id="run | --seed -1"),
    pytest.param([*RUN, "-m", "sim/balanced", "--concurrency", "0"], {},
                 id="run | --concurrency 0"),
    pytest.param([*RUN, "-m", "sim/balanced"], {"AGENTPROP_CONCURRENCY": "-1"},
                 id="run | env concurrency -1"),
    pytest.param([*RUN, "-m", "sim/balanced", "--suite", "missing.jsonl"], {},
                 id="run | missing suite file"),
    pytest.param([*RUN, "-m", "sim/balanced", "--suite", "bad.jsonl"], {},
                 id="run | garbled suite file"),
    pytest.param(["traces", "list", "-w", "good", "-n", "-1"], {}, id="traces list | -n -1"),
    pytest.param(["traces", "list", "-w", "good", "--status", "nope"], {},
                 id="traces list | unknown status"),
    pytest.param(["traces", "list", "-w", "good"], {"AGENTPROP_TRACES_LIST_LIMIT": "abc"},
                 id="traces list | env limit abc"),
    pytest.param(["traces", "show", "nope", "-w", "good"], {}, id="traces show | unknown id"),
    pytest.param(["traces", "export", "-w", "good", "-f", "xml", "--out", "o.xml"], {},
                 id="traces export | unknown format"),
    pytest.param(["traces", "export", "-w", "good", "--out", "nodir/o.jsonl"], {},
                 id="traces export | missing folder"),
    pytest.param(["traces", "export", "-w", "good", "--out", "empty"], {},
                 id="traces export | out is a folder"),
    pytest.param(["traces", "export", "-w", "good", "-f", "inspect", "--out", "logs",
                  "-m", "nope/x"], {}, id="traces export | inspect, no trace matches"),
    pytest.param(["traces", "export", "-w", "good", "-f", "inspect", "--out", "afile"], {},
                 id="traces export | inspect, out is a file"),
    pytest.param(["traces", "export", "-w", "good", "-f", "inspect", "--out", "nodir/logs"],
                 {}, id="traces export | inspect, missing folder"),
    pytest.param(["stages", "-w", "good", "--judge", "nope"], {}, id="stages | unknown judge"),
    pytest.param(["stages", "-w", "good", "--seed", "-1"], {}, id="stages | --seed -1"),
    pytest.param(["judge", "-w", "good", "-j", "nope"], {}, id="judge | unknown judge"),
    pytest.param(["judge", "-w", "good", "-j", "llm:foo/bar"], {},
                 id="judge | unknown provider"),
    pytest.param(["judge", "-w", "good", "-j", "facts", "--concurrency", "0"], {},
                 id="judge | --concurrency 0"),
    pytest.param(["label", "sample", "-w", "good", "--n", "0"], {}, id="label sample | --n 0"),
    pytest.param(["label", "sample", "-w", "good", "--seed", "-1"], {},
                 id="label sample | --seed -1"),
    pytest.param(["label", "sample", "-w", "good", "--by", "nope"], {},
                 id="label sample | unknown stratum"),
    pytest.param(["label", "import", "garbled.csv", "-w", "good"], {},
                 id="label import | garbled csv"),
    pytest.param(["label", "import", "missingcols.csv", "-w", "good"], {},
                 id="label import | missing columns"),
    pytest.param(["label", "import", "unknown_tid.csv", "-w", "good"], {},
                 id="label import | unknown trace id"),
    pytest.param(["label", "import", "nofile.csv", "-w", "good"], {},
                 id="label import | missing file"),
    pytest.param(["label", "import", "empty", "-w", "good"], {}, id="label import | a folder"),
    pytest.param(["label", "export", "-w", "good", "--out", "nodir/l.csv"], {},
                 id="label export | missing folder"),
    pytest.param(["label", "export", "-w", "good", "--out", "empty"], {},
                 id="label export | out is a folder"),
    pytest.param(["analyze", "-w", "good", "--seed", "-1", "--resamples", "10"], {},
                 id="analyze | --seed -1"),
    pytest.param(["report", "-w", "good", "--seed", "-1", "--resamples", "10"], {},
                 id="report | --seed -1"),
    pytest.param(["import", "agenthallu", "nodir", "-w", "newws"], {},
                 id="import agenthallu | missing folder"),
    pytest.param(["import", "agenthallu", "rel_empty", "-w", "newws"], {},
                 id="import agenthallu | no csv"),
    pytest.param(["import", "agenthallu", "rel_trunc", "-w", "newws"], {},
                 id="import agenthallu | truncated csv"),
    pytest.param(["import", "agenthallu", "rel_cols", "-w", "newws"], {},
                 id="import agenthallu | missing columns"),
    pytest.param(["intercept", "sweep", "-w", "good", "--split", "nope"], {},
                 id="intercept sweep | unknown split"),
    pytest.param(["intercept", "sweep", "-w", "good", "--max-false-abstain", "1.5"], {},
                 id="intercept sweep | --max-false-abstain 1.5"),
    pytest.param(["intercept", "sweep", "-w", "good", "--max-false-abstain", "0.1",
                  "--delta", "0"], {}, id="intercept sweep | --delta 0"),
    pytest.param(EVAL + FIXED + ["-m", "foo/bar"], {}, id="intercept evaluate | unknown model"),
    pytest.param(EVAL + FIXED + ["-c", "nope"], {}, id="intercept evaluate | unknown condition"),
    pytest.param(EVAL + FIXED + ["--seed", "-1"], {}, id="intercept evaluate | --seed -1"),
    pytest.param([*EVAL, "--config", "garbage"], {}, id="intercept evaluate | bad config"),
    pytest.param(["intercept", "evaluate", "-w", "newws", "-m", "openai/gpt-4o-mini", "--n", "2",
                  *FIXED], {"OPENAI_API_KEY": "x", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
                 id="intercept evaluate | server unreachable"),
    pytest.param(["experiment", "run", "nofile.yaml", "-w", "newws"], {},
                 id="experiment run | missing file"),
    pytest.param(["experiment", "run", "garbled.yaml", "-w", "newws"], {},
                 id="experiment run | garbled yaml"),
    pytest.param(["serve-sim", "--fail-rate", "2"], {}, id="serve-sim | --fail-rate 2"),
    pytest.param(["serve-sim", "--hold-s", "-1"], {}, id="serve-sim | --hold-s -1"),
    pytest.param(["serve-sim", "--retry-after", "-1"], {}, id="serve-sim | --retry-after -1"),
    pytest.param(["serve-sim", "--host", "999.1.1.1", "--port", "0"], {},
                 id="serve-sim | cannot bind"),
    pytest.param(["suite", "show", "nope_0001"], {}, id="suite show | unknown task"),
    pytest.param(["suite", "stats", "--suite", "bad.jsonl"], {}, id="suite stats | garbled"),
]


def _check(args: list[str], env: dict[str, str], root: Path) -> None:
    before = _snapshot(root)
    res = runner.invoke(app, args, env=env)
    assert res.exit_code != 0, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.output
    err = res.stderr.strip().splitlines()
    if res.exit_code == 2 and "Usage:" in res.stderr:  # typer's own usage error box
        assert "Invalid value" in res.stderr or "No such option" in res.stderr
    else:
        assert len(err) == 1 and err[0].startswith("error:"), res.stderr
    assert _snapshot(root) == before, "the filesystem changed"


@pytest.mark.parametrize("args", WS_CASES)
def test_bad_workspace(args: list[str], in_sandbox: Path) -> None:
    _check(args, {}, in_sandbox)


@pytest.mark.parametrize(("args", "env"), OPTION_CASES)
def test_bad_option(args: list[str], env: dict[str, str], in_sandbox: Path) -> None:
    _check(args, env, in_sandbox)


def test_unknown_model_option_is_named(in_sandbox: Path) -> None:
    res = runner.invoke(app, [*RUN, "-m", "sim/balanced", "-o", "bogus=1"])
    assert "does not take option 'bogus'" in res.stderr


def test_every_option_reads_an_env_var(in_sandbox: Path) -> None:
    res = runner.invoke(app, ["traces", "list", "-w", "good"],
                        env={"AGENTPROP_TRACES_LIST_LIMIT": "1"})
    assert res.exit_code == 0, res.output
    assert "1 of " in res.stdout

"""`traces export --format inspect`: the logs Inspect's own reader reads back hold every
trace as a sample (question, conversation, tool calls answered by id, the stored verdicts
as scores), one log per model × condition; an abstention and an error trace survive; bad
input is one line; `import agentprop` never loads inspect_ai."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("inspect_ai")

from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser

from agentprop.cli import app
from agentprop.core import ErrorEvent, FinalEvent, Trace
from agentprop.interop._inspect import file_stem
from agentprop.store import Workspace

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
MODELS = ("sim/propagator", "sim/self-correcting")
CONDITIONS = ("baseline", "p2:type_mismatch")


def _abstention(t: Trace) -> Trace:
    """`t` as the interceptor's treatment arm would have ended it: the answer withheld."""
    events = [e for e in t.events if not isinstance(e, FinalEvent)]
    events.append(FinalEvent(step=9, answer="I can't answer that reliably.", abstained=True,
                             reason="L1: the tool failed"))
    return t.model_copy(update={"id": "abstain" + t.id[7:], "arm": "treatment",
                                "events": events})


def _error(t: Trace) -> Trace:
    """`t` cut short by a provider failure after its first tool result."""
    cut = next(i for i, m in enumerate(t.messages) if m.role == "tool") + 1
    first = next(i for i, e in enumerate(t.events) if e.type == "tool_result")
    events = list(t.events[:first + 1])
    events.append(ErrorEvent(step=1, kind="server", message="HTTP 500", attempts=3))
    return t.model_copy(update={"id": "error" + t.id[5:], "seed": 7, "status": "error",
                                "messages": t.messages[:cut], "events": events})


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    d = tmp_path_factory.mktemp("inspect")
    ws = d / "ws"
    args = ["run", "-w", str(ws), "-n", "3", "-d", "weather", "-d", "calendar"]
    for m in MODELS:
        args += ["-m", m]
    for c in CONDITIONS:
        args += ["-c", c]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    with Workspace(ws) as w:
        tool_users = [t for t in w.iter_traces(model=MODELS[0], condition=CONDITIONS[1])
                      if any(m.role == "tool" for m in t.messages)]
        added = [_abstention(tool_users[0]), _error(tool_users[0])]
        w.put_traces(added)
    res = runner.invoke(app, ["judge", "-w", str(ws), "-j", "facts", "-j", "heuristic"])
    assert res.exit_code == 0, res.output
    out = d / "logs"
    res = runner.invoke(app, ["traces", "export", "-w", str(ws), "-f", "inspect", "-o",
                              str(out)])
    assert res.exit_code == 0, res.output
    assert "exported" in res.output and "Inspect logs" in res.output
    assert all(len(line) <= 80 for line in res.output.splitlines())
    return ws, out, [t.id for t in added]


def _logs(out: Path) -> dict[str, EvalLog]:
    return {p.name: read_eval_log(str(p)) for p in sorted(out.glob("*.eval"))}


def test_one_log_per_model_and_condition_with_every_trace(
        exported: tuple[Path, Path, list[str]]) -> None:
    ws, out, _ = exported
    logs = _logs(out)
    assert sorted(logs) == sorted(f"{file_stem(m, c)}.eval" for m in MODELS
                                  for c in CONDITIONS)
    with Workspace(ws) as w:
        for log in logs.values():
            model, condition = log.eval.model, log.eval.task_args["condition"]
            ids = {r["id"] for r in w.trace_rows(model=model, condition=condition)}
            assert log.samples is not None
            assert {s.id for s in log.samples} == ids
            assert log.eval.task == "agentprop" and log.eval.metadata is not None
            assert log.eval.metadata["condition"] == condition
            assert log.eval.run_id in log.eval.metadata["run_ids"] or "," in log.eval.run_id
            assert log.status == "success"


def test_samples_hold_question_calls_by_id_and_stored_verdicts(
        exported: tuple[Path, Path, list[str]]) -> None:
    ws, out, _ = exported
    calls_seen = 0
    with Workspace(ws) as w:
        primary = w.primary_judge()
        stored = {(tid, j): c for tid, j, c, _ in w.verdict_rows()}
        for log in _logs(out).values():
            assert log.samples is not None and log.results is not None
            for s in log.samples:
                trace = w.get_trace(str(s.id))
                assert trace is not None
                question = next(m.content for m in trace.messages if m.role == "user")
                assert s.input == question
                assert any(isinstance(m, ChatMessageUser) and m.text == question
                           for m in s.messages)
                assert len(s.messages) == len(trace.messages)
                pending: dict[str, str] = {}
                for m in s.messages:
                    if isinstance(m, ChatMessageAssistant):
                        for c in m.tool_calls or []:
                            pending[c.id] = c.function
                            calls_seen += 1
                    elif isinstance(m, ChatMessageTool):
                        assert m.tool_call_id in pending  # answers an earlier call
                        assert pending.pop(m.tool_call_id) == m.function
                # every verdict a judge scored is a score, with its value; unscored: none
                judged = {j: c for (tid, j), c in stored.items() if tid == s.id}
                scores = s.scores or {}
                assert {j: v.value == "C" for j, v in scores.items()} == {
                    j: c for j, c in judged.items() if c is not None}
                if judged.get(primary) is not None:
                    assert next(iter(scores)) == primary
                assert s.metadata["task_id"] == trace.task_id
                assert s.metadata["condition"] == trace.condition
                if trace.condition != "baseline" and trace.status == "ok":
                    assert s.metadata["injection"]["param"]
                    assert "S1" in s.metadata["stages"]
            # the headline: the primary judge's accuracy over the samples it scored
            head = log.results.scores[0]
            assert head.name == primary
            values = [s.scores[primary].value == "C" for s in log.samples
                      if s.scores and primary in s.scores]
            assert head.metrics["accuracy"].value == pytest.approx(sum(values) / len(values))
    assert calls_seen > 0


def test_targets_are_the_tasks_reference_answers(
        exported: tuple[Path, Path, list[str]]) -> None:
    from agentprop.suite import load_suite

    _, out, _ = exported
    suite = load_suite()
    for log in _logs(out).values():
        assert log.samples is not None
        for s in log.samples:
            task = suite.get(s.metadata["task_id"])
            assert task is not None and s.target == task.reference_answer


def test_an_abstention_and_an_error_trace_survive(
        exported: tuple[Path, Path, list[str]]) -> None:
    _, out, (abstain_id, error_id) = exported
    log = read_eval_log(str(out / f"{file_stem(MODELS[0], CONDITIONS[1])}.eval"))
    assert log.samples is not None
    by_id = {s.id: s for s in log.samples}
    abstained = by_id[abstain_id]
    assert abstained.metadata["abstained"] is True
    assert abstained.metadata["abstain_reason"] == "L1: the tool failed"
    assert abstained.output.completion == "I can't answer that reliably."
    assert abstained.error is None
    failed = by_id[error_id]
    assert failed.error is not None and failed.error.message == "server: HTTP 500"
    assert failed.metadata["status"] == "error"
    assert failed.output.completion == ""
    assert isinstance(failed.messages[-1], ChatMessageTool)
    assert sum(s.error is not None for s in log.samples) == 1


def test_filters_choose_the_logs(exported: tuple[Path, Path, list[str]],
                                 tmp_path: Path) -> None:
    ws, _, _ = exported
    out = tmp_path / "one"
    res = runner.invoke(app, ["traces", "export", "-w", str(ws), "-f", "inspect", "-o",
                              str(out), "-m", MODELS[1], "-c", "baseline"])
    assert res.exit_code == 0, res.output
    assert [p.name for p in out.iterdir()] == [f"{file_stem(MODELS[1], 'baseline')}.eval"]


@pytest.mark.parametrize(("extra", "says"), [
    (["-m", "nope/model"], "no traces match --model nope/model"),
    (["-c", "p2:nothing"], "no traces match --condition p2:nothing"),
    (["--run-id", "r-x"], "no traces match --run-id r-x"),
])
def test_bad_filters_are_one_line(exported: tuple[Path, Path, list[str]], tmp_path: Path,
                                  extra: list[str], says: str) -> None:
    ws, _, _ = exported
    out = tmp_path / "none"
    res = runner.invoke(app, ["traces", "export", "-w", str(ws), "-f", "inspect", "-o",
                              str(out), *extra])
    assert res.exit_code == 2
    assert res.output.strip() == f"error: {says}"
    assert not out.exists()


def test_bad_outputs_are_one_line(exported: tuple[Path, Path, list[str]],
                                  tmp_path: Path) -> None:
    ws, _, _ = exported
    afile = tmp_path / "afile"
    afile.write_text("x")
    for out, says in ((afile, "is not a folder"), (tmp_path / "no" / "dir", "does not exist")):
        res = runner.invoke(app, ["traces", "export", "-w", str(ws), "-f", "inspect", "-o",
                                  str(out)])
        assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1
        assert says in res.output
    res = runner.invoke(app, ["traces", "export", "-w", str(ws), "-f", "xml", "-o",
                              str(tmp_path / "x")])
    assert res.exit_code == 2 and "inspect" in res.output


def test_without_inspect_ai_one_line_says_what_to_install(
        exported: tuple[Path, Path, list[str]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    ws, _, _ = exported
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import fails as if absent
    res = runner.invoke(app, ["traces", "export", "-w", str(ws), "-f", "inspect", "-o",
                              str(tmp_path / "logs")])
    assert res.exit_code == 2
    assert res.output.strip() == ("error: the inspect format needs inspect_ai: "
                                  "pip install 'agentprop[inspect]'")


def test_file_names_are_safe_and_distinct() -> None:
    from agentprop.interop._inspect import _stems

    assert file_stem("sim/propagator", "p2:type_mismatch") == "sim-propagator__p2-type_mismatch"
    assert file_stem("../x", "a b") == "x__a-b"
    stems = _stems([("a/b", "c"), ("a:b", "c")])
    assert len(set(stems.values())) == 2


def test_importing_agentprop_never_loads_inspect_ai() -> None:
    code = ("import sys, agentprop, agentprop.interop, agentprop.cli, agentprop.store\n"
            "assert 'inspect_ai' not in sys.modules, 'inspect_ai was imported'\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]

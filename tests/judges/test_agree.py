"""The agreement judges (`agree`, `agree:MODEL`) and `answers_agree`: pairing with the clean
run, the user's reference, the unscored reasons, the comparison on paraphrases and subtle
disagreements (our own phrasing, not the held-out set), the sim judge's round trip and a
small workspace judged end to end, including a verdict redone once its clean pair exists."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentprop.core import FinalEvent, Task, ToolResultEvent, Trace
from agentprop.judges import get_judge, judge_workspace
from agentprop.judges._agree import (
    NO_PAIR,
    AgreeJudge,
    build_agree_messages,
    parse_agree,
    parse_agree_prompt,
)
from agentprop.judges._agreement import answers_agree, query_focus
from agentprop.suite import Suite
from agentprop.testing import workspace_with


def user_task(query: str, reference: str = "", tid: str = "git_0001") -> Task:
    return Task(id=tid, domain="git", split="test", difficulty="medium", intent="user",
                query=query, tools=["git_log"], env_seed=0, gold_plan=[],
                reference_answer=reference)


def trace(task: Task, answer: str | None, *, condition: str = "p2:semantic_wrong",
          seed: int = 0, status: str = "ok", abstained: bool = False,
          observations: list[dict[str, object]] = ()) -> Trace:  # type: ignore[assignment]
    events: list[object] = [
        ToolResultEvent(step=0, call_id=f"c{i}", name="git_log", arguments={}, observation=o)
        for i, o in enumerate(observations)]
    events.append(FinalEvent(step=1, answer=answer, abstained=abstained))
    return Trace(id=f"{task.id}-{condition}-{seed}", run_id="r1", model="sim/agent",
                 task_id=task.id, domain=task.domain, split="test", difficulty="medium",
                 condition=condition, seed=seed, status=status,  # type: ignore[arg-type]
                 events=events)  # type: ignore[arg-type]


def judge_one(judge: AgreeJudge, t: Trace, task: Task):  # type: ignore[no-untyped-def]
    return asyncio.run(judge.judge(t, task))


Q = "What is the message of the most recent commit?"


# -- answers_agree: paraphrase agrees, one changed value disagrees --------------------------

@pytest.mark.parametrize(("query", "a", "b", "expect"), [
    (Q, 'HEAD: "Tighten lock around index rebuild" (c0ffee12).',
     "The newest commit message reads: Tighten lock around index rebuild.", True),
    (Q, 'HEAD: "Tighten lock around index rebuild".',
     'The last commit is "Tighten lock around index refresh".', False),
    ("How many rows does the events table hold?", "events has 9,318 rows.",
     "SELECT COUNT(*) returned 9318 (the table was last written on 2024-01-02).", True),
    ("How many rows does the events table hold?", "events has 9,318 rows.",
     "The events table holds 9,381 rows.", False),
    ("Which commit introduced the regression? Give its hash.", "It was 5d2be91.",
     "The regression came in with commit 5d2be91f30 by Omar.", True),
    ("Which commit introduced the regression? Give its hash.", "It was 5d2be91.",
     "It came in with 5d2be19.", False),
    ("What time is it in Lisbon now?", "It's 16:05 in Lisbon (WEST).", "4:05 PM, Lisbon.", True),
    ("What time is it in Lisbon now?", "It's 16:05 in Lisbon (WEST).", "It is 4:05 AM.", False),
    ("Is the working tree clean?", "Yes, nothing to commit.", "Yes — clean.", True),
    ("Is the working tree clean?", "Yes, nothing to commit.", "No, app.py is modified.", False),
    ("What is the UTC offset of Tehran?", "Tehran is UTC+3:30.", "It runs at UTC+03:30.", True),
    ("What is the UTC offset of Tehran?", "Tehran is UTC+3:30.", "It's UTC+4:30 there.", False),
    ("Which tables exist?", "users, sessions and tokens", "Tables: tokens, users, sessions.", True),
    ("How far apart are Lagos and Lima?", "Lagos is 6 hours ahead of Lima.",
     "Lima is six hours behind Lagos.", True),
    ("How far apart are Lagos and Lima?", "Lagos is 6 hours ahead of Lima.",
     "Lima is 6 hours ahead of Lagos.", False),
    ("Which tables exist?", "users, sessions and tokens", "users, sessions and grants", False),
    ("Is the remote called origin or upstream?", "It is origin.", "origin (no upstream).", True),
    ("Is the remote called origin or upstream?", "It is origin.", "The remote is upstream.",
     False),
    ("How big is dump.sql?", "dump.sql is 12 MB.", "About 12 MB on disk.", True),
    ("How big is dump.sql?", "dump.sql is 12 MB.", "dump.sql is 12 KB.", False),
    ("How many stars does the Rust repo have?", "The Rust repo has 310 stars.",
     "The Go repo has 310 stars, while the Rust repo has 290.", False),
    ("How many stars does the Rust repo have?", "The Rust repo has 310 stars.",
     "The Rust repo has 310 stars, while the Go repo has 290.", True),
    ("Who merged PR #12?", "Ines Ruiz merged it.", "Ines Ruiz opened it but Tom Hale merged it.",
     False),
    ("Who merged PR #12?", "Ines Ruiz merged it.", "Tom Hale opened it but Ines Ruiz merged it.",
     True),
    ("How many migrations are pending?", "Eleven are pending.", "11 migrations pending.", True),
    ("When was v2.0 tagged?", "v2.0 was tagged on 2023-09-04.", "It was tagged on Sept 4.", True),
    # markdown code spans and a pasted JSON result are not quotations of an answer
    ("What changed in the repo?", "README.md was modified.",
     "The file `README.md` was modified (see `git diff`).", True),
    ("What is the current time in Oslo?",
     '{"timezone": "Europe/Oslo", "datetime": "2025-06-16T22:10:00+02:00"}: 22:10',
     "It is 10:10 PM in Oslo (Europe/Oslo).", True),
    ("What is the current time in Oslo?",
     '{"timezone": "Europe/Oslo", "datetime": "2025-06-16T22:10:00+02:00"}: 22:10',
     "It is 11:10 PM in Oslo.", False),
    ("When was v2.0 tagged?", "v2.0 was tagged on 2023-09-04.", "It was tagged on Sept 14.",
     False),
    ("How many migrations are pending?", "Eleven are pending.", "Twenty-one are pending.", False),
])
def test_answers_agree(query: str, a: str, b: str, expect: bool) -> None:
    assert answers_agree(query, a, b) is expect
    assert answers_agree(query, b, a) is expect  # symmetric: the noise floor relies on it


def test_nothing_comparable_is_none_never_a_guess() -> None:
    assert answers_agree("Summarise the README.", "It explains setup.", "It covers usage.") \
        is None
    assert answers_agree(Q, "", "anything") is None
    assert answers_agree(Q, None, "anything") is None


def test_an_answer_that_gives_up_does_not_agree() -> None:
    q = "How many rows does the events table hold?"
    gave_up = "I couldn't query the database: the tool returned an error."
    assert answers_agree(q, "events has 9,318 rows.", gave_up) is False
    assert answers_agree(q, gave_up, "Unable to read it, sorry.") is None  # both give up
    assert answers_agree(q, "events has 9,318 rows.", "It holds a few thousand rows.") is None


def test_values_the_query_states_answer_nothing() -> None:
    # 09:00 is the question's, 14:00 the answer's
    q = "If it is 09:00 in Boston, what time is it in Madrid?"
    assert answers_agree(q, "15:00 in Madrid.", "When it's 09:00 in Boston, it's 3 PM.")
    assert answers_agree(q, "15:00 in Madrid.", "It's 09:00 in Boston and 14:00 in Madrid.") \
        is False


def test_the_asked_kind_decides_not_the_detail_beside_it() -> None:
    assert query_focus(Q)[0] == "quote"
    a = 'The latest commit is "Drop Python 3.8" by Kim Ode.'
    b = 'The latest commit is "Drop Python 3.8", authored by Lee Chan.'
    assert answers_agree(Q, a, b) is True  # the author is not what was asked
    assert answers_agree("Who authored the most recent commit?", a, b) is False


def test_observations_tell_which_tool_value_each_answer_states() -> None:
    log = [{"commits": [{"hash": "aa11bb2", "message": "Pin numpy below 2"},
                        {"hash": "cc33dd4", "message": "Add numpy wheels"}]}]
    a = "The most recent commit pins numpy below 2 — Pin numpy below 2."
    b = "Most recent: Add numpy wheels."
    assert answers_agree(Q, a, b, observations=log) is False
    assert answers_agree(Q, a, "Pin numpy below 2 is the latest.", observations=log) is True
    # an MCP result: the same rows as JSON text inside the content
    import json

    mcp = [{"content": [{"type": "text", "text": json.dumps(log[0]["commits"])}]}]
    assert answers_agree(Q, a, b, observations=mcp) is False


# -- the judge: references, pairs, unscored reasons ------------------------------------------

def test_user_reference_is_used_when_given() -> None:
    task = user_task("How many tags are there?", reference="There are 14 tags.")
    j = AgreeJudge()  # no pair lookup needed
    assert judge_one(j, trace(task, "14 tags."), task).correct is True
    assert judge_one(j, trace(task, "There are 15 tags."), task).correct is False
    base = trace(task, "Fourteen tags.", condition="baseline")
    assert judge_one(j, base, task).correct is True  # a clean run is judged against it too


def test_clean_pair_is_the_reference_without_one() -> None:
    task = user_task("How many tags are there?")
    clean = trace(task, "There are 14 tags.", condition="baseline")
    other_seed = trace(task, "There are 15 tags.", condition="baseline", seed=1)
    pairs = {(t.condition, t.seed): t for t in (clean, other_seed)}
    j = AgreeJudge(lambda t: pairs.get(("baseline", t.seed)))
    v = judge_one(j, trace(task, "14 tags in total."), task)
    assert v.correct is True and v.raw["reference"] == f"clean pair {clean.id}"
    # seed 1 pairs with seed 1's clean answer (15), not seed 0's
    assert judge_one(j, trace(task, "15 tags.", seed=1), task).correct is True
    assert judge_one(j, trace(task, "14 tags.", seed=1), task).correct is False


@pytest.mark.parametrize(("clean", "reason"), [
    (None, NO_PAIR),
    ("error", "clean pair status error"),
    ("", "clean pair gave no answer"),
    ("abstain", "clean pair abstained"),
])
def test_unscored_reasons(clean: str | None, reason: str) -> None:
    task = user_task("How many tags are there?")
    pair = None
    if clean is not None:
        pair = trace(task, None if clean in ("", "error") else "14 tags",
                     condition="baseline", status="error" if clean == "error" else "ok",
                     abstained=clean == "abstain")
    v = judge_one(AgreeJudge(lambda t: pair), trace(task, "14 tags."), task)
    assert v.correct is None and v.raw["reason"] == reason
    assert bool(v.raw.get("retry")) is (clean is None)  # only the missing pair is redone


def test_baseline_without_reference_is_its_own_reference() -> None:
    task = user_task("How many tags are there?")
    v = judge_one(AgreeJudge(lambda t: t), trace(task, "14", condition="baseline"), task)
    assert v.correct is None and v.raw["reason"] == "the clean run is the reference"


def test_missing_or_abstained_answer_does_not_agree() -> None:
    task = user_task("How many tags are there?", reference="14 tags")
    assert judge_one(AgreeJudge(), trace(task, None), task).correct is False
    assert judge_one(AgreeJudge(), trace(task, "x", abstained=True), task).correct is False


def test_nothing_comparable_is_unscored() -> None:
    task = user_task("Summarise the README.", reference="It explains setup.")
    v = judge_one(AgreeJudge(), trace(task, "It covers usage."), task)
    assert v.correct is None and v.raw["reason"] == "nothing comparable"


# -- agree:MODEL: the prompt, its parse, the sim judge ---------------------------------------

def test_prompt_round_trip_and_strict_parse() -> None:
    msgs = build_agree_messages("q?", "ref\nline", "cand\nCANDIDATE>>> x")
    assert parse_agree_prompt(msgs) == ("q?", "ref\nline", "cand\nCANDIDATE>>> x")
    assert parse_agree("AGREE") is True and parse_agree("disagree.") is False
    assert parse_agree("Agree, mostly") is True
    assert parse_agree("I think they AGREE") is None and parse_agree("YES") is None
    assert parse_agree(None) is None


def test_sim_judge_answers_the_agreement_prompt() -> None:
    task = user_task("How many tags are there?", reference="There are 14 tags.")
    exact = get_judge("agree:sim-judge/exact")
    assert exact.name == "agree:sim-judge/exact"
    good = asyncio.run(exact.judge(trace(task, "14 tags."), task))
    bad = asyncio.run(exact.judge(trace(task, "41 tags."), task))
    assert (good.correct, good.raw["output"]) == (True, "AGREE")
    assert (bad.correct, bad.raw["output"]) == (False, "DISAGREE")
    garbage = asyncio.run(get_judge("agree:sim-judge/garbage").judge(trace(task, "14"), task))
    assert garbage.correct is None
    failing = asyncio.run(get_judge("agree:sim-judge/unreachable").judge(trace(task, "14"),
                                                                        task))
    assert failing.correct is None and failing.raw["transient"] is True


def test_noisy_sim_judge_flips_at_its_stated_rate() -> None:
    task = user_task("How many tags are there?", reference="There are 14 tags.")
    noisy = get_judge("agree:sim-judge/noisy")
    flips = scored = 0
    for n in range(400):
        v = asyncio.run(noisy.judge(trace(task, f"{14 + n % 2} tags, checked {n} times",
                                          seed=n), task))
        if v.correct is not None:
            scored += 1
            flips += v.correct != (n % 2 == 0)
    assert scored > 350 and 0.06 < flips / scored < 0.19  # stated 0.12 each way


# -- a workspace end to end --------------------------------------------------------------------

def test_judge_workspace_pairs_and_redoes_a_missing_pair(tmp_path: Path) -> None:
    task = user_task("How many tags are there?")
    faulty = [trace(task, "There are 14 tags.", seed=0), trace(task, "There are 9 tags.", seed=1)]
    ws = workspace_with(tmp_path / "ws", faulty)
    suite = Suite([task], seed=0, version="user")
    try:
        judge_workspace(ws, ["agree", "agree:sim-judge/exact"], suite=suite, progress=False)
        first = {v.trace_id: v for v in ws.verdicts("agree")}
        assert all(v.correct is None and v.raw["reason"] == NO_PAIR for v in first.values())
        assert ws.retry_ids("agree") == set(first)
        # the clean runs arrive later (seed 1's clean answer is also 9)
        ws.put_traces([trace(task, "14 tags", condition="baseline", seed=0),
                       trace(task, "nine tags", condition="baseline", seed=1)])
        summary = judge_workspace(ws, ["agree", "agree:sim-judge/exact"], suite=suite,
                                  progress=False)
        assert summary.judges["agree"].pending == 4  # 2 redone + 2 baselines
        for name in ("agree", "agree:sim-judge/exact"):
            got = {v.trace_id: v.correct for v in ws.verdicts(name)}
            assert got[faulty[0].id] is True and got[faulty[1].id] is True
            assert got[f"{task.id}-baseline-0"] is None
            assert not ws.retry_ids(name)
        # a third run has nothing left to do
        again = judge_workspace(ws, ["agree"], suite=suite, progress=False)
        assert again.judges["agree"].pending == 0
    finally:
        ws.close()


# -- the held-out set, scored once (docs/judges.md "agree") ----------------------------------

def test_heldout_figures_are_pinned() -> None:
    """The held-out set was scored once (2026-12-07): 2 false agrees, 2 false disagrees, 6
    unscored — the card keeps that one scoring. Two reader families it showed were fixed
    afterwards (number words with "hundred", "A is N hours ahead of B"), so the figures
    `answers_agree` gives on it now are in-sample (docs/judges.md says so). A change that
    moves them updates this pin and the docs."""
    import json

    rows = [json.loads(line) for line in
            (Path(__file__).parents[1] / "fixtures" / "agree_heldout2026.jsonl")
            .read_text(encoding="utf-8").splitlines()]
    # no longer held out: a new --write records in-sample figures as such
    assert rows[0]["kind"] == "header" and rows[0]["held_out"] is False
    rows = rows[1:]
    got = [answers_agree(r["query"], r["reference"], r["candidate"]) for r in rows]
    truth = [r["label"] == "agree" for r in rows]
    false_agree = sum(g is True and not t for g, t in zip(got, truth, strict=True))
    false_disagree = sum(g is False and t for g, t in zip(got, truth, strict=True))
    assert (len(rows), sum(truth)) == (94, 50)
    assert (false_agree, false_disagree, got.count(None)) == (1, 1, 6)  # in-sample now
    # the validity card shows the one scoring, made before those fixes
    from agentprop.judges._cards import load_instrument_validity

    cards = load_instrument_validity()
    assert cards is not None and cards["held_out"]["agree"] is True
    card = cards["judges"]["agree"]
    assert (card["n"], card["false_accepts"], card["false_rejects"], card["unscored"]) == \
        (94, 2, 2, 6)
    assert card["set"] == "tests/fixtures/agree_heldout2026.jsonl"


# -- a real user-task run: mcp-server-git behind agentprop -------------------------------------

class _LastMessageAgent:
    """Calls git_log for 3 commits, then answers with the last message the tool returned."""

    id = "scripted"
    simulated = True

    def __init__(self, repo: Path) -> None:
        self.repo = repo

    async def generate(self, messages, tools, config):  # type: ignore[no-untyped-def]
        import re

        from agentprop.core import ModelOutput, ToolCall

        results = [m.content or "" for m in messages if m.role == "tool"]
        if results:
            found = re.findall(r"Message: ([^\n\\]*)", results[-1])
            return ModelOutput(text=f"The third most recent commit is {found[-1]!r}.")
        return ModelOutput(tool_calls=[ToolCall(id="c1", name="git_log", arguments={
            "repo_path": str(self.repo), "max_count": 3})])


def test_a_git_run_is_judged_against_its_clean_pairs(tmp_path: Path) -> None:
    """A wrong max_count (p2:semantic_wrong) makes the agent report another commit: the
    agreement judges call it a disagreement; the unapplied out:wrong_value agrees."""
    pytest.importorskip("mcp_server_git")
    import subprocess
    import sys

    from agentprop.core import WorkUnit
    from agentprop.external import Upstream, discover
    from agentprop.runner import run_units
    from agentprop.store import Workspace
    from agentprop.suite import load_user_tasks, user_suite

    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (["init", "-q"], ["config", "user.email", "t@example.com"],
                 ["config", "user.name", "Tester"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    for i in range(6):
        (repo / "notes.txt").write_text(f"line {i}\n" * (i + 1))
        subprocess.run(["git", "add", "notes.txt"], cwd=repo, check=True, capture_output=True)
        subprocess.run(["git", "commit", "-q", "-m", f"release step {i}"], cwd=repo,
                       check=True, capture_output=True)
    tasks_file = tmp_path / "t.jsonl"
    tasks_file.write_text('{"query": "What is the message of the third most recent commit?",'
                          ' "tools": ["git_log"]}\n')

    async def run() -> tuple[Workspace, Suite]:
        up = Upstream.parse(f"{sys.executable} -m mcp_server_git --repository {repo}", None)
        domain = await discover(up)
        tasks = load_user_tasks(tasks_file, domain=domain.name,
                                tools=[t.name for t in domain.tools])
        units = [WorkUnit(run_id="r", model="scripted", task_id=tasks[0].id, condition=c,
                          seed=0) for c in ("baseline", "p2:semantic_wrong", "out:wrong_value")]
        ws = Workspace(tmp_path / "ws")
        await run_units(units, workspace=ws, suite=user_suite(tasks),
                        models={"scripted": _LastMessageAgent(repo)}, progress=False,
                        concurrency=1, domains={domain.name: domain})
        return ws, user_suite(tasks)

    ws, suite = asyncio.run(run())
    try:
        answers = {t.condition: t.final_answer for t in ws.iter_traces()}
        assert "release step 3" in str(answers["baseline"])
        assert "release step 3" not in str(answers["p2:semantic_wrong"])
        judge_workspace(ws, ["agree", "agree:sim-judge/exact"], suite=suite, progress=False)
        for name in ("agree", "agree:sim-judge/exact"):
            got = {ws.get_trace(v.trace_id).condition: v.correct  # type: ignore[union-attr]
                   for v in ws.verdicts(name)}
            assert got == {"baseline": None, "p2:semantic_wrong": False,
                           "out:wrong_value": True}
    finally:
        ws.close()

"""The sim policy on tools it does not know (no suite task, a foreign MCP server): tool
choice and arguments from the question alone, answers quoting the result, and the
profile's stated rates recovered on a small foreign toolset (schemas modelled on the
PyPI reference servers mcp-server-time and mcp-server-git, with fake results)."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agentprop.agent import WARNING_PREFIX
from agentprop.core import Message, ToolCall, ToolSpec
from agentprop.models import GenerateConfig, get_model
from agentprop.sim import PROFILES, SimAgent, SimModel, SimProfile
from agentprop.sim._common import (
    FAILURE_ABSTAIN,
    FALSE_ALARM_TEXT,
    REFUSAL,
    UNKNOWN_ANSWER,
    parse_obs,
)
from agentprop.sim._generic import error_of, failed, summary, unwrap
from agentprop.sim._server import ServerConfig, ServerThread
from agentprop.sim._toolfit import best_fit

_TZ_DESC = ("IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as"
            " local timezone if no timezone provided by the user.")
TOOLS = [
    ToolSpec(name="get_current_time", description="Get current time in a specific timezones",
             parameters={"type": "object", "required": ["timezone"],
                         "properties": {"timezone": {"type": "string",
                                                     "description": _TZ_DESC}}}),
    ToolSpec(name="convert_time", description="Convert time between timezones",
             parameters={"type": "object",
                         "required": ["source_timezone", "time", "target_timezone"],
                         "properties": {
                             "source_timezone": {"type": "string",
                                                 "description": "Source IANA timezone name"},
                             "time": {"type": "string",
                                      "description": "Time to convert in 24-hour format"
                                                     " (HH:MM)"},
                             "target_timezone": {"type": "string",
                                                 "description": "Target IANA timezone name"}}}),
    ToolSpec(name="git_log", description="Shows the commit logs",
             parameters={"type": "object", "required": ["repo_path"],
                         "properties": {"repo_path": {"type": "string"},
                                        "max_count": {"type": "integer", "default": 10,
                                                      "minimum": 1}}}),
    ToolSpec(name="git_status", description="Shows the working tree status",
             parameters={"type": "object", "required": ["repo_path"],
                         "properties": {"repo_path": {"type": "string"}}}),
]
ZONES = {"Europe/Paris": 1, "America/New_York": -5, "Asia/Tokyo": 9, "Europe/London": 0,
         "Australia/Sydney": 11, "America/Sao_Paulo": -3}
REPOS = ["/home/ana/shop", "/srv/git/billing", "/tmp/notes", "~/code/agentprop"]
TIME_QUERIES = [f"What time is it in {z} right now?" for z in ZONES] + [
    f"Convert {h}:{m} from {a} to {b}." for h, m in (("9", "30"), ("16", "45"))
    for a in ZONES for b in ZONES if a != b]
GIT_QUERIES = [f"Show me the last {n} commits of {r}" for r in REPOS for n in (2, 3)] + [
    f"What's the git status of {r}?" for r in REPOS]


def execute(name: str, args: dict[str, Any]) -> str:
    """The fake servers, as tool-message text: JSON for the time server (an invalid
    timezone is an error text, as the server's exception reads), text for the git one (an
    unknown repository an agentprop error object)."""
    if name == "get_current_time":
        tz = args.get("timezone")
        if tz not in ZONES:
            return f"Error executing tool get_current_time: Invalid timezone: {tz!r}"
        off = ZONES[tz]
        return json.dumps({"timezone": tz, "is_dst": False,
                           "datetime": f"2026-01-15T{(12 + off) % 24:02d}:00:00{off:+03d}:00"})
    if name == "convert_time":
        src, dst, t = args.get("source_timezone"), args.get("target_timezone"), args["time"]
        if src not in ZONES or dst not in ZONES:
            return "Error executing tool convert_time: Invalid timezone"
        hh, mm = map(int, t.split(":"))
        shifted = (hh + ZONES[dst] - ZONES[src]) % 24
        diff = float(ZONES[dst] - ZONES[src])
        return json.dumps({"source": {"timezone": src, "datetime": f"2026-01-15T{t}:00"},
                           "target": {"timezone": dst,
                                      "datetime": f"2026-01-15T{shifted:02d}:{mm:02d}:00"},
                           "time_difference": f"{diff:+.1f}h"})
    repo = args.get("repo_path")
    if repo not in REPOS:
        return json.dumps({"error": {"type": "tool_error",
                                     "message": f"not a git repository: {repo}"}})
    k = REPOS.index(repo)
    if name == "git_status":
        return f"Repository status:\nOn branch feature-{k}\nnothing to commit, working tree clean"
    count = int(args.get("max_count", 10))
    return "Commit history:\n" + "\n".join(
        f"Commit: 'c{k}{i}0ffee'\nAuthor: dev{i}\nMessage: fix {k * 7 + i} bugs"
        for i in range(min(count, 3)))


Rewrite = Callable[[ToolCall], ToolCall]


def other_value(call: ToolCall) -> ToolCall:
    """A wrong-argument injection the agent can see: another real timezone or repository,
    which the time server's result echoes."""
    args = dict(call.arguments)
    key = next(k for k in ("timezone", "source_timezone", "repo_path") if k in args)
    pool = list(ZONES) if "timezone" in key else REPOS
    args[key] = pool[(pool.index(args[key]) + 1) % len(pool)]
    return call.model_copy(update={"arguments": args})


def invalid_value(call: ToolCall) -> ToolCall:
    """An injection the tool rejects: the result is an error."""
    args = dict(call.arguments)
    key = next(k for k in ("timezone", "source_timezone", "repo_path") if k in args)
    args[key] = "Mars/Olympus_Mons" if "timezone" in key else "/nonexistent"
    return call.model_copy(update={"arguments": args})


TIMEOUT = json.dumps({"error": {"type": "timeout", "message": "the tool did not answer"}})


def episode(agent: SimAgent, profile: SimProfile, query: str, *, seed: int = 0,
            rewrite: Rewrite | None = None, fault: bool = False,
            tools: list[ToolSpec] = TOOLS) -> dict[str, Any]:
    """A minimal agent loop: the first call may be rewritten (in the history too, as an
    injection does) or answered with a timeout."""
    messages = [Message(role="system", content="You are a helpful assistant."),
                Message(role="user", content=query)]
    proposed: list[ToolCall] = []
    texts: list[str] = []
    for _ in range(6):
        out = agent.respond(messages, tools, profile, seed)
        if not out.tool_calls:
            return {"answer": out.text, "proposed": proposed, "texts": texts,
                    "messages": messages}
        texts.append(out.text or "")
        call = out.tool_calls[0]
        assert call.name in {t.name for t in tools}
        first = not proposed
        proposed.append(call)
        sent = rewrite(call) if rewrite is not None and first else call
        messages.append(Message(role="assistant", content=out.text, tool_calls=[sent]))
        result = TIMEOUT if fault and first else execute(sent.name, sent.arguments)
        messages.append(Message(role="tool", tool_call_id=sent.id, name=sent.name,
                                content=result))
    raise AssertionError("the episode did not end")


def clean_answer(call: ToolCall) -> str:
    return summary(call.name, json.loads(r) if (r := execute(call.name, call.arguments))
                   .startswith("{") else {"text": r})


@pytest.fixture(scope="module")
def agent(fake_suite, fake_generators) -> SimAgent:
    return SimAgent(fake_suite, generators=fake_generators)


def prof(**kw: Any) -> SimProfile:
    base: dict[str, Any] = dict(name="g", p_no_tool=0.0, p_notice=0.0, p_correct_anyway=0.0,
                                base_error=0.0, p_uncertain_words=0.0, verbosity="terse")
    return SimProfile(**{**base, **kw})


@pytest.mark.parametrize(("query", "tool", "args"), [
    ("What time is it in Europe/Paris right now?", "get_current_time",
     {"timezone": "Europe/Paris"}),
    ("Convert 9:30 from America/New_York to Asia/Tokyo.", "convert_time",
     {"source_timezone": "America/New_York", "time": "09:30", "target_timezone": "Asia/Tokyo"}),
    ("What is 16:45 in Europe/Berlin if it is that time in Asia/Kolkata? Convert it to"
     " Europe/Berlin from Asia/Kolkata.", "convert_time",
     {"source_timezone": "Asia/Kolkata", "time": "16:45", "target_timezone": "Europe/Berlin"}),
    ("Show me the last 5 commits of /home/me/project", "git_log",
     {"repo_path": "/home/me/project", "max_count": 5}),
    ("Show the commit log of /srv/x", "git_log", {"repo_path": "/srv/x"}),
    ("What's the repo's status at ~/code/app?", "git_status", {"repo_path": "~/code/app"}),
])
def test_picks_the_tool_and_fills_valid_arguments(query, tool, args):
    fit = best_fit(query, TOOLS)
    assert fit is not None and (fit.tool.name, fit.arguments) == (tool, args)
    Draft202012Validator(fit.tool.parameters).validate(fit.arguments)


SQLITE = [
    ToolSpec(name="read_query", description="Execute a SELECT query on the SQLite database",
             parameters={"type": "object", "required": ["query"],
                         "properties": {"query": {"type": "string",
                                                  "description": "SELECT SQL query to execute"}}}),
    ToolSpec(name="list_tables", description="List all tables in the SQLite database",
             parameters={"type": "object", "properties": {}}),
    ToolSpec(name="get_forecast", description="Weather forecast for a day",
             parameters={"type": "object", "required": ["day", "units"],
                         "properties": {"day": {"type": "string", "format": "date"},
                                        "units": {"enum": ["metric", "imperial"]},
                                        "days": {"type": "integer", "minimum": 1,
                                                 "maximum": 7}}}),
]


@pytest.mark.parametrize(("query", "tool", "args"), [
    ("Run this select: `SELECT name FROM users WHERE age > 30`", "read_query",
     {"query": "SELECT name FROM users WHERE age > 30"}),
    ("Execute a database query: SELECT count(*) FROM orders", "read_query",
     {"query": "SELECT count(*) FROM orders"}),
    ("List the tables", "list_tables", {}),
    ("Imperial forecast for 2026-03-01 over 30 days", "get_forecast",  # 30 is out of range
     {"day": "2026-03-01", "units": "imperial"}),
    ("Forecast for 2026-03-01, 3 days, metric", "get_forecast",
     {"day": "2026-03-01", "units": "metric", "days": 3}),
])
def test_sql_enum_date_and_ranges(query, tool, args):
    fit = best_fit(query, SQLITE)
    assert fit is not None and (fit.tool.name, fit.arguments) == (tool, args)
    Draft202012Validator(fit.tool.parameters).validate(fit.arguments)


def test_no_call_without_what_the_tool_needs_or_a_fitting_tool(agent):
    oracle = PROFILES["oracle"]
    for query in ("What time is it?",  # no timezone: neither time tool can be filled
                  "Who won the 1950 World Cup?",  # about none of the tools
                  "Show the git status"):  # no repository path
        out = agent.respond([Message(role="user", content=query)], TOOLS, oracle, 0)
        assert out.text == UNKNOWN_ANSWER and not out.tool_calls
    # only offered tools: with the time tools hidden, the time question has none to fit
    out = agent.respond([Message(role="user", content=TIME_QUERIES[0])], TOOLS[2:], oracle, 0)
    assert not out.tool_calls


def test_default_examples_and_earlier_observations_fill_required_parameters():
    tool = ToolSpec(name="list_rows", description="List rows of a table",
                    parameters={"type": "object", "required": ["table", "limit", "db"],
                                "properties": {"table": {"type": "string",
                                                         "examples": ["users"]},
                                               "limit": {"type": "integer", "default": 20},
                                               "db": {"type": "string"}}})
    assert best_fit("List the rows", [tool]) is None  # db: nothing to go on
    fit = best_fit("List the rows", [tool], [{"databases": [{"db": "main"}]}])
    assert fit is not None and fit.arguments == {"table": "users", "limit": 20, "db": "main"}
    assert fit.from_query == frozenset()


def test_oracle_answers_from_the_result(agent):
    oracle = PROFILES["oracle"]
    for query in [*TIME_QUERIES[:8], *GIT_QUERIES]:
        ep = episode(agent, oracle, query)
        assert len(ep["proposed"]) == 1
        assert ep["answer"] == clean_answer(ep["proposed"][0])
    ep = episode(agent, oracle, "What time is it in Asia/Tokyo right now?")
    assert "Asia/Tokyo" in ep["answer"] and "2026-01-15T21:00:00+09:00" in ep["answer"]
    ep = episode(agent, oracle, "What's the git status of /tmp/notes?")
    assert "On branch feature-2" in ep["answer"]


def test_raw_mcp_results_are_read_by_their_content():
    text = [{"type": "text", "text": json.dumps({"timezone": "Asia/Tokyo", "is_dst": False})}]
    assert unwrap(parse_obs(json.dumps({"content": text, "isError": False}))) == {
        "timezone": "Asia/Tokyo", "is_dst": False}
    assert unwrap(parse_obs(json.dumps(text)))["timezone"] == "Asia/Tokyo"
    err = unwrap({"content": [{"type": "text", "text": "Invalid timezone"}], "isError": True})
    assert error_of(err) == "Invalid timezone" and not failed(err)
    assert failed(unwrap({"content": [{"type": "text", "text": "Request timed out"}],
                          "isError": True}))
    assert unwrap({"content": [], "structuredContent": {"a": 1}}) == {"a": 1}
    # the server's exception text alone (a client that drops isError) still reads as one
    assert error_of(parse_obs("Invalid timezone: 'Mars/Base'")) is not None


def test_oracle_notices_and_requeries_with_its_own_arguments(agent):
    oracle = PROFILES["oracle"]
    for rewrite in (other_value, invalid_value):
        ep = episode(agent, oracle, "What time is it in Europe/Paris right now?",
                     rewrite=rewrite)
        assert [c.arguments for c in ep["proposed"]] == [{"timezone": "Europe/Paris"}] * 2
        assert "looks wrong" in ep["texts"][1]
        assert "Europe/Paris" in ep["answer"] and "+01:00" in ep["answer"]
    ep = episode(agent, oracle, "What's the git status of /tmp/notes?", fault=True)
    assert len(ep["proposed"]) == 2 and "On branch feature-2" in ep["answer"]


def test_unnoticed_mismatch_propagates_or_is_corrected_anyway(agent):
    query = "What time is it in Europe/Paris right now?"
    ep = episode(agent, prof(), query, rewrite=other_value)
    assert len(ep["proposed"]) == 1 and "America/New_York" in ep["answer"]
    ep = episode(agent, prof(p_correct_anyway=1.0), query, rewrite=other_value)
    assert "Europe/Paris" in ep["answer"] and "America/New_York" not in ep["answer"]


def test_failure_abstain_or_invent(agent):
    query = "Show me the last 2 commits of /tmp/notes"
    ep = episode(agent, prof(p_abstain=1.0), query, fault=True)
    assert ep["answer"] == FAILURE_ABSTAIN.format(tool="git_log")
    ep = episode(agent, prof(), query, fault=True)
    assert len(ep["proposed"]) == 1 and ep["answer"].startswith("The git_log result for")


def test_no_tool_refuses_or_guesses(agent):
    query = TIME_QUERIES[0]
    ep = episode(agent, prof(p_no_tool=1.0, p_refuse=1.0), query)
    assert ep["answer"] == REFUSAL and not ep["proposed"]
    ep = episode(agent, prof(p_no_tool=1.0, p_refuse=0.0), query)
    assert ep["answer"].startswith("Without looking it up") and not ep["proposed"]


def test_warning_rechecks_a_mismatching_result(agent):
    query = "What time is it in Europe/Paris right now?"
    p = prof(p_heed_warning=1.0)
    ep = episode(agent, p, query, rewrite=other_value)
    msgs = [*ep["messages"], Message(role="assistant", content=ep["answer"]),
            Message(role="user", content=f"{WARNING_PREFIX} check the timezone.")]
    out = agent.respond(msgs, TOOLS, p, 0)
    assert out.tool_calls[0].arguments == {"timezone": "Europe/Paris"}
    assert out.tool_calls[0].id == "call_sim_0_2"
    deaf = agent.respond(msgs, TOOLS, prof(), 0)
    assert deaf.text == ep["answer"] and not deaf.tool_calls


def test_forced_tool_choice_fills_from_the_question(agent):
    msgs = [Message(role="user", content="Show me the last 3 commits of /tmp/notes")]
    out = agent.respond(msgs, TOOLS, prof(p_no_tool=1.0), 0, tool_choice="git_status")
    assert [(c.name, c.arguments) for c in out.tool_calls] == [
        ("git_status", {"repo_path": "/tmp/notes"})]


DIALECTS = [("openai", "openai", None, "base_url"),
            ("anthropic", "anthropic", "ANTHROPIC_API_KEY", "root_url"),
            ("google", "google.genai", "GOOGLE_API_KEY", "root_url")]


@pytest.mark.parametrize(("prefix", "sdk", "key_env", "url"), DIALECTS,
                         ids=[d[0] for d in DIALECTS])
def test_same_request_same_response_in_process_and_over_http(
        fake_suite, fake_generators, monkeypatch, prefix, sdk, key_env, url):
    """serve-sim answers a foreign-tool conversation as the in-process model does, in each
    wire dialect (tools, call ids and tool results survive the round trip)."""
    pytest.importorskip(sdk)
    if key_env:
        monkeypatch.setenv(key_env, "test-key-not-secret")
    agent = SimAgent(fake_suite, generators=fake_generators)
    with ServerThread(ServerConfig(port=0), suite=fake_suite,
                      generators=fake_generators) as srv:

        async def compare(name: str) -> None:
            remote = get_model(f"{prefix}/{name}", base_url=getattr(srv, url),
                               retry_base_s=0.005)
            local = SimModel(PROFILES[name], suite=fake_suite, generators=fake_generators)
            for query in (TIME_QUERIES[3], TIME_QUERIES[9], GIT_QUERIES[1]):
                ep = episode(agent, PROFILES[name], query, seed=4, rewrite=other_value)
                for k in range(1, len(ep["messages"]) + 1, 2):
                    sent = ep["messages"][:k + 1]
                    a = await remote.generate(sent, TOOLS, GenerateConfig(seed=4))
                    b = await local.generate(sent, TOOLS, GenerateConfig(seed=4))
                    assert a.text == b.text
                    assert [c.model_dump() for c in a.tool_calls] == [
                        c.model_dump() for c in b.tool_calls]

        for name in ("balanced", "self-correcting"):
            asyncio.run(compare(name))


def within(count: int, n: int, p: float, z: float = 4.0) -> bool:
    """`count` of `n` is a draw of probability `p` (within z standard errors)."""
    return abs(count / n - p) <= z * math.sqrt(max(p * (1 - p), 1e-4) / n) + 1e-9


RATES = prof(name="generic-rates", p_no_tool=0.15, p_refuse=0.5, p_notice=0.4,
             p_correct_anyway=0.3, base_error=0.1, p_false_alarm=0.1, p_retry=0.5,
             p_abstain=0.3, p_heed_warning=0.6)
SEEDS = range(12)


def _rates(agent: SimAgent, p: SimProfile, queries: list[str] | None = None,
           **kw: Any) -> dict[str, tuple[int, int]]:
    """Counts (events, opportunities) over every question (or `queries`) and seed."""
    n = no_tool = used = second = wrong = alarms = abstain = echoed_bad = warned = heed = 0
    for seed in SEEDS:
        for query in queries or [*TIME_QUERIES, *GIT_QUERIES]:
            ep = episode(agent, p, query, seed=seed, **kw)
            n += 1
            if not ep["proposed"]:
                no_tool += 1
                continue
            used += 1
            own = ep["proposed"][0]
            again = ep["proposed"][1:2]
            second += bool(again) and again[0].arguments == own.arguments
            answer = ep["answer"].replace(f" {FALSE_ALARM_TEXT}", "")
            alarms += ep["answer"].endswith(FALSE_ALARM_TEXT)
            wrong += answer != clean_answer(own)
            abstain += ep["answer"].endswith(FAILURE_ABSTAIN.split("}")[1])
            echoed_bad += answer == clean_answer(other_value(own))
            if len(ep["proposed"]) == 1 and kw.get("rewrite") is other_value:
                # an unnoticed wrong echo, then the interceptor's warning
                msgs = [*ep["messages"], Message(role="assistant", content=ep["answer"]),
                        Message(role="user", content=f"{WARNING_PREFIX} check it.")]
                out = agent.respond(msgs, TOOLS, p, seed)
                warned += 1
                heed += bool(out.tool_calls) and out.tool_calls[0].arguments == own.arguments
    return {"no_tool": (no_tool, n), "second_call": (second, used), "wrong": (wrong, used),
            "false_alarm": (alarms, used), "abstain": (abstain, used),
            "propagated": (echoed_bad, used), "recheck_after_warning": (heed, warned)}


def test_generic_rates_match_the_stated_ones(agent):
    """The generic policy's stated behaviour, measured on many episodes: no-tool share,
    error on clean runs and false alarms (clean), noticing after an error result and after
    a visible wrong echo (P(re-query with its own arguments) = p_notice), retry after a
    failure (p_retry) and abstention after an unretried one ((1 - p_retry)·p_abstain), and
    a re-check after an interceptor warning (p_heed_warning)."""
    p, truth = RATES, RATES.true_rates()
    measured = {
        "clean": _rates(agent, p),
        "error": _rates(agent, p, rewrite=invalid_value),
        # the time server echoes the timezone it was given: a wrong one is visible
        "echo": _rates(agent, p, TIME_QUERIES, rewrite=other_value),
        # the git server's text echoes no repository: a wrong one is unseen
        "unseen": _rates(agent, p, GIT_QUERIES, rewrite=other_value),
        "fault": _rates(agent, p, fault=True),
    }
    checks = [
        ("clean", "no_tool", truth["no_tool"]),
        ("clean", "wrong", truth["error_clean"]),
        ("clean", "false_alarm", truth["false_alarm"]),
        ("clean", "second_call", 0.0),
        ("error", "second_call", truth["correction_given_S2"]),
        ("echo", "second_call", truth["correction_given_S2"]),
        ("unseen", "second_call", truth["correction_given_S2_unseen"]),
        # heeding a warning after an unnoticed wrong echo re-queries with its own arguments
        ("echo", "recheck_after_warning", p.p_heed_warning),
        ("fault", "second_call", truth["retry_given_failure"]),
        ("fault", "abstain", truth["abstain_given_failure"]),
    ]
    for cond, what, want in checks:
        count, n = measured[cond][what]
        print(f"{cond:6} {what:12} measured {count / n:.3f} stated {want:.3f} (n={n})")
        assert within(count, n, want), (cond, what, count / n, want, n)
    # an unnoticed wrong echo reaches the answer unless corrected anyway: (1 - c)(1 - a)
    count, n = measured["echo"]["propagated"]
    want = (1 - p.p_notice) * (1 - p.p_correct_anyway)
    print(f"echo   propagated   measured {count / n:.3f} stated {want:.3f} (n={n})")
    assert within(count, n, want), (count / n, want)

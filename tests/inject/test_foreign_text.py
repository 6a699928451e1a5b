"""Corrupted output on a foreign tool's text results (MCP servers that answer in text):
a Python literal of rows is corrupted inside and written back as one; a number standing
alone in plain text is moved, never one inside a date, time, hash or path; a long text is
cut to half its lines. Native domains are untouched by these fallbacks."""

from __future__ import annotations

import ast
import random

from agentprop.core import ToolCall
from agentprop.inject._outhooks import corrupt_observation

CALL = ToolCall(id="c", name="read_query", arguments={"query": "SELECT 1"})


def _corrupt(kind: str, obs: dict, seed: int = 0):  # type: ignore[no-untyped-def]
    return corrupt_observation(kind, CALL, obs, None, None, None, random.Random(seed))


def test_a_python_literal_of_rows_is_corrupted_inside_and_stays_a_literal() -> None:
    obs = {"text": "[{'name': 'desk', 'price': 189.0}, {'name': 'rug', 'price': 120.0}]"}
    for seed in range(20):
        c = _corrupt("wrong_value", obs, seed)
        assert c is not None and c.original in (189.0, 120.0) and c.injected != c.original
        rows = ast.literal_eval(c.observation["text"])
        assert [r["name"] for r in rows] == ["desk", "rug"]
        assert c.injected in [r["price"] for r in rows]
    cut = _corrupt("truncated", obs)
    assert cut is not None and len(ast.literal_eval(cut.observation["text"])) == 1


def test_a_number_alone_in_plain_text_moves_but_dates_and_hashes_do_not() -> None:
    obs = {"text": "Commit: 'a1b2c3d'\nDate: 2026-12-07 03:12:45+00:00\n"
                   "Files changed: 12\nPath: /srv/repo/v2/app.py"}
    for seed in range(20):
        c = _corrupt("wrong_value", obs, seed)
        assert c is not None and c.original == 12 and c.injected != 12
        text = c.observation["text"]
        assert "2026-12-07 03:12:45+00:00" in text and "a1b2c3d" in text
        assert "/srv/repo/v2/app.py" in text and f"Files changed: {c.injected}" in text
    assert _corrupt("wrong_value", {"text": "Date: 2026-12-07, commit 'a1b2c3d'"}) is None


def test_a_long_text_is_cut_to_half_its_lines() -> None:
    text = "\n".join(f"Commit {i}: change {i}" for i in range(6))
    c = _corrupt("truncated", {"text": text})
    assert c is not None and c.observation["text"].splitlines() == text.splitlines()[:3]
    assert _corrupt("truncated", {"text": "one line\nand two"}) is None

"""The LLM `noticed` classifier: its strict parse (anything else is unscored), its prompt,
the `--noticed` names, the simulated classifier, and the readings' store."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentprop.core import NoticedReading, UnknownNameError
from agentprop.judges import (
    NoticedClassifier,
    build_noticed_messages,
    classifier_name,
    parse_noticed,
)
from agentprop.judges._noticed_prompt import allowed_answers, parse_noticed_prompt
from agentprop.models import get_model
from agentprop.store import Workspace


@pytest.mark.parametrize(("reply", "where", "call", "reading"), [
    ("NONE", "final", None, "none"),
    ("mention", "final", None, "mention"),
    ("  Clarify.", "text_turn", None, "clarify"),
    ("ABSTAIN, because the data is wrong", "final", None, "abstain"),
    ("REQUERY", "beside_call", "same_tool", "requery"),
    ("VERIFY", "beside_call", "other_tool", "verify"),
    # not an answer, or one the place does not allow: unscored, never "not noticed"
    ("REQUERY", "final", None, "unscored"),
    ("VERIFY", "beside_call", "same_tool", "unscored"),
    ("The answer is NONE", "final", None, "unscored"),
    ("N O N E", "final", None, "unscored"),
    ("", "final", None, "unscored"),
    (None, "final", None, "unscored"),
])
def test_parse_is_strict(reply, where, call, reading) -> None:  # type: ignore[no-untyped-def]
    assert parse_noticed(reply, where, call) == reading


def test_the_prompt_lists_the_answers_of_the_place_and_reads_back() -> None:
    text = "The forecast is for Rome, not Madrid.\nTEXT>>> inside"
    msgs = build_noticed_messages(text, "beside_call", "other_tool")
    assert "VERIFY" in msgs[1].content and "REQUERY" not in msgs[1].content
    assert parse_noticed_prompt(msgs) == (text, "beside_call", "other_tool")
    assert allowed_answers("final", None) == ("CLARIFY", "ABSTAIN", "MENTION", "NONE")


def test_noticed_names() -> None:
    assert classifier_name(None) is None and classifier_name("rules") is None
    assert classifier_name("llm:sim-noticed/exact") == "llm:sim-noticed/exact"
    with pytest.raises(UnknownNameError, match="did you mean 'rules'"):
        classifier_name("rulez")
    with pytest.raises(UnknownNameError, match="invalid model id"):
        classifier_name("llm:nomodel")


def _ask(model: str, text: str, where: str = "final", call: str | None = None):  # type: ignore[no-untyped-def]
    return asyncio.run(NoticedClassifier(get_model(model)).ask(text, where, call))  # type: ignore[arg-type]


def test_the_simulated_classifiers_say_what_their_profiles_state() -> None:
    assert _ask("sim-noticed/exact", "Could you confirm the city?").reading == "clarify"
    assert _ask("sim-noticed/exact", "It is 24°C in Madrid.").reading == "none"
    assert _ask("sim-noticed/garbage", "It is 24°C in Madrid.").reading == "unscored"
    failed = _ask("sim-noticed/unreachable", "It is 24°C.")
    assert failed.reading is None and failed.error_kind == "connection"  # not stored


def test_store_round_trip(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w")
    assert ws.noticed_readings("llm:a/b") == {} and ws.noticed_classifiers() == []
    r = NoticedReading(trace_id="t", output=3, classifier="llm:a/b", reading="mention",
                       where="final", raw={"output": "MENTION"})
    ws.put_noticed_readings([r, r.model_copy(update={"output": 5, "reading": "unscored"})])
    ws.put_noticed_readings([r.model_copy(update={"reading": "none"})])  # replaces
    assert ws.noticed_readings("llm:a/b") == {("t", 3): "none", ("t", 5): "unscored"}
    assert ws.noticed_classifiers() == ["llm:a/b"]
    assert [x.raw for x in ws.noticed_reading_records("llm:a/b")] == [{"output": "MENTION"}] * 2
    ws.close()

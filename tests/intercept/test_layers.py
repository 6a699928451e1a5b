"""Each layer on hand-built traces, including the paper's L3 false positives."""

from __future__ import annotations

import pytest

from agentprop.core import ModelOutput
from agentprop.intercept import (
    InterceptConfig,
    Support,
    parse_config,
    replay,
    split_output,
    stated_numbers,
)

from ._fakes import NOT_FOUND, OBS, VALIDATION, episode

ONLY_L1 = InterceptConfig(tau_l1=1, tau_l2=99, l3=False)
ONLY_L2 = InterceptConfig(tau_l1=99, tau_l2=2, l3=False)
ONLY_L3 = InterceptConfig(tau_l1=99, tau_l2=99, l3=True)


# -- L1 ---------------------------------------------------------------------------------
def test_l1_counts_validation_and_tool_errors_against_threshold() -> None:
    one = episode("It is 14.6 °C.", [VALIDATION, OBS])
    two = episode("It is 14.6 °C.", [VALIDATION, NOT_FOUND, OBS])
    clean = episode("It is 14.6 °C.", [OBS])
    assert replay(one, ONLY_L1).fires and replay(one, ONLY_L1).layer == "L1"
    assert not replay(one, ONLY_L1.model_copy(update={"tau_l1": 2})).fires
    r = replay(two, ONLY_L1.model_copy(update={"tau_l1": 2}))
    assert r.fires and "validation×1" in (r.reason or "") and "not_found×1" in (r.reason or "")
    assert not replay(clean, ONLY_L1).fires


# -- L2 ---------------------------------------------------------------------------------
def test_l2_counts_whole_words_case_insensitively_in_reasoning() -> None:
    hits = episode("It is 14.6 °C.", [OBS], reasoning="Hmm, an ERROR? The date looks invalid.")
    assert replay(hits, ONLY_L2).fires
    assert not replay(hits, ONLY_L2.model_copy(update={"tau_l2": 3})).fires
    # Not whole words: "errors", "unknowns", "wrongly" do not count.
    near = episode("It is 14.6 °C.", [OBS], reasoning="No errors, no unknowns, nothing wrongly.")
    assert not replay(near, ONLY_L2.model_copy(update={"tau_l2": 1})).fires


def test_l2_reads_reasoning_content_but_not_the_final_answer() -> None:
    in_answer = episode("The error is unknown and the data is invalid: 14.6 °C.", [OBS])
    assert not replay(in_answer, ONLY_L2).fires
    trace = episode("It is 14.6 °C.", [OBS])
    # reasoning content of the final model call (provider "thinking") counts
    trace.events[2].output.reasoning = "wrong city? missing data?"  # type: ignore[union-attr]
    assert replay(trace, ONLY_L2).fires


def test_split_output_text_mode_and_native() -> None:
    reasoning, cand = split_output(ModelOutput(text="Thought: invalid?\nFinal Answer: 14 C"))
    assert "invalid" in reasoning and cand == "14 C"
    acting = ModelOutput(text="Thought: x\nAction: weather\nAction Input: {}")
    reasoning, cand = split_output(acting)
    assert cand is None and "Action" in reasoning


def test_custom_keywords() -> None:
    cfg = ONLY_L2.model_copy(update={"keywords": ("unsure",), "tau_l2": 1})
    t = episode("It is 14.6 °C.", [OBS], reasoning="I am unsure. error error")
    r = replay(t, cfg)
    assert r.fires and "unsure×1" in (r.reason or "")


# -- L3 ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Paris on 2025-06-17: about 15 °C.",  # ISO date
        "In 2025 June looks mild: 14.6 °C.",  # a year
        "Your meeting is at 14:30, it will be 14.6 °C.",  # a time
        "Meet at 2:30 pm or 9am; 14.6 degrees.",  # 12-hour times
        "The high will be 15.",  # "15." at a sentence end reads as 15 (rounded 14.6)
        "The temperature is 14.6.",  # decimal followed by a period
        "1. Temperature: 14.6 °C\n2. Rain: 3 mm\n3. Wind: 20 km/h",  # list numbering
        "Event EVT_0042 and patient P1234: 14.6 °C.",  # ids
        "It is 58 °F (14.6 °C), wind 12 mph.",  # unit conversions
        "It is 14 °C.",  # truncation
        "All 3 meetings: 14.6 °C.",  # a number from the question
        "June 17th, 2025: 14.6 °C, 3 mm of rain, 20 km/h wind.",  # month-name date
        "No rain issues; order #4411 is fine.",  # '#id'
    ],
)
def test_l3_does_not_fire_on_supported_or_non_quantity_numbers(text: str) -> None:
    r = replay(episode(text, [OBS]), ONLY_L3)
    assert not r.fires, r.reason


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("The high will be 31.", "31"),
        ("It is 22 °C with 7 mm of rain.", "22"),
        ("It is 16.2 °C.", "16.2"),  # too precise to be a rounding of 14.6
        ("Expect 1,250 mm of rain.", "1,250"),
    ],
)
def test_l3_fires_on_unsupported_numbers(text: str, bad: str) -> None:
    r = replay(episode(text, [OBS]), ONLY_L3)
    assert r.fires and r.layer == "L3"
    assert bad in (r.reason or "")


def test_l3_has_nothing_to_check_without_observations_or_when_off() -> None:
    assert not replay(episode("It is 22 °C.", []), ONLY_L3).fires  # no tool was called
    assert not replay(episode("It is 22 °C.", [OBS]), ONLY_L1).fires  # L3 off
    # an answer built on an error observation alone is checked (nothing supports 22)
    assert replay(episode("It is 22 °C.", [NOT_FOUND]), ONLY_L3).fires


def test_stated_numbers_masks_non_quantities() -> None:
    text = "1. On 2025-06-17 at 14:30, EVT_0042 (the 2nd) costs $12.50 in 2025. It is 30."
    assert [n.text for n in stated_numbers(text)] == ["12.50", "30"]


def test_support_list_lengths_totals_and_durations() -> None:
    s = Support()
    s.add_observation({"events": [{"start": "09:00", "end": "09:45", "cost": 2.5},
                                  {"start": "13:00", "end": "14:00", "cost": 4}]})
    for text, ok in [("2", True), ("6.5", True), ("45", True), ("4", True), ("17", False)]:
        assert s.supports(stated_numbers(text)[0]) is ok, text


# -- layers together, config parsing -----------------------------------------------------
def test_first_layer_and_all_layers_reported() -> None:
    t = episode("It is 22 °C.", [VALIDATION, OBS], reasoning="invalid date, wrong call")
    r = replay(t, InterceptConfig())
    assert r.fires and r.abstained and r.layer == "L1" and r.layers == ["L1", "L2", "L3"]
    warn = replay(t, InterceptConfig(mode="warn"))
    assert warn.fires and not warn.abstained


def test_parse_config() -> None:
    cfg = parse_config("tau_l1=2, tau_l2=3, l3=off")
    assert (cfg.tau_l1, cfg.tau_l2, cfg.l3) == (2, 3, False)
    assert parse_config(cfg.label) == cfg
    assert parse_config("mode=warn").mode == "warn"
    for bad in ["tau_l1=0", "l3=maybe", "foo=1", "tau_l2"]:
        with pytest.raises(ValueError):
            parse_config(bad)

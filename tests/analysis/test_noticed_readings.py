"""`noticed` from an LLM classifier's stored readings (`stage_table(readings=...)`): a
missing or unscored reading that the detector needs leaves `noticed` <NA> (counted in
`noticed_unscored`), never False; structural requery counts without any reading."""

from __future__ import annotations

import pandas as pd

from agentprop.analysis.stages import noticing_items, stage_table
from tests.analysis.test_noticing import ASKED, NEXT, WRONG, _Episode


def _row(trace, readings):  # type: ignore[no-untyped-def]
    row = stage_table([trace], readings=readings).iloc[0]
    noticed = None if row["noticed"] is pd.NA else bool(row["noticed"])
    return noticed, row["noticed_kind"], bool(row["noticed_unscored"])


def _episode() -> _Episode:
    e = _Episode()
    e.call(None, "get_weather", ASKED, {"echo": WRONG}, executed=WRONG, inject="city")
    e.call("Now Amsterdam.", "get_weather", NEXT, {"echo": NEXT})
    return e


def test_the_items_are_the_texts_after_the_reference_step_in_order() -> None:
    t = _episode().trace("It is 24°C in Madrid.")
    items = noticing_items(t)
    assert [(i.text, i.where, i.call) for i in items] == [
        ("Now Amsterdam.", "beside_call", "same_tool"), ("It is 24°C in Madrid.", "final", None)]
    assert all(isinstance(t.events[i.output].output.text, str) for i in items)


def test_readings_replace_the_rules() -> None:
    t = _episode().trace("It is 24°C in Madrid.")
    first, final = (i.output for i in noticing_items(t))
    assert _row(t, {("t", first): "none", ("t", final): "none"}) == (False, None, False)
    assert _row(t, {("t", first): "none", ("t", final): "clarify"}) == (True, "clarify", False)
    # the first sign decides: a later unscored reading is not needed
    assert _row(t, {("t", first): "mention", ("t", final): "unscored"}) == \
        (True, "mention", False)


def test_an_unscored_or_missing_reading_makes_noticed_undefined_never_false() -> None:
    t = _episode().trace("It is 24°C in Madrid.")
    first, final = (i.output for i in noticing_items(t))
    assert _row(t, {("t", first): "none", ("t", final): "unscored"}) == (None, None, True)
    assert _row(t, {("t", first): "none"}) == (None, None, True)  # not stored yet
    assert _row(t, {}) == (None, None, True)
    assert _row(t, None)[2] is False  # the rules: never unscored


def test_structural_requery_needs_no_reading() -> None:
    e = _Episode()
    e.call(None, "get_weather", ASKED, {"echo": WRONG}, executed=WRONG, inject="city")
    e.call(None, "get_weather", ASKED, {"echo": ASKED})
    t = e.trace("It is 30°C.")
    assert noticing_items(t) == []  # nothing to ask: the silent re-issue decides
    assert _row(t, {}) == (True, "requery", False)

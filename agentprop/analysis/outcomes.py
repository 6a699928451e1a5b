"""Where the error stops: one outcome per injected trace (`stopped_at`).

The outcomes are ordered rules over the stage table's columns; the first rule that holds
names the trace's outcome. A rule that cannot be decided (a value it needs is missing, e.g.
the answer is unjudged) leaves the outcome missing rather than letting a later rule guess.
A new outcome (say, a `fabricated` answer) is a new `Outcome` in `OUTCOMES` at the place
where it should take precedence. Baseline traces (no error type) have no outcome.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class Outcome:
    """One outcome: its name (the `stopping.<name>` metric), what it means, and the rule
    (stage table → nullable boolean Series; <NA> = cannot tell)."""

    name: str
    meaning: str
    holds: Callable[[pd.DataFrame], pd.Series]


def _col(df: pd.DataFrame, name: str) -> pd.Series:
    return df[name].astype("boolean")


OUTCOMES: tuple[Outcome, ...] = (
    Outcome("undelivered_call", "the agent tried to call a tool, but no call arrived as one "
            "(written as text, an unknown tool, arguments that do not parse)",
            # from events, never unknown: a frame without the column (older, hand-built)
            # has no such trace
            lambda d: _col(d, "undelivered_call").fillna(False) if "undelivered_call" in d
            else pd.Series(False, index=d.index, dtype="boolean")),
    Outcome("no_tool_call", "the agent made no tool call at all",
            lambda d: _col(d, "no_tool_call")),
    Outcome("not_applied", "it called tools, but the corruption never changed what it saw "
            "(no opportunity, or no visible effect: S2 false)",
            lambda d: ~_col(d, "S2")),
    Outcome("noticed_recovered", "it noticed the problem and the answer is right",
            lambda d: _col(d, "noticed") & _col(d, "recovered")),
    Outcome("unnoticed_recovered", "it did not notice, and the answer is right anyway (the "
            "corruption did not matter for the answer)",
            lambda d: ~_col(d, "noticed") & _col(d, "recovered")),
    Outcome("noticed_not_recovered", "it noticed, but the answer is wrong",
            lambda d: _col(d, "noticed") & ~_col(d, "recovered")),
    Outcome("propagated", "it did not notice, and the answer is wrong",
            lambda d: ~_col(d, "noticed") & ~_col(d, "recovered")),
)
"""The outcomes of an injected trace, in the order they are tested."""

OUTCOME_NAMES: tuple[str, ...] = tuple(o.name for o in OUTCOMES)
NOTICING_OUTCOMES = frozenset({"noticed_recovered", "unnoticed_recovered",
                               "noticed_not_recovered", "propagated"})
"""The outcomes whose rule reads `noticed` (undefined where noticing is unobservable)."""


def stopped_at(stages: pd.DataFrame, outcomes: Sequence[Outcome] = OUTCOMES) -> pd.Series:
    """The outcome name of every row of a stage table (None for baseline rows and for rows
    an undecidable rule blocks)."""
    out = pd.Series([None] * len(stages), index=stages.index, dtype=object)
    if stages.empty:
        return out
    open_ = stages["error_type"].notna().to_numpy().copy()  # injected rows still undecided
    for outcome in outcomes:
        m = outcome.holds(stages)
        unknown = m.isna().to_numpy()
        yes = m.fillna(False).to_numpy(dtype=bool)
        hit = open_ & yes
        out[hit] = outcome.name
        open_ &= ~yes & ~unknown
    return out

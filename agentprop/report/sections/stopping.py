"""Report section: Where the error stops (per model)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from agentprop.analysis import AnalysisContext, AnalysisResult, stopping_table
from agentprop.report._figures import error_bars_within, subplots, wrap
from agentprop.report._section import Section, SectionFigure, register
from agentprop.report._tables import constant_rates

OUTCOME_STYLE = {  # outcome → (legend text, colour)
    "undelivered_call": ("call not delivered", "#9e9ac8"),
    "no_tool_call": ("no tool call", "#bdbdbd"),
    "not_applied": ("no visible effect", "#d9d9d9"),
    "noticed_recovered": ("noticed, recovered", "#1a9850"),
    "unnoticed_recovered": ("not noticed, recovered", "#91cf60"),
    "noticed_not_recovered": ("noticed, still wrong", "#fc8d59"),
    "propagated": ("propagated (not noticed, wrong)", "#d73027"),
}


def hidden_outcomes(info: Mapping[str, Any]) -> set[str]:
    """With p_S2 constant, every tool-using trace saw the corruption: "not applied" is 0."""
    return {"not_applied"} if "p_S2" in constant_rates(info) else set()


def stopping_funnel(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    """The headline: per model, the share of injected traces ending in each outcome, stacked,
    each segment's CI drawn at its top."""
    st = res.tables.get("stopping")
    if st is None or st.empty:
        return None
    per = st[(st["key"] != "") & ~st["key"].astype(str).str.contains("|", regex=False)]
    keys = list(dict.fromkeys(per["key"]))
    n = per[per["metric"] == "n"].set_index("key").reindex(keys)["value"]
    if not keys or not (n.fillna(0) > 0).any():  # nothing decided (e.g. nothing judged)
        return None
    fig, ax = subplots((max(6, 1.1 * len(keys) + 3), 4.5))
    x = np.arange(len(keys))
    bottom = np.zeros(len(keys))
    hidden = hidden_outcomes(res.info)
    for outcome, (text, colour) in OUTCOME_STYLE.items():
        if outcome in hidden:
            continue
        sub = per[per["metric"] == outcome].set_index("key").reindex(keys)
        v = np.nan_to_num(sub["value"].to_numpy(dtype=float))
        ax.bar(x, v, 0.6, bottom=bottom, color=colour, label=text, edgecolor="white")
        shown = v > 0
        # each segment's CI at its top, cut to stay within the bar's [0, 1]
        ax.errorbar(x[shown] + 0.22, (bottom + v)[shown],
                    yerr=error_bars_within(sub.reset_index(), bottom)[:, shown], fmt="none",
                    ecolor="#333", capsize=2, lw=0.8)
        bottom = bottom + v
    ax.set_xticks(x, [f"{wrap(label(k), 16)}\n(n={int(v) if v == v else 0})" for k, v in
                      zip(keys, n, strict=True)], fontsize=8)
    ax.set_ylabel("share of injected traces")
    ax.set_ylim(0, 1.02)  # room for the caps of a CI that ends at 1, none past it
    ax.set_title("Where the error stops, per model (95% CI, tasks resampled)", fontsize=10)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return stopping_table(ctx.stages, conditions=ctx.conditions, n_resamples=ctx.n_resamples,
                          seed=ctx.seed)


SECTION = register(Section(
    name="stopping",
    title="Where the error stops (per model)",
    compute=compute,
    order=10,
    explain=("One outcome per injected trace: call not delivered (the agent tried to call a "
             "tool, but the call came as text, named an unknown tool or had arguments that "
             "do not parse; docs/tool-call-outcomes.md); no tool call; no visible effect "
             "(the corruption "
             "never changed what the agent saw); noticed and recovered; not noticed but "
             "recovered (the corruption did not matter for the answer); noticed but still "
             "wrong; propagated (not noticed, wrong). Noticed = after the corrupted step the "
             "agent re-queried, checked with another tool, asked the user, declined, or named "
             "the problem (docs/injection.md). Shares with CIs resampling tasks; MODEL|TYPE "
             "rows cover every error type."),
    columns=("n", "undelivered_call", "no_tool_call", "not_applied", "noticed_recovered",
             "unnoticed_recovered", "noticed_not_recovered", "propagated", "n_undecided"),
    key_columns=("model", "error type"),
    key_separator="|",
    hidden=hidden_outcomes,
    figures=(
        SectionFigure("stopping_funnel",
                      "Where the error stops: outcome shares per model (95% CIs).",
                      stopping_funnel),
    ),
))

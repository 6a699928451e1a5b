"""Validation against known truth: simulated agents have stated parameters, so the
pipeline's estimates for them must cover the true values."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

# (manifest metric, true-rate key of SimProfile.true_rates(), propagation_rates column,
#  traces it is estimated on)
CHECKS: tuple[tuple[str, str, str, str], ...] = (
    ("no_tool_share", "no_tool", "no_tool", "all"),
    ("S2_rate", "tool_use", "S2_share", "all"),
    ("correction_rate", "correction_given_S2", "corrected", "all"),
    ("r_23", "r_23", "r_23", "easy"),
    ("noticed_rate", "noticed_given_S2", "noticed", "easy"),
    ("false_alarm_rate", "false_alarm", "noticed_share", "easy baseline"),
)
PRESENTATION_PARAMS = frozenset({"unit"})
NOTES = {"all": "", "easy": "easy tasks only", "easy baseline": "easy baseline tasks"}


def simulation_check(
    stages: pd.DataFrame,
    true_rates: Mapping[str, Mapping[str, float]],
    *,
    condition: str = "p2:semantic_wrong",
    seed: int = 42,
    n_boot: int = 1000,
    family_level: float = 0.95,
) -> pd.DataFrame:
    """One row per (simulated model, metric): true value, estimate, CI, covered.

    The CIs are simultaneous: with k checks each is a (1 − (1 − family_level)/k) interval
    (Bonferroni), so a correct pipeline covers *all* true values with probability at least
    `family_level`. Sixteen separate 95 % intervals would miss one more often than not.

    `true_rates` maps a model id (``sim/<profile>``) to its profile's `true_rates()`.
    Rates come from the `condition` traces. r_23 and the noticing rate are estimated on
    easy (one-call) tasks only: there the corrupted call is the one whose observation the
    answer reports, so every unnoticed visible corruption changes a graded fact, which is
    what the profile's r_23 formula assumes (on chained tasks a corruption can miss the
    graded facts), and no later plan step adds doubt text. The false-alarm rate comes from
    the easy `baseline` traces that made a tool call. Corruptions of a presentation
    parameter (`unit`) are left out: the converted answer is still right.
    """
    from agentprop.analysis.stages import propagation_rates

    cols = ["model", "metric", "true", "estimate", "ci_lo", "ci_hi", "n", "covered", "note"]
    ours = stages["model"].isin(list(true_rates)) & (stages["arm"].fillna("") == "")
    df = stages[(stages["condition"] == condition) & ours]
    if df.empty:
        return pd.DataFrame(columns=[*cols, "level"])
    k = len(CHECKS) * int(df["model"].nunique())
    level = 1 - (1 - family_level) / k
    easy_base = stages[ours & (stages["condition"] == "baseline")
                       & (stages["difficulty"] == "easy")]
    # a unit swap (°C for °F) changes how the answer is written, not a graded fact: a
    # faithful judge accepts the converted values, so it cannot count as propagation
    easy = df[(df["difficulty"] == "easy")
              & ~df.get("target_param", pd.Series(index=df.index, dtype=object))
              .isin(PRESENTATION_PARAMS)]
    parts = {"all": df, "easy": easy, "easy baseline": easy_base}
    rates = {
        name: propagation_rates(part, by="model", rng_seed=seed, n_boot=n_boot, level=level,
                                injected_only=name != "easy baseline")
        for name, part in parts.items()
    }
    rows = []
    for model, truth in sorted(true_rates.items()):
        for metric, true_key, col, part in CHECKS:
            source = rates[part]
            hit = source[source["model"] == model] if len(source) else source
            if hit.empty:
                continue
            r = hit.iloc[0]
            est, lo, hi = float(r[col]), float(r[f"{col}_lo"]), float(r[f"{col}_hi"])
            n = int(r[f"{col}_n"])
            true = float(truth[true_key])
            covered = bool(lo - 1e-9 <= true <= hi + 1e-9) if pd.notna(est) else False
            note = NOTES[part]
            rows.append([model, metric, true, est, lo, hi, n, covered, note, level])
    return pd.DataFrame(rows, columns=[*cols, "level"])

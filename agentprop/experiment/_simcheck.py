"""Validation against known truth: simulated agents have stated parameters, so the
pipeline's estimates for them must cover the true values."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

P2 = "p2:semantic_wrong"
FAULT = "fault:timeout"
UNSEEN = "out:wrong_value"
VISIBLE = "out:swapped_entity"

# (manifest metric, true-rate key of SimProfile.true_rates(), propagation_rates column,
#  traces it is estimated on, condition whose traces estimate it; None = the P2 condition
#  given to `simulation_check`)
CHECKS: tuple[tuple[str, str, str, str, str | None], ...] = (
    ("no_tool_share", "no_tool", "no_tool", "all", None),
    ("S2_rate", "tool_use", "S2_share", "all", None),
    ("correction_rate", "correction_given_S2", "corrected", "all", None),
    ("r_23", "r_23", "r_23", "easy", None),
    ("noticed_rate", "noticed_given_S2", "noticed", "easy", None),
    ("false_alarm_rate", "false_alarm", "noticed_share", "easy baseline", None),
    # a failed call: retry, abstain, or invent the answer
    ("failure_retry_rate", "retry_given_failure", "corrected", "all", FAULT),
    ("failure_abstain_rate", "abstain_given_failure", "noticed_abstain", "easy", FAULT),
    ("failure_fabricated_rate", "fabricated_given_failure", "fabricated_given_S2", "easy",
     FAULT),
    # a corrupted value the agent cannot see, and another entity's result it can
    ("unseen_correction_rate", "correction_given_S2_unseen", "corrected", "all", UNSEEN),
    ("unseen_noticed_rate", "noticed_given_S2_unseen", "noticed", "easy", UNSEEN),
    ("swapped_correction_rate", "correction_given_S2", "corrected", "all", VISIBLE),
)
"""Each check runs when the workspace holds its condition's traces (the P2 ones always)."""
PRESENTATION_PARAMS = frozenset({"unit"})
NOTES = {"all": "", "easy": "easy tasks only", "easy baseline": "easy baseline tasks"}


def simulation_check(
    stages: pd.DataFrame,
    true_rates: Mapping[str, Mapping[str, float]],
    *,
    condition: str = P2,
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
    present = set(stages.loc[ours, "condition"])
    checks = [(m, k, c, part, cond or condition) for m, k, c, part, cond in CHECKS
              if (cond or condition) in present]
    if condition not in present:
        return pd.DataFrame(columns=[*cols, "level"])
    models = stages.loc[ours & (stages["condition"] == condition), "model"].nunique()
    k = len(checks) * int(models)
    level = 1 - (1 - family_level) / k
    easy_base = stages[ours & (stages["condition"] == "baseline")
                       & (stages["difficulty"] == "easy")]
    rates: dict[tuple[str, str], pd.DataFrame] = {}

    def rates_of(part: str, cond: str) -> pd.DataFrame:
        if (part, cond) not in rates:
            df = stages[(stages["condition"] == cond) & ours]
            # a unit swap (°C for °F) changes how the answer is written, not a graded
            # fact: a faithful judge accepts the converted values, so it cannot count as
            # propagation
            easy = df[(df["difficulty"] == "easy")
                      & ~df.get("target_param", pd.Series(index=df.index, dtype=object))
                      .isin(PRESENTATION_PARAMS)]
            frame = {"all": df, "easy": easy, "easy baseline": easy_base}[part]
            rates[(part, cond)] = propagation_rates(
                frame, by="model", rng_seed=seed, n_boot=n_boot, level=level,
                injected_only=part != "easy baseline")
        return rates[(part, cond)]

    rows = []
    for model, truth in sorted(true_rates.items()):
        for metric, true_key, col, part, cond in checks:
            source = rates_of(part, cond)
            hit = source[source["model"] == model] if len(source) else source
            if hit.empty:
                continue
            r = hit.iloc[0]
            est, lo, hi = float(r[col]), float(r[f"{col}_lo"]), float(r[f"{col}_hi"])
            n = int(r[f"{col}_n"])
            if n == 0 and cond != condition:
                # a fault/output check with nothing to estimate it on (a profile that
                # rarely calls tools); a P2 check stays, undefined and not covered
                continue
            true = float(truth[true_key])
            covered = bool(lo - 1e-9 <= true <= hi + 1e-9) if pd.notna(est) else False
            note = NOTES[part] + ("" if cond == condition else
                                  f"{'; ' if NOTES[part] else ''}{cond}")
            rows.append([model, metric, true, est, lo, hi, n, covered, note, level])
    return pd.DataFrame(rows, columns=[*cols, "level"])

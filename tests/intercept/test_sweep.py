"""The threshold sweep on hand-built traces with a known best configuration."""

from __future__ import annotations

import math

from agentprop.intercept import SWEEP_COLUMNS, InterceptConfig, best_config, sweep

from ._fakes import NOT_FOUND, OBS, VALIDATION, episode

OK = "It is 14.6 °C."
FABRICATED = "It is 22 °C."

# (trace, answer correct?) — the signals each trace carries are in the comments.
TRACES = [
    (episode(OK, [VALIDATION, OBS], tid="A"), False),  # L1=1, wrong
    (episode(OK, [VALIDATION, NOT_FOUND, OBS], tid="B"), False),  # L1=2, wrong
    (episode(OK, [VALIDATION, OBS], tid="C"), True),  # L1=1, correct (false alarm)
    (episode(OK, [OBS], "error, invalid, wrong", tid="D"), False),  # L2=3, wrong
    (episode(OK, [OBS], "error or invalid", tid="E"), True),  # L2=2, correct
    (episode(FABRICATED, [OBS], tid="F"), False),  # L3, wrong
    (episode(OK, [OBS], tid="G"), True),  # nothing, correct
    (episode(FABRICATED, [OBS], tid="H"), True),  # L3, correct (false alarm)
]


def test_sweep_finds_the_known_best_configuration() -> None:
    traces = [t for t, _ in TRACES]
    verdicts = {t.id: ok for t, ok in TRACES}
    # unscored and failed traces are skipped, not counted as wrong
    traces.append(episode(FABRICATED, [VALIDATION], tid="unscored"))
    verdicts["unscored"] = None
    failed = episode(FABRICATED, [VALIDATION], tid="failed")
    failed.status = "error"
    traces.append(failed)
    verdicts["failed"] = False

    table = sweep(traces, verdicts)
    assert list(table.columns) == SWEEP_COLUMNS and len(table) == 12
    assert (table["n"] == 8).all() and (table["positives"] == 4).all()
    best = table[table["best"]]
    assert len(best) == 1
    row = best.iloc[0]
    assert row["config"] == "tau_l1=1,tau_l2=3,l3=on"
    # fires on A, B, C, D, F, H: tp 4, fp 2
    assert (row["tp"], row["fp"], row["fn"], row["tn"]) == (4, 2, 0, 2)
    assert math.isclose(row["f1"], 0.8) and math.isclose(row["abstention_rate"], 6 / 8)
    assert best_config(table) == InterceptConfig(tau_l1=1, tau_l2=3, l3=True)
    most = table.set_index("config").loc["tau_l1=1,tau_l2=2,l3=on"]
    assert (most["tp"], most["fp"]) == (4, 3)
    assert math.isclose(most["precision"], 4 / 7) and math.isclose(most["recall"], 1.0)


def test_equal_f1_is_broken_towards_fewer_abstentions() -> None:
    data = [
        (episode(OK, [VALIDATION, OBS], tid="p1"), False),
        (episode(FABRICATED, [OBS], tid="p2"), False),
        (episode(FABRICATED, [OBS], tid="n1"), True),
        (episode(FABRICATED, [OBS], tid="n2"), True),
        (episode(OK, [OBS], tid="n3"), True),
    ]
    with_l3 = InterceptConfig(tau_l1=1, tau_l2=2, l3=True)  # tp 2, fp 2, fn 0: F1 2/3
    without = InterceptConfig(tau_l1=1, tau_l2=2, l3=False)  # tp 1, fp 0, fn 1: F1 2/3
    table = sweep([t for t, _ in data], {t.id: ok for t, ok in data}, [with_l3, without])
    assert math.isclose(table.loc[0, "f1"], table.loc[1, "f1"])
    assert table["best"].tolist() == [False, True]
    assert best_config(table, mode="warn") == without.model_copy(update={"mode": "warn"})


def test_sweep_of_nothing_is_an_empty_but_well_formed_table() -> None:
    table = sweep([], {})
    assert len(table) == 12 and (table["n"] == 0).all() and table["best"].sum() == 1


def test_f1_is_undefined_without_positives_and_firings() -> None:
    """All answers right and nothing for a layer to fire on: F1 is NaN, never 0. A
    configuration that fires on a right answer has F1 = 0 (defined)."""
    clean = [(episode(OK, [OBS], tid="G"), True), (episode(OK, [OBS], tid="G2"), True)]
    table = sweep([t for t, _ in clean], {t.id: ok for t, ok in clean})
    assert (table["positives"] == 0).all() and (table["tp"] + table["fp"] == 0).all()
    assert table["f1"].isna().all() and math.isnan(table["precision"].iloc[0])
    assert table["best"].sum() == 1
    fires = [*clean, (episode(OK, [VALIDATION, OBS], tid="C"), True)]
    t2 = sweep([t for t, _ in fires], {t.id: ok for t, ok in fires})
    l1 = t2[t2["tau_l1"] == 1]
    assert (l1["f1"] == 0.0).all()
    assert t2[(t2["tau_l1"] == 3) & ~t2["l3"].astype(bool)]["f1"].isna().all()

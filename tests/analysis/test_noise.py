"""The clean-run noise floor and propagation beyond it (analysis/_noise.py), with a stub
comparison whose answers are known."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from agentprop.analysis._noise import (
    FEW_SEEDS,
    NO_JUDGE,
    beyond_floor,
    clean_pairs,
    noise_floor,
    noise_table,
    task_columns,
)
from agentprop.analysis._tidy import lookup


def same(query: str, a: str, b: str) -> bool | None:
    """Agree when equal; "?" is undecidable."""
    if "?" in (a, b):
        return None
    return a == b


def stages(clean: dict[str, list[str]], injected: dict[str, list[bool]] | None = None,
           model: str = "m", condition: str = "out:all") -> pd.DataFrame:
    """Baseline traces with the given answers (one per seed) and injected traces with the
    given S3 (S1 applied)."""
    rows = []
    for task, answers in clean.items():
        for s, a in enumerate(answers):
            rows.append(dict(trace_id=f"b-{task}-{s}", model=model, task_id=task,
                             condition="baseline", arm="", error=False, seed=s, S1=None,
                             S3=None, answer=a))
    for task, s3 in (injected or {}).items():
        for s, v in enumerate(s3):
            rows.append(dict(trace_id=f"i-{task}-{s}", model=model, task_id=task,
                             condition=condition, arm="", error=False, seed=s, S1=True,
                             S3=v, answer="x"))
    df = pd.DataFrame(rows)
    df["S3"] = df["S3"].astype("boolean")
    df["S1"] = df["S1"].astype("boolean")
    return df


def test_floor_counts_disagreeing_pairs_per_task_and_averages_over_tasks() -> None:
    # t1: a a b → pairs (a,a) agree, (a,b), (a,b) disagree → 2/3; t2: all agree → 0;
    # t3: a ? b → one decided pair (a,b) disagrees → 1/1, two undecidable
    st = stages({"t1": ["a", "a", "b"], "t2": ["c", "c", "c"], "t3": ["a", "?", "b"]})
    pairs = clean_pairs(st, {}, same)
    assert list(pairs["disagree"]) == [2, 0, 1]
    assert list(pairs["undecidable"]) == [0, 0, 2]
    est = noise_floor(task_columns(pairs), n_resamples=200)
    assert est.value == pytest.approx((2 / 3 + 0 + 1) / 3)
    assert est.n == 3
    assert est.lo <= est.value <= est.hi


def test_floor_passes_the_query_to_the_comparison() -> None:
    seen: list[str] = []

    def spy(q: str, a: str, b: str) -> bool:
        seen.append(q)
        return True

    clean_pairs(stages({"t1": ["a", "b"]}), {"t1": "what?"}, spy)
    assert seen == ["what?"]


def test_floor_is_nan_with_n_under_two_seeds() -> None:
    st = stages({"t1": ["a"], "t2": ["b"]})
    table = noise_table(st, {}, same, n_resamples=50)
    hit = table[table["metric"] == "noise_floor"].iloc[0]
    assert math.isnan(hit["value"]) and hit["n"] == 0
    assert hit["note"] == FEW_SEEDS


def test_floor_without_a_judge_is_undefined_with_the_reason() -> None:
    st = stages({"t1": ["a", "b"]}, {"t1": [True, False]})
    table = noise_table(st, {}, None, n_resamples=50)
    assert math.isnan(lookup(table, "noise_floor", "m|baseline"))
    assert set(table.loc[table["metric"] == "beyond_floor", "note"]) == {NO_JUDGE}
    assert math.isnan(lookup(table, "beyond_floor", "m|out:all"))
    assert lookup(table, "s3_rate", "m|out:all") == 0.5


def test_floor_ci_resamples_tasks_not_pairs() -> None:
    # one task with many disagreeing pairs and nine stable tasks: resampling pairs would
    # give a narrow interval; resampling tasks moves the floor by 1/10 per draw of t0
    clean = {"t0": [str(i) for i in range(6)]}
    clean.update({f"t{i}": ["a"] * 6 for i in range(1, 10)})
    est = noise_floor(task_columns(clean_pairs(stages(clean), {}, same)), n_resamples=2000)
    assert est.value == pytest.approx(0.1)
    assert est.lo == 0.0
    assert est.hi >= 0.2  # t0 drawn twice or more in a replicate happens often


def test_beyond_floor_is_the_difference_with_a_joint_draw() -> None:
    # per task: floor share f_t and S3 rate r_t move together (unstable tasks fail more);
    # the joint draw makes the difference's CI narrower than the terms' independent spread
    rng = np.random.default_rng(0)
    clean, inj = {}, {}
    for t in range(40):
        unstable = t % 2 == 0
        clean[f"t{t}"] = ["a", "b", "c"] if unstable else ["a", "a", "a"]
        inj[f"t{t}"] = [True, True, True] if unstable else list(rng.random(3) < 0.1)
    c = task_columns(clean_pairs(stages(clean), {}, same),
                     stages(clean, inj).query("condition != 'baseline'"))
    rate, floor, diff = beyond_floor(c, n_resamples=2000)
    assert diff.value == pytest.approx(rate.value - floor.value)
    assert diff.n == rate.n == 120
    width = diff.hi - diff.lo
    assert width < (rate.hi - rate.lo) + (floor.hi - floor.lo)
    assert width < 0.5 * (rate.hi - rate.lo)  # they co-vary: the difference barely moves


def test_table_has_floor_per_model_and_difference_per_condition() -> None:
    st = pd.concat([
        stages({"t1": ["a", "b"], "t2": ["a", "a"]}, {"t1": [True, True], "t2": [True, False]}),
        stages({"t1": ["a", "a"], "t2": ["a", "a"]}, {"t1": [False], "t2": [False]},
               model="n", condition="p2:semantic_wrong"),
    ], ignore_index=True)
    table = noise_table(st, {}, same, n_resamples=100)
    assert lookup(table, "noise_floor", "m|baseline") == pytest.approx(0.5)
    assert lookup(table, "s3_rate", "m|out:all") == pytest.approx(0.75)
    assert lookup(table, "beyond_floor", "m|out:all") == pytest.approx(0.25)
    assert lookup(table, "noise_floor", "n|baseline") == 0.0
    assert lookup(table, "beyond_floor", "n|p2:semantic_wrong") == 0.0
    assert "warning: small sample" in table.loc[
        (table["key"] == "m|baseline") & (table["metric"] == "noise_floor"), "note"].iloc[0]


def test_beyond_floor_ci_covers_the_known_truth() -> None:
    # 1,000 simulated studies of 40 tasks × 3 clean seeds with known noise and
    # propagation (bench/bench_noise_coverage.py runs more designs)
    from agentprop.analysis._noise import NoiseScenario, noise_coverage

    res = noise_coverage(NoiseScenario(), 1000, n_resamples=1000)
    assert 0.93 <= res["beyond_coverage"] <= 0.97
    assert 0.93 <= res["floor_coverage"] <= 0.97
    assert abs(res["beyond_bias"]) < 0.01


def test_a_biased_floor_would_not_cover() -> None:
    # the check can fail: the difference's truth moved by 0.1 is covered far less often
    from agentprop.analysis._noise import NoiseScenario, beyond_floor, simulate_study

    sc = NoiseScenario()
    rng = np.random.default_rng(1)
    hits = 0
    for _ in range(200):
        _, _, diff = beyond_floor(simulate_study(sc, rng), n_resamples=300, rng=rng)
        hits += diff.lo <= sc.true_beyond + 0.1 <= diff.hi
    assert hits / 200 < 0.8

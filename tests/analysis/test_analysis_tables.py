"""The paper's analyses on small hand-computed stage tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from analysis_helpers import frame, row

from agentprop.analysis import (
    AnalysisInput,
    AnalysisResult,
    Calibrator,
    LabelCells,
    baseline_vs_p2,
    calibrate_wrong,
    cross_domain,
    human_consensus,
    interceptor_ab,
    judge_agreement,
    lookup,
    numbers_manifest,
    propagation_table,
    rejection_recovery,
    sweep_table,
)
from agentprop.report import analyze

R = 200  # resamples: enough for CIs to exist, cheap


def _stages() -> pd.DataFrame:
    rows = [
        # model a: 4 traces; S1 on 3, S2 on 2 (one wrong), one trace unjudged
        row("a", "t1", s1=True, s2=True, s3=True),
        row("a", "t2", s1=True, s2=True, s3=False),
        row("a", "t3", s1=True, s2=False, s3=None),
        row("a", "t4", s1=False, s3=False, no_tool=True),
        # model b: S1 but never S2 → r_23 undefined with n 0
        row("b", "t1", s1=True, s3=True),
        row("b", "t2", s1=False, s3=False),
        # an errored trace and a baseline trace are not in the propagation rates
        row("b", "t3", s1=True, s2=True, s3=True, error=True),
        row("a", "t1", cond="baseline", s3=False),
    ]
    return frame(rows)


def test_propagation_hand_computed() -> None:
    t = propagation_table(_stages(), n_resamples=R)
    assert lookup(t, "p_S1", "a") == pytest.approx(3 / 4)
    assert lookup(t, "p_S2", "a") == pytest.approx(2 / 4)
    assert lookup(t, "r_12", "a") == pytest.approx(2 / 3)
    assert lookup(t, "r_23", "a") == pytest.approx(1 / 2)
    # the unjudged S1 trace drops out of P(S3 | S1): 1 wrong of 2 judged
    assert lookup(t, "inj_to_err", "a") == pytest.approx(1 / 2)
    assert lookup(t, "p_S3", "a") == pytest.approx(1 / 3)
    assert lookup(t, "no_tool_share", "a") == pytest.approx(1 / 4)
    # pooled over both models (errored trace excluded, counted)
    assert lookup(t, "n", "") == 6
    assert lookup(t, "n_error", "b") == 1
    assert lookup(t, "r_23", "") == pytest.approx(1 / 2)


def test_model_without_s2_is_undefined_with_its_n() -> None:
    t = propagation_table(_stages(), n_resamples=R)
    r23 = t[(t["key"] == "b") & (t["metric"] == "r_23")].iloc[0]
    assert math.isnan(r23["value"]) and r23["n"] == 0 and math.isnan(r23["ci_lo"])
    rr = rejection_recovery(t, n_resamples=R)
    rec = rr[(rr["key"] == "b") & (rr["metric"] == "recovery")].iloc[0]
    assert math.isnan(rec["value"])
    # two models, one undefined → Spearman undefined with n = 1, not a crash
    sp = rr[(rr["key"] == "") & (rr["metric"] == "spearman_rho")].iloc[0]
    assert math.isnan(sp["value"]) and sp["n"] == 1


def test_empty_stage_table_gives_empty_tables() -> None:
    empty = frame([])
    assert propagation_table(empty).empty
    assert baseline_vs_p2(empty).empty
    assert interceptor_ab(empty).empty
    assert cross_domain(empty).empty


def test_rejection_recovery_spearman_across_models() -> None:
    rows = []
    # model m_i: rejection i/10 (1 - p_S1), recovery fixed by S3 on its S2 traces
    for i, (rej, wrong) in enumerate([(1, 1), (2, 3), (3, 2), (4, 4)]):
        m = f"m{i}"
        for k in range(10):
            s1 = k >= rej
            rows.append(row(m, f"t{k}", s1=s1, s2=s1, s3=s1 and k < rej + wrong))
    t = propagation_table(frame(rows), n_resamples=R)
    rr = rejection_recovery(t, n_resamples=R)
    assert lookup(rr, "rejection", "m1") == pytest.approx(0.2)
    assert lookup(rr, "recovery", "m1") == pytest.approx(1 - 3 / 8)
    rej = [0.1, 0.2, 0.3, 0.4]
    rec = [1 - 1 / 9, 1 - 3 / 8, 1 - 2 / 7, 1 - 4 / 6]
    from scipy.stats import spearmanr

    assert lookup(rr, "spearman_rho") == pytest.approx(spearmanr(rej, rec).statistic)


def test_baseline_vs_p2_paper_and_matched() -> None:
    rows = [
        row("m", "t1", cond="baseline", s3=False),
        row("m", "t2", cond="baseline", s3=False),
        row("m", "t3", cond="baseline", s3=True),
        row("m", "t9", cond="baseline", s3=None),  # unjudged: dropped
        row("m", "t1", s1=True, s3=True),
        row("m", "t2", s1=True, s3=False),
        row("m", "t4", s1=True, s3=True),
        row("m", "t3", s1=False, s3=False),  # not injected: outside p2_injected
    ]
    t = baseline_vs_p2(frame(rows), n_resamples=R)
    assert lookup(t, "baseline_correct", "m") == pytest.approx(2 / 3)
    assert lookup(t, "p2_injected_correct", "m") == pytest.approx(1 / 3)
    assert lookup(t, "p2_all_correct", "m") == pytest.approx(2 / 4)
    # matched: tasks t1, t2 have both
    assert lookup(t, "matched_baseline_correct", "m") == pytest.approx(1.0)
    assert lookup(t, "matched_p2_injected_correct", "m") == pytest.approx(0.5)
    assert lookup(t, "matched_delta", "m") == pytest.approx(-0.5)


def test_interceptor_saved_broken_and_rates() -> None:
    rows = []
    # (control wrong, treatment wrong, treatment abstained)
    cases = [(True, False, True), (True, True, False), (False, True, False),
             (False, False, False), (True, False, False), (True, None, False)]
    for i, (cw, tw, ta) in enumerate(cases):
        rows.append(row("m", f"t{i}", cond="baseline", arm="control", s3=cw))
        rows.append(row("m", f"t{i}", cond="baseline", arm="treatment", s3=tw, abstained=ta))
    t = interceptor_ab(frame(rows), n_resamples=R)
    assert lookup(t, "n_pairs", "m") == 5  # the unjudged treatment drops its pair
    assert lookup(t, "hallucination_control", "m") == pytest.approx(3 / 5)
    # treatment: t0 abstained (wrong but not a hallucination), t1, t2 hallucinated
    assert lookup(t, "hallucination_treatment", "m") == pytest.approx(2 / 5)
    assert lookup(t, "abstention_treatment", "m") == pytest.approx(1 / 5)
    assert lookup(t, "saved", "m") == 2
    assert lookup(t, "broken", "m") == 1
    assert lookup(t, "delta_hallucination", "m") == pytest.approx(-1 / 5)
    assert lookup(t, "selective_accuracy_treatment", "m") == pytest.approx(2 / 4)
    assert 0 < lookup(t, "mcnemar_p", "m") <= 1


def test_two_evaluations_are_never_pooled() -> None:
    """Two evaluations of one model (say warn mode, then abstain mode) are keyed on their
    own, each with its own n; pairs never cross runs."""
    rows = []
    for run, (tw, ta) in (("r1", (True, False)), ("r2", (True, True))):
        for i in range(3):  # run r1: treatment still wrong; run r2: treatment abstains
            c = row("m", f"t{i}", cond="baseline", arm="control", s3=True)
            t = row("m", f"t{i}", cond="baseline", arm="treatment", s3=tw, abstained=ta)
            for r in (c, t):
                r["run_id"] = run
                r["trace_id"] += run
            rows += [c, t]
    t = interceptor_ab(frame(rows), n_resamples=R,
                       evaluations={"r1": "tau_l1=1 mode=warn", "r2": "tau_l1=1 mode=abstain"})
    assert math.isnan(lookup(t, "n_pairs", "m"))  # no blended number
    assert lookup(t, "n_pairs", "m@r1") == 3 and lookup(t, "n_pairs", "m@r2") == 3
    assert lookup(t, "saved", "m@r1") == 0 and lookup(t, "saved", "m@r2") == 3
    assert lookup(t, "hallucination_treatment", "m@r1") == 1.0
    assert lookup(t, "hallucination_treatment", "m@r2") == 0.0
    note = t[(t["key"] == "m@r2") & (t["metric"] == "n_pairs")]["note"].iloc[0]
    assert "mode=abstain" in note
    m = numbers_manifest(AnalysisResult(tables={"interceptor": t}))
    assert m["interceptor.n_pairs[m@r1]"]["n"] == 3 and "interceptor.n_pairs[m]" not in m


def test_undefined_tests_are_nan_not_one() -> None:
    rows = []
    for i in range(4):  # both arms always right: no discordant pair, no variance
        rows.append(row("m", f"t{i}", cond="baseline", arm="control", s3=False))
        rows.append(row("m", f"t{i}", cond="baseline", arm="treatment", s3=False))
    t = interceptor_ab(frame(rows), n_resamples=R)
    assert lookup(t, "delta_hallucination", "m") == 0.0
    assert math.isnan(lookup(t, "mcnemar_p", "m")) and math.isnan(lookup(t, "ztest_p", "m"))
    assert math.isnan(lookup(t, "mcnemar_midp", "m"))


def test_interceptor_split_by_condition_when_several() -> None:
    rows = []
    for i in range(4):  # under "a" the interceptor saves every pair, under "b" none
        rows.append(row("m", f"t{i}", cond="a", arm="control", s3=True))
        rows.append(row("m", f"t{i}", cond="a", arm="treatment", s3=True, abstained=True))
        rows.append(row("m", f"t{i}", cond="b", arm="control", s3=True))
        rows.append(row("m", f"t{i}", cond="b", arm="treatment", s3=True))
    t = interceptor_ab(frame(rows), n_resamples=R)
    assert lookup(t, "n_pairs", "m") == 8
    assert lookup(t, "saved", "m") == 4
    assert lookup(t, "saved", "m|a") == 4 and lookup(t, "n_pairs", "m|a") == 4
    assert lookup(t, "saved", "m|b") == 0
    assert lookup(t, "hallucination_treatment", "m|b") == pytest.approx(1.0)
    one = interceptor_ab(frame([r for r in rows if r["condition"] == "a"]), n_resamples=R)
    assert set(one["key"]) == {"m"}  # a single condition: no split rows


def _verdicts(rows: list[tuple[str, str, bool | None]]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=["trace_id", "judge", "correct"])
    df["correct"] = df["correct"].astype("boolean")
    return df


def test_judge_agreement_vs_human_with_unscored_and_unsure() -> None:
    v = _verdicts([("t1", "j", True), ("t2", "j", False), ("t3", "j", True),
                   ("t4", "j", None), ("t5", "j", False)])
    labels = pd.DataFrame([("t1", "h", "correct"), ("t2", "h", "incorrect"),
                           ("t3", "h", "incorrect"), ("t4", "h", "correct"),
                           ("t5", "h", "unsure")], columns=["trace_id", "annotator", "label"])
    t = judge_agreement(v, labels, n_resamples=R)
    # pairs: t1 (T,T), t2 (F,F), t3 (T,F): po = 2/3, pe = 2/3·1/3 + 1/3·2/3 = 4/9
    assert lookup(t, "kappa", "j~human") == pytest.approx((2 / 3 - 4 / 9) / (1 - 4 / 9))
    assert t[(t["key"] == "j~human") & (t["metric"] == "kappa")]["n"].iloc[0] == 3
    assert lookup(t, "fp", "j~human") == 1
    assert lookup(t, "bias", "j~human") == pytest.approx(2 / 3 - 1 / 3)


def test_leave_one_out_kappa_against_majority_of_others() -> None:
    votes = {"t1": (True, True, True), "t2": (False, False, False), "t3": (True, False, False),
             "t4": (True, True, False), "t5": (False, True, True), "t6": (False, False, True)}
    members = ["x", "y", "z"]
    vrows, mrows = [], []
    for tid, vs in votes.items():
        maj = sum(vs) >= 2
        vrows.append((tid, "majority", maj))
        for m, val in zip(members, vs, strict=True):
            vrows.append((tid, m, val))
            mrows.append((tid, "majority", m, val))
    mem = pd.DataFrame(mrows, columns=["trace_id", "ensemble", "member", "correct"])
    t = judge_agreement(_verdicts(vrows), None, members=mem, n_resamples=R)
    # x vs majority of (y, z): ties (t4: T/F, t6: F/T) are dropped
    # t1 T~T, t2 F~F, t3 T~F, t5 F~T → po 0.5, pe 0.5 → κ 0
    assert lookup(t, "kappa_loo", "x~majority") == pytest.approx(0.0)
    assert lookup(t, "kappa", "x~majority") > lookup(t, "kappa_loo", "x~majority")
    assert not math.isnan(lookup(t, "krippendorff_alpha", "panel"))


def test_human_consensus_majority_and_lead_tiebreak() -> None:
    labels = pd.DataFrame([("t1", "a", "correct"), ("t1", "b", "incorrect"),
                           ("t2", "a", "incorrect"), ("t3", "a", "unsure"),
                           ("t2", "b", "incorrect")], columns=["trace_id", "annotator", "label"])
    h = human_consensus(labels)
    assert bool(h["t1"]) is True  # tie → lead annotator "a" (most labels, then name)
    assert bool(h["t2"]) is False
    assert "t3" not in h.index


def test_calibration_paper_and_rogan_gladen() -> None:
    cal = Calibrator(LabelCells(19, 6, 19, 56), n_resamples=R, rng=1)
    assert cal.factor("a") == pytest.approx(0.76)
    assert cal.factor("b") == pytest.approx(19 / 75)
    # the paper's calibrated range: DeepSeek-V3 r_23 = 6/14 → 0.46, GPT-4.1-nano 34/35 → 0.73
    assert float(calibrate_wrong(6 / 14, cal.point, "paper")) == pytest.approx(0.457, abs=1e-3)
    assert float(calibrate_wrong(34 / 35, cal.point, "paper")) == pytest.approx(0.732, abs=1e-3)
    se, sp = 19 / 38, 56 / 62
    w = 0.6
    expected = 1 - min(1, max(0, ((1 - w) + sp - 1) / (se + sp - 1)))
    assert float(calibrate_wrong(w, cal.point, "rogan_gladen")) == pytest.approx(expected)
    e = cal.apply(w, np.full(R, w), 50, "paper")
    assert e.lo <= e.value <= e.hi and e.n == 50
    assert math.isnan(Calibrator(LabelCells(0, 0, 0, 0)).apply(0.5, np.full(5, 0.5), 1,
                                                                "paper").value)


def test_cross_domain_rank_correlation() -> None:
    rows = []
    for i, m in enumerate(["a", "b", "c", "d"]):
        for k in range(10):
            rows.append(row(m, f"core{k}", cond="baseline", s3=k < i + 2, domain="weather"))
            rows.append(row(m, f"ret{k}", cond="baseline", s3=k < i + 4, domain="retail"))
    t = cross_domain(frame(rows), n_resamples=R)
    assert lookup(t, "correct_core", "a") == pytest.approx(0.8)
    assert lookup(t, "correct_retail", "a") == pytest.approx(0.6)
    assert lookup(t, "spearman_correct") == pytest.approx(1.0)
    assert lookup(t, "kendall_correct") == pytest.approx(1.0)


def test_sweep_best_breaks_f1_ties_towards_fewer_abstentions() -> None:
    base = {"tau_l1": 1, "tau_l2": 2, "l3": True, "n": 40, "precision": 0.8, "recall": 0.9}
    sw = pd.DataFrame([{**base, "config": "many", "f1": 0.8, "abstention_rate": 0.5},
                       {**base, "config": "few", "f1": 0.8, "abstention_rate": 0.2},
                       {**base, "config": "worse", "f1": 0.7, "abstention_rate": 0.1}])
    best = sweep_table(sw)
    assert best[best["metric"] == "best_f1"]["note"].iloc[0] == "few"
    chosen = sweep_table(sw.assign(best=[True, False, False]))  # the sweep's own pick wins
    assert chosen[chosen["metric"] == "best_f1"]["note"].iloc[0] == "many"


def test_sweep_table_and_manifest_nan_is_null() -> None:
    sw = pd.DataFrame([{"config": "c1", "tau_l1": 1, "tau_l2": 2, "l3": True, "n": 40,
                        "precision": 0.8, "recall": 0.9, "f1": 0.842, "abstention_rate": 0.3}])
    t = sweep_table(sw)
    assert lookup(t, "f1", "c1") == pytest.approx(0.842)
    assert lookup(t, "abstention", "c1") == pytest.approx(0.3)
    inp = AnalysisInput(stages=_stages(), verdicts=_verdicts([]),
                        members=pd.DataFrame(columns=["trace_id", "ensemble", "member",
                                                      "correct"]),
                        labels=pd.DataFrame(columns=["trace_id", "annotator", "label"]),
                        sweep=sw)
    m = numbers_manifest(analyze(inp, n_resamples=R))
    assert m["propagation.r_23[b]"] == {"value": None, "n": 0, "ci": None}
    assert m["propagation.r_23[a]"]["value"] == pytest.approx(0.5)
    assert m["interceptor_sweep.f1[c1]"]["value"] == pytest.approx(0.842)
    import json

    json.dumps(m, allow_nan=False)  # strict JSON: no NaN anywhere


def test_numbers_manifest_has_no_infinities() -> None:
    # numbers.json is written with allow_nan=False: ±inf must become null like NaN
    import json

    from agentprop.analysis import AnalysisResult, numbers_manifest
    from agentprop.analysis._tidy import frame as tidy_frame
    from agentprop.analysis._tidy import row as tidy_row

    t = tidy_frame([tidy_row({"config": ""}, "", "best_f1", -math.inf, 0),
                    tidy_row({"config": "a"}, "a", "f1", 0.5, 10)], ["config"])
    out = numbers_manifest(AnalysisResult(tables={"interceptor_sweep": t}))
    assert out["interceptor_sweep.best_f1"]["value"] is None
    assert out["interceptor_sweep.f1[a]"]["value"] == 0.5
    json.dumps(out, allow_nan=False)


def test_baseline_vs_p2_clusters_by_task_when_tasks_repeat() -> None:
    # two tasks × 10 seeds: one task always right, one always wrong. Resampling the 20
    # traces as if independent gives a narrow CI around 0.5; there are only two tasks, so
    # the task-clustered bootstrap can draw both from one task: CI [0, 1].
    rows = []
    for seed in range(10):
        rows.append(row("m", "t1", cond="baseline", s3=False, seed=seed))
        rows.append(row("m", "t2", cond="baseline", s3=True, seed=seed))
        rows.append(row("m", "t1", s1=True, s3=False, seed=seed))
        rows.append(row("m", "t2", s1=True, s3=True, seed=seed))
    t = baseline_vs_p2(frame(rows), n_resamples=R)
    for metric in ("baseline_correct", "p2_injected_correct", "p2_all_correct"):
        r = t[(t["metric"] == metric) & (t["key"] == "m")].iloc[0]
        assert r["value"] == pytest.approx(0.5)
        assert (r["ci_lo"], r["ci_hi"]) == (0.0, 1.0), metric


def test_cross_domain_cis_resample_tasks_and_name_their_conditions() -> None:
    rows = []
    for seed in range(10):  # 2 tasks per part, ten seeds each, outcomes fixed by the task
        for task, wrong in (("a", True), ("b", False)):
            rows.append(row("m", f"core_{task}", cond="baseline", s3=wrong, seed=seed))
            rows.append(row("m", f"ret_{task}", cond="baseline", s3=wrong, seed=seed,
                            domain="retail"))
            rows.append(row("m", f"core_{task}", s1=True, s2=True, s3=wrong, seed=seed))
            rows.append(row("m", f"ret_{task}", s1=True, s2=True, s3=wrong, seed=seed,
                            domain="retail"))
            # another error type that always propagates: not part of the stated conditions
            rows.append(row("m", f"core_{task}", cond="p2:type_mismatch", s1=True, s2=True,
                            s3=True, seed=seed))
    t = cross_domain(frame(rows), n_resamples=R)
    c = t[(t["key"] == "m") & (t["metric"] == "correct_core")].iloc[0]
    assert c.value == 0.5 and c.ci_lo == 0.0 and c.ci_hi == 1.0  # 2 tasks, not 20 traces
    e = t[(t["key"] == "m") & (t["metric"] == "inj_to_err_core")].iloc[0]
    assert e.value == 0.5 and e.ci_lo == 0.0 and e.ci_hi == 1.0
    assert e.note == "conditions: p2:semantic_wrong"
    allp2 = cross_domain(frame(rows), conditions=["p2:semantic_wrong", "p2:type_mismatch"],
                         n_resamples=R)
    assert lookup(allp2, "inj_to_err_core", "m") == pytest.approx(30 / 40)


def test_judge_kappa_cis_resample_tasks_when_traces_share_one() -> None:
    import pandas as pd

    # 2 tasks × 20 traces: on task a the judge always agrees with the reference, on b never
    v = []
    tasks = {}
    for i in range(40):
        tid, task = f"t{i}", "a" if i < 20 else "b"
        tasks[tid] = task
        truth = i % 2 == 0
        v += [(tid, "facts", truth), (tid, "heuristic", truth if task == "a" else not truth)]
    verdicts = pd.DataFrame(v, columns=["trace_id", "judge", "correct"])
    verdicts["correct"] = verdicts["correct"].astype("boolean")
    iid = judge_agreement(verdicts, reference="facts", n_resamples=R)
    clustered = judge_agreement(verdicts, reference="facts", tasks=tasks, n_resamples=R)

    def ci(t: pd.DataFrame, metric: str) -> tuple[float, float]:
        r = t[(t["key"] == "heuristic~facts") & (t["metric"] == metric)].iloc[0]
        return r.ci_lo, r.ci_hi

    assert lookup(clustered, "kappa", "heuristic~facts") == pytest.approx(0.0)
    # two clusters: a resample is all-agree (κ = 1), all-disagree (κ = −1) or the mix
    assert ci(clustered, "kappa") == (pytest.approx(-1.0), pytest.approx(1.0))
    assert ci(clustered, "agreement") == (0.0, 1.0)
    lo, hi = ci(iid, "kappa")
    assert lo > -0.7 and hi < 0.7  # forty independent traces would be much narrower

"""The corrected-rates table (analysis/_corrected.py): the instrument alone, the paper's
correction and Rogan–Gladen agree with the tables that already print them, PPI++ is the
one of analysis/_ppi.py over the rate's own labelled traces, a recorded label design
stratifies it, and what cannot be estimated says why."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from agentprop.analysis import AnalysisInput, interceptor_ab, propagation_table, run_sections
from agentprop.analysis._calibration import LabelMix
from agentprop.analysis._corrected import (
    RATES,
    CorrectedInput,
    corrected_rates,
    rate_population,
)
from agentprop.analysis._ppi import PPIData, ppi_estimate
from agentprop.analysis._propagation import CalibratedMemo, calibrated
from agentprop.analysis._stats import (
    Resampler,
    WeightMemo,
    _pack_counts,
    _unpack_counts,
    group_rng,
)
from agentprop.analysis.frames import JudgeValidity
from agentprop.core import LabelCell, LabelDesign
from tests.analysis.analysis_helpers import frame, row

MODELS = ("m/a", "m/b")


def _stages(n_tasks: int = 60, seed: int = 0, arms: bool = False) -> pd.DataFrame:
    """Two models; each task once per model; S2 on about 80 % of the injected traces; the
    judge's S3 and the noticed detector drawn with stated rates."""
    rng = np.random.default_rng(seed)
    rows = []
    for m in MODELS:
        for t in range(n_tasks):
            s2 = bool(rng.random() < 0.8)
            rows.append(row(m, f"t{t}", s1=True, s2=s2, s3=bool(rng.random() < 0.6),
                            noticed=bool(rng.random() < 0.3), trace_id=f"{m}|t{t}"))
            if arms:
                for arm in ("control", "treatment"):
                    rows.append(row(m, f"t{t}", s1=True, s2=True, arm=arm,
                                    s3=bool(rng.random() < (0.6 if arm == "control" else 0.4)),
                                    abstained=arm == "treatment" and rng.random() < 0.1,
                                    trace_id=f"{m}|t{t}|{arm}"))
    return frame(rows)


def _labels(st: pd.DataFrame, share: float, seed: int = 1, question: str = "answer",
            col: str = "S3", agree: float = 0.85) -> pd.DataFrame:
    """Human labels of a random `share` of the traces: the instrument's value, kept with
    probability `agree` (flipped otherwise)."""
    rng = np.random.default_rng(seed)
    rows = []
    for _, r in st.iterrows():
        if rng.random() >= share or pd.isna(r[col]):
            continue
        v = bool(r[col]) if rng.random() < agree else not bool(r[col])
        yes, no = ("incorrect", "correct") if question == "answer" else ("yes", "no")
        label = yes if v else no
        rows.append({"trace_id": r["trace_id"], "annotator": "h", "label": label,
                     "question": question})
    return pd.DataFrame(rows, columns=["trace_id", "annotator", "label", "question"])


def _mix(st: pd.DataFrame, labels: pd.DataFrame) -> LabelMix:
    h = labels.set_index("trace_id")["label"] == "incorrect"
    lab = st[st["trace_id"].isin(h.index)]
    return LabelMix.of(lab["trace_id"], lab["task_id"], lab["S3"].astype(bool),
                       h.reindex(lab["trace_id"]).to_numpy(dtype=bool))


def _pick(t: pd.DataFrame, key: str, metric: str) -> pd.Series:
    hit = t[(t["key"] == key) & (t["metric"] == metric)]
    assert len(hit) == 1, (key, metric)
    return hit.iloc[0]


def test_judge_only_and_the_label_mix_corrections_are_the_propagation_tables() -> None:
    st = _stages()
    labels = _labels(st, 0.3)
    mix = _mix(st, labels)
    t = corrected_rates(st, CorrectedInput(labels, mixes={"answer": mix}),
                        n_resamples=300, seed=42)
    prop = propagation_table(st, mix=mix, n_resamples=300, seed=42)
    # without a given mix the table builds the same one from the labels
    assert corrected_rates(st, CorrectedInput(labels), n_resamples=300, seed=42).equals(t)
    for m in (*MODELS, ""):
        for rate, name in (("p_S3", "p_S3"), ("r_23", "r_23"), ("inj_to_err", "inj_to_err"),
                           ("noticed", "noticed")):
            got = _pick(t, f"{rate}|{m}", "judge_only")
            want = _pick(prop, m, name)
            assert got["n"] == want["n"]
            assert (got["value"], got["ci_lo"], got["ci_hi"]) == pytest.approx(
                (want["value"], want["ci_lo"], want["ci_hi"]), abs=1e-12)
        for method in ("paper", "rogan_gladen"):
            got = _pick(t, f"r_23|{m}", method)
            want = _pick(prop, m, f"r_23_cal_{method}")
            assert got["value"] == pytest.approx(want["value"])
            assert (got["ci_lo"], got["ci_hi"]) == pytest.approx((want["ci_lo"], want["ci_hi"]))


def test_the_corrected_rates_read_the_propagation_tables_calibrated_r23_and_inj_to_err(
) -> None:
    """Both tables calibrate r_23 and inj_to_err per group on the same stream; one memo
    per analysis draws each once. The memo's key holds a digest of every input (trace ids,
    tasks, the rate's columns, the mix), so a hit proves both read the same traces in the
    same order; the table is the same with and without the memo."""
    st = _stages()
    st.loc[st.index[3], "error"] = True  # errored and S1-unknown traces are left out alike
    st.loc[st.index[7], "S1"] = None
    labels = _labels(st, 0.3)
    mix = _mix(st, labels)
    memo: CalibratedMemo = {}
    weights: WeightMemo = {}
    prop = propagation_table(st, mix=mix, n_resamples=200, seed=7, memo=memo,
                             weight_memo=weights)
    groups = (*MODELS, "")
    # each group's task bootstrap (stream (seed, group)) is kept for the corrected rates
    assert sorted(k[:2] for k in weights) == sorted((7, g) for g in groups)
    assert sorted(k[:2] for k in memo) == sorted(
        (metric, g) for metric in ("r_23", "inj_to_err") for g in groups)
    after_prop = dict(memo)
    t = corrected_rates(st, CorrectedInput(labels, mixes={"answer": mix}, memo=memo,
                                           weight_memo=weights),
                        n_resamples=200, seed=7)
    assert weights == {}  # each taken, not drawn again
    # the propagation table's six results were read, not drawn again (same objects);
    # only p_S3's three calibrations are new
    assert all(memo[k] is v for k, v in after_prop.items())
    assert sorted(k[:2] for k in memo.keys() - after_prop.keys()) == sorted(
        ("p_S3", g) for g in groups)
    assert corrected_rates(st, CorrectedInput(labels, mixes={"answer": mix}),
                           n_resamples=200, seed=7).equals(t)
    assert propagation_table(st, mix=mix, n_resamples=200, seed=7).equals(prop)


def test_a_kept_weight_matrix_is_the_one_drawn_and_is_used_once() -> None:
    tasks = np.repeat([f"t{i}" for i in range(40)], 3)
    plain = Resampler(np.arange(tasks.size), clusters=tasks, n_resamples=150,
                      rng=group_rng(3, "g"))
    memo: WeightMemo = {}
    first, second, third = (
        Resampler(np.arange(tasks.size), clusters=tasks, n_resamples=150,
                  rng=group_rng(3, "g"), memo=(memo, (3, "g"))) for _ in range(3))
    assert len(memo) == 1  # the third drew again and kept its matrix
    for rs in (first, second, third):
        assert np.array_equal(rs.weights, plain.weights)
        assert rs.weights.dtype == np.float64
    other = Resampler(np.arange(tasks.size - 3), clusters=tasks[3:], n_resamples=150,
                      rng=group_rng(3, "g"), memo=(memo, (3, "g")))
    assert len(memo) == 2  # another number of clusters: another matrix
    assert other.weights.shape == (150, 39)
    kept = Resampler(np.arange(tasks.size - 3), clusters=tasks[3:], n_resamples=150,
                     rng=group_rng(3, "g"), memo=(memo, (3, "g")))
    assert np.array_equal(kept.weights, other.weights)  # an odd count of clusters, unpacked


def test_kept_counts_are_packed_two_per_byte_and_unpack_exactly() -> None:
    rng = np.random.default_rng(0)
    for k in (1, 2, 7, 8):
        w = rng.integers(0, 16, size=(5, k)).astype(float)
        packed = _pack_counts(w)
        assert packed.shape[1] == (k // 2 if k % 2 == 0 else k)
        assert np.array_equal(_unpack_counts(packed, k), w)
    big = np.array([[0.0, 17.0], [300.0, 1.0]])  # a count of 16 or more: not packed
    assert _pack_counts(big).dtype == np.uint16
    assert np.array_equal(_unpack_counts(_pack_counts(big), 2), big)


def test_the_calibrated_memo_keys_on_the_traces_and_their_order() -> None:
    st = _stages()
    ok = st[st["model"] == MODELS[0]]
    mix = _mix(st, _labels(st, 0.3))
    memo: CalibratedMemo = {}
    first = calibrated(ok, "S3", "S2", mix, "r_23", "g", n_resamples=100, seed=1, memo=memo)
    assert calibrated(ok, "S3", "S2", mix, "r_23", "g", n_resamples=100, seed=1,
                      memo=memo) == first
    assert len(memo) == 1
    shuffled = ok.iloc[::-1]
    again = calibrated(shuffled, "S3", "S2", mix, "r_23", "g", n_resamples=100, seed=1,
                       memo=memo)
    assert len(memo) == 2
    assert again == calibrated(shuffled, "S3", "S2", mix, "r_23", "g", n_resamples=100,
                               seed=1)


def test_ppi_is_ppi_over_the_rates_own_labelled_traces() -> None:
    st = _stages()
    labels = _labels(st, 0.4)
    t = corrected_rates(st, CorrectedInput(labels), n_resamples=300, seed=42)
    spec = next(r for r in RATES if r.name == "r_23")
    pop = rate_population(st, spec)
    g = pop[pop["model"] == "m/a"]
    human = (labels.set_index("trace_id")["label"] == "incorrect")
    lab = g["trace_id"].isin(human.index).to_numpy()
    f = g["S3"].astype(float).to_numpy()
    y = human.reindex(g["trace_id"][lab]).to_numpy(dtype=float)
    want = ppi_estimate(PPIData.of(y, f[lab], f[~lab]))  # one trace per task: the CLT
    got = _pick(t, "r_23|m/a", "ppi")
    assert got["value"] == pytest.approx(want.value)
    assert (got["ci_lo"], got["ci_hi"]) == pytest.approx((max(0, want.lo), min(1, want.hi)))
    assert got["n"] == lab.sum()
    assert _pick(t, "r_23|m/a", "n_population")["value"] == len(g)
    assert "random sample" in got["note"] and "CI: clt" in got["note"]


def test_a_design_drawn_for_r23_stratifies_r23_and_cannot_speak_for_p_s3() -> None:
    st = _stages(n_tasks=80)
    # labels drawn for r_23: only S2 traces, many more of the judge's "right" verdicts
    pop = rate_population(st, next(r for r in RATES if r.name == "r_23"))
    rng = np.random.default_rng(3)
    keep = [tid for tid, s3 in zip(pop["trace_id"], pop["S3"], strict=True)
            if rng.random() < (0.9 if not s3 else 0.25)]
    labels = _labels(st[st["trace_id"].isin(keep)], 1.0)
    cells = {}
    for (m, s3), g in pop.groupby(["model", "S3"]):
        cells[f"{m}|{'yes' if s3 else 'no'}"] = LabelCell(
            population=len(g), target=int(g["trace_id"].isin(keep).sum()),
            drawn=int(g["trace_id"].isin(keep).sum()))
    design = LabelDesign(rate="r_23", by=["model", "verdict"], cells=cells)
    t = corrected_rates(st, CorrectedInput(labels, design=design), n_resamples=300, seed=42)
    r23 = _pick(t, "r_23|m/a", "ppi")
    assert "CI: clt-stratified" in r23["note"] and "drawn for r_23" in r23["note"]
    # the stratified estimate is the post-stratified one: Σ W_h · (human rate in cell h)
    g = pop[pop["model"] == "m/a"]
    human = labels.set_index("trace_id")["label"] == "incorrect"
    want = 0.0
    for _, c in g.groupby("S3"):
        want += len(c) / len(g) * human.reindex(c["trace_id"]).dropna().mean()
    assert r23["value"] == pytest.approx(want)
    # p_S3 covers S2 = 0 traces too, which the design never drew: undefined, with why
    ps3 = _pick(t, "p_S3|m/a", "ppi")
    assert math.isnan(ps3["value"]) and "outside the label design" in ps3["note"]


def test_noticed_needs_noticed_labels_and_uses_them() -> None:
    st = _stages()
    answer = _labels(st, 0.3)
    t = corrected_rates(st, CorrectedInput(answer), n_resamples=300, seed=42)
    for metric in ("paper", "rogan_gladen", "ppi"):
        r = _pick(t, "noticed|m/a", metric)
        assert math.isnan(r["value"])
    assert "no labels" in _pick(t, "noticed|m/a", "ppi")["note"]
    noticed = _labels(st, 0.5, question="noticed", col="noticed", agree=0.9)
    both = pd.concat([answer, noticed], ignore_index=True)
    t = corrected_rates(st, CorrectedInput(both), n_resamples=300, seed=42)
    r = _pick(t, "noticed|m/a", "ppi")
    assert 0 <= r["value"] <= 1 and r["ci_lo"] < r["ci_hi"]
    assert math.isfinite(_pick(t, "noticed|m/a", "rogan_gladen")["value"])


def test_interceptor_arms_and_the_paired_delta() -> None:
    st = _stages(arms=True)
    labels = _labels(st[st["arm"] != ""], 0.5)
    t = corrected_rates(st, CorrectedInput(labels), n_resamples=300, seed=42)
    ab = interceptor_ab(st, n_resamples=300, seed=42)
    for name in ("hallucination_control", "hallucination_treatment", "delta_hallucination"):
        got = _pick(t, f"{name}|m/a", "judge_only")
        want = _pick(ab, "m/a", name)
        assert got["value"] == pytest.approx(want["value"])
        assert (got["ci_lo"], got["ci_hi"]) == pytest.approx((want["ci_lo"], want["ci_hi"]))
    d = _pick(t, "delta_hallucination|m/a", "ppi")
    c = _pick(t, "hallucination_control|m/a", "ppi")
    tr = _pick(t, "hallucination_treatment|m/a", "ppi")
    assert d["value"] == pytest.approx(tr["value"] - c["value"])
    assert "task bootstrap" in d["note"] and d["ci_lo"] < d["value"] < d["ci_hi"]
    assert math.isfinite(_pick(t, "delta_hallucination|m/a", "paper")["value"])


def test_a_rate_through_an_instrument_without_a_card_is_marked_unvalidated() -> None:
    st = _stages()
    labels = _labels(st, 0.3)
    inp = AnalysisInput(stages=st, verdicts=pd.DataFrame(columns=["trace_id", "judge",
                                                                    "correct"]),
                        members=pd.DataFrame(), labels=labels,
                        primary_judge="llm:some/model",
                        judge_validity=JudgeValidity(judges={"facts": {"kappa": 0.9}}))
    from agentprop.report.sections.corrected_rates import compute

    res = run_sections(inp, {"corrected_rates": compute}, n_resamples=200)
    t = res.tables["corrected_rates"]
    notes = _pick(t, "r_23|m/a", "judge_only")["note"]
    assert "unvalidated: llm:some/model has no validity card" in notes
    # the detector without a card too
    assert "unvalidated: noticed" in _pick(t, "noticed|m/a", "judge_only")["note"]


def test_no_labels_no_section() -> None:
    st = _stages()
    empty = pd.DataFrame(columns=["trace_id", "annotator", "label", "question"])
    inp = AnalysisInput(stages=st, verdicts=pd.DataFrame(columns=["trace_id", "judge",
                                                                    "correct"]),
                        members=pd.DataFrame(), labels=empty)
    from agentprop.report.sections.corrected_rates import compute

    assert "corrected_rates" not in run_sections(inp, {"corrected_rates": compute}).tables


def test_mix_corrections_point_is_the_published_formula_and_shares_one_bootstrap() -> None:
    from agentprop.analysis._calibration import (
        Calibrator,
        LabelCells,
        MixItem,
        calibrate_wrong,
        mix_corrections,
    )

    rng = np.random.default_rng(2)
    ids = np.array([f"t{i}" for i in range(200)])
    f = (rng.random(200) < 0.6).astype(float)
    y = np.where(rng.random(200) < 0.8, f, 1 - f)
    lab = rng.random(200) < 0.4
    mix = LabelMix.of(ids[lab], ids[lab], f[lab] == 1, y[lab] == 1)
    (got,) = mix_corrections([MixItem(f, np.ones(200))], ids, ids, mix, n_resamples=200,
                             rng=0)
    cal = Calibrator(LabelCells.from_pairs(f[lab] == 0, y[lab] == 0), n_resamples=10)
    for method in ("paper", "rogan_gladen"):
        value, reps = got[method]
        assert value == pytest.approx(float(calibrate_wrong(f.mean(), cal.point, method)))
        assert reps.shape == (200,) and np.isfinite(reps).mean() > 0.99
    empty = LabelMix.of([], [], [], [])
    (none,) = mix_corrections([MixItem(f, np.ones(200))], ids, ids, empty, n_resamples=50)
    assert math.isnan(none["paper"][0])

"""Judge reliability: agreement with humans and with the LLM majority, bias, calibration.

Inputs are long frames: verdicts (trace_id, judge, correct: nullable bool), ensemble members
(trace_id, ensemble, member, correct), human labels (trace_id, annotator, label). Unscored
verdicts (correct = None) and "unsure" labels drop out of every comparison; they are never
counted as "incorrect".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from agentprop.analysis._calibration import Calibrator, LabelCells, LabelMix
from agentprop.analysis._stats import (
    N_RESAMPLES,
    SEED,
    Estimate,
    Resampler,
    cohen_kappa,
    group_rng,
    krippendorff_alpha,
    small_sample_note,
)
from agentprop.analysis._tidy import frame, row

MAJORITY_NAMES = ("majority", "ensemble")
HUMAN = "human"
KEYS = ["judge", "reference"]

TaskMap = Mapping[str, str] | pd.Series
"""trace id → task id: a mapping, or a Series indexed by trace id (`task_map`'s)."""


def tasks_of(trace_ids: Sequence[Any] | pd.Index, tasks: TaskMap) -> np.ndarray:
    """The task id of each trace id, as strings (a trace not in `tasks` is its own task),
    looked up as columns, not one id at a time."""
    ids = np.asarray(trace_ids, dtype=object).astype(str)
    lookup = tasks if isinstance(tasks, pd.Series) else pd.Series(dict(tasks), dtype=object)
    if lookup.index.has_duplicates:  # as a dict built from the pairs: the last one wins
        lookup = lookup[~lookup.index.duplicated(keep="last")]
    found = lookup.reindex(pd.Index(ids, dtype=object)).to_numpy(dtype=object)
    return np.where(pd.isna(found), ids, found).astype(str)


def human_consensus(labels: pd.DataFrame) -> pd.Series:
    """One human verdict per trace (True = correct) from possibly several annotators.

    "unsure" is dropped; the majority of the remaining labels wins; a tie is broken by the
    lead annotator (the one with the most labels, then alphabetical). Empty → empty Series.
    """
    if labels.empty:
        return pd.Series(dtype="boolean", name=HUMAN)
    lab = labels[labels["label"].isin(["correct", "incorrect"])].copy()
    if lab.empty:
        return pd.Series(dtype="boolean", name=HUMAN)
    counts = lab["annotator"].value_counts()
    lead = sorted(counts.index, key=lambda a: (-int(counts[a]), str(a)))[0]
    lab["y"] = lab["label"] == "correct"
    agg = lab.groupby("trace_id")["y"].agg(["sum", "count"])
    out: dict[str, bool] = {}
    lead_map = lab[lab["annotator"] == lead].set_index("trace_id")["y"].to_dict()
    for tid, (yes, cnt) in agg.iterrows():
        if 2 * yes > cnt:
            out[str(tid)] = True
        elif 2 * yes < cnt:
            out[str(tid)] = False
        elif tid in lead_map:
            out[str(tid)] = bool(lead_map[tid])
    return pd.Series(out, dtype="boolean", name=HUMAN)


def majority_judge(verdicts: pd.DataFrame, members: pd.DataFrame | None = None) -> str | None:
    """The ensemble judge: the one with recorded members, else one named majority/ensemble."""
    if members is not None and not members.empty:
        return str(members["ensemble"].value_counts().index[0])
    names = set(verdicts["judge"]) if not verdicts.empty else set()
    for n in MAJORITY_NAMES:
        if n in names:
            return n
    return None


def _wide(verdicts: pd.DataFrame) -> pd.DataFrame:
    """trace × judge matrix of floats (1 correct, 0 wrong, NaN unscored/absent)."""
    if verdicts.empty:
        return pd.DataFrame()
    v = verdicts.drop_duplicates(["trace_id", "judge"], keep="last")
    vals = v["correct"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    return pd.DataFrame({"trace_id": v["trace_id"].to_numpy(), "judge": v["judge"].to_numpy(),
                         "y": vals}).pivot(index="trace_id", columns="judge", values="y")


def _as_col(s: pd.Series, index: pd.Index) -> np.ndarray:
    """A Series (nullable bool or float) aligned to `index` as floats with NaN."""
    if s.empty:
        return np.full(len(index), np.nan)
    f = s.astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    return np.asarray(pd.Series(f, index=s.index).reindex(index).to_numpy(dtype=float))


def _leave_one_out(members: pd.DataFrame, ensemble: str, member: str) -> pd.Series:
    """Majority of the other members per trace (ties and no votes → missing)."""
    m = members[(members["ensemble"] == ensemble) & (members["member"] != member)]
    m = m[m["correct"].notna()]
    if m.empty:
        return pd.Series(dtype=float)
    y = m["correct"].astype(bool).astype(int)
    g = pd.DataFrame({"t": m["trace_id"], "y": y}).groupby("t")["y"].agg(["sum", "count"])
    res = np.where(2 * g["sum"] > g["count"], 1.0,
                   np.where(2 * g["sum"] < g["count"], 0.0, np.nan))
    return pd.Series(res, index=g.index, dtype=float)


def _pair_rows(a: np.ndarray, b: np.ndarray, judge: str, ref: str, *, metric: str,
               n_resamples: int, seed: int, tasks: np.ndarray | None = None,
               extra: bool = True) -> list[dict[str, Any]]:
    """Agreement rows of judge `a` vs reference `b` (aligned float arrays, NaN dropped).

    With `tasks` (aligned task ids) and several compared traces on one task, every CI
    resamples tasks; otherwise traces. The stream is derived from (seed, judge, reference,
    metric), so the same comparison gets the same CI wherever it is computed."""
    keep = ~np.isnan(a) & ~np.isnan(b)
    keys = {"judge": judge, "reference": ref}
    key = f"{judge}~{ref}"
    av = a[keep] == 1
    bv = b[keep] == 1
    cl = tasks[keep] if tasks is not None else None
    if cl is not None and not pd.Series(cl).duplicated().any():
        cl = None
    rs = Resampler(np.column_stack([av, bv]).astype(float), clusters=cl,
                   n_resamples=n_resamples, rng=group_rng(seed, "judges", judge, ref, metric))
    k = rs.kappa(av, bv)
    # against human labels, a cell of the 2×2 under the floor makes every number indicative
    few = small_sample_note(k.table, f"{judge} against the human labels") \
        if ref == HUMAN else ""
    rows = [row(keys, key, metric, Estimate(k.kappa, k.n, k.boot_lo, k.boot_hi), note=few)]
    if not extra:
        return rows
    n = k.n
    rows.append(row(keys, key, f"{metric}_asymptotic", Estimate(k.kappa, n, k.asym_lo,
                                                                k.asym_hi), note=few))
    agree, js, refs, sens, spec = rs.ratios([
        (av == bv, None), (av, None), (bv, None), (av & bv, bv), (~av & ~bv, ~bv)])
    rows.append(row(keys, key, "agreement", agree, note=few))
    rows.append(row(keys, key, "judge_correct_share", js))
    rows.append(row(keys, key, "reference_correct_share", refs))
    rows.append(row(keys, key, "bias", js.value - refs.value if n else math.nan, n,
                    note="judge share correct − reference share correct"))
    tp, fp, fn, tn = k.table  # judge yes/ref yes, judge yes/ref no, judge no/ref yes, no/no
    for name, v in (("tp", tp), ("fp", fp), ("fn", fn), ("tn", tn)):
        rows.append(row(keys, key, name, v, n))
    rows.append(row(keys, key, "sensitivity", sens, note=few))
    rows.append(row(keys, key, "specificity", spec, note=few))
    # a judge's replies that were neither verdict (an LLM judge's non-YES/NO) are left out
    # of every number above, never counted as "wrong": how many, of the reference's
    # scored traces
    scored = ~np.isnan(b)
    rows.append(row(keys, key, "judge_unscored", int((np.isnan(a) & scored).sum()),
                    int(scored.sum())))
    return rows


def judge_agreement(
    verdicts: pd.DataFrame,
    labels: pd.DataFrame | None = None,
    *,
    members: pd.DataFrame | None = None,
    reference: str | None = None,
    tasks: TaskMap | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> pd.DataFrame:
    """κ (bootstrap CI; asymptotic as `kappa_asymptotic`) of every judge against:

    - the human labels (key `JUDGE~human`), when there are labels;
    - the LLM majority (key `JUDGE~majority`): `kappa` in-panel (the judge's own vote is in
      the majority) and, for panel members, `kappa_loo` against the majority of the others;
    - a stated `reference` judge (e.g. `facts` when there are no labels): `JUDGE~facts`.

    With each: agreement, judge/reference share correct, bias, confusion cells, sensitivity,
    specificity. Krippendorff's α among annotators (key `annotators`) and panel members
    (key `panel`). `tasks` (trace id → task id): when several compared traces share a task,
    the CIs resample tasks (κ from the table cells summed per task).
    """
    rows: list[dict[str, Any]] = []
    w = _wide(verdicts)
    judges = list(w.columns)
    col = {j: w[j].to_numpy(dtype=float) for j in judges}
    task_of = tasks_of(w.index, tasks) if tasks is not None else None
    opts: dict[str, Any] = {"n_resamples": n_resamples, "seed": seed, "tasks": task_of}
    human = human_consensus(labels) if labels is not None else pd.Series(dtype="boolean")
    if len(human):
        h = _as_col(human, w.index)
        for j in judges:
            rows += _pair_rows(col[j], h, str(j), HUMAN, metric="kappa", **opts)
    maj = majority_judge(verdicts, members)
    if maj is not None and maj in w.columns:
        panel = (set(members.loc[members["ensemble"] == maj, "member"].unique())
                 if members is not None and not members.empty else set())
        for j in judges:
            if j == maj:
                continue
            rows += _pair_rows(col[j], col[maj], str(j), str(maj), metric="kappa", **opts)
            if members is not None and j in panel:
                loo = _leave_one_out(members, maj, str(j))
                rows += _pair_rows(col[j], _as_col(loo, w.index), str(j), str(maj),
                                   metric="kappa_loo", extra=False, **opts)
        if members is not None and not members.empty:
            mm = members[members["ensemble"] == maj]
            pw = _wide(mm.rename(columns={"member": "judge"}))
            rows.append(row({"judge": "panel", "reference": ""}, "panel",
                            "krippendorff_alpha",
                            krippendorff_alpha(pw.to_numpy(dtype=float).T)))
    if reference is not None and reference in w.columns:
        for j in judges:
            if j != reference:
                rows += _pair_rows(col[j], col[reference], str(j), reference, metric="kappa",
                                   **opts)
    if labels is not None and not labels.empty and labels["annotator"].nunique() > 1:
        rows.append(row({"judge": "annotators", "reference": ""}, "annotators",
                        "krippendorff_alpha", annotator_alpha(labels)))
    return frame(rows, KEYS)


def _annotator_matrix(labels: pd.DataFrame) -> pd.DataFrame:
    """annotator × trace: 1.0 correct, 0.0 incorrect, NaN unlabelled or unsure."""
    lab = labels[labels["label"].isin(["correct", "incorrect"])]
    pw = lab.pivot_table(index="annotator", columns="trace_id", values="label",
                         aggfunc="first")
    return (pw == "correct").astype(float).where(pw.notna())


def annotator_alpha(labels: pd.DataFrame) -> Estimate:
    """Nominal Krippendorff's α among the annotators (n = traces labelled twice or more);
    NaN with fewer than two annotators."""
    if labels.empty or labels["annotator"].nunique() < 2:
        return Estimate(math.nan, 0)
    return krippendorff_alpha(_annotator_matrix(labels).to_numpy())


def annotator_kappas(labels: pd.DataFrame, *, n_resamples: int = N_RESAMPLES,
                     seed: int = SEED) -> list[dict[str, Any]]:
    """Cohen's κ for every pair of annotators on the traces both labelled ("unsure" left
    out): a, b, n, kappa with its bootstrap CI (ci_low, ci_high) and asymptotic CI."""
    m = _annotator_matrix(labels) if not labels.empty else pd.DataFrame()
    out: list[dict[str, Any]] = []
    names = sorted(map(str, m.index))
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            x, y = m.loc[a].to_numpy(dtype=float), m.loc[b].to_numpy(dtype=float)
            if not (~np.isnan(x) & ~np.isnan(y)).any():
                continue
            k = cohen_kappa(x, y, n_resamples=n_resamples,
                            rng=group_rng(seed, "annotators", a, b))
            out.append({"a": a, "b": b, "n": k.n, "kappa": k.kappa, "ci_low": k.boot_lo,
                        "ci_high": k.boot_hi, "asymptotic_ci_low": k.asym_lo,
                        "asymptotic_ci_high": k.asym_hi})
    return out


def calibration_pairs(verdicts: pd.DataFrame, labels: pd.DataFrame, judge: str) -> LabelCells:
    """Judge × human cells on the traces that have both (unscored/unsure dropped)."""
    human = human_consensus(labels)
    v = verdicts[(verdicts["judge"] == judge) & verdicts["correct"].notna()]
    j = v.set_index("trace_id")["correct"].astype(bool)
    both = pd.concat([j.rename("j"), human.rename("h")], axis=1, join="inner").dropna()
    return LabelCells.from_pairs(both["j"].astype(bool), both["h"].astype(bool))


def label_mix(verdicts: pd.DataFrame, labels: pd.DataFrame, judge: str,
              tasks: TaskMap) -> LabelMix:
    """The answer labels with `judge`'s verdict on them, per trace (the event is a wrong
    answer); `tasks`: trace id → task id (a trace not in it is its own task)."""
    human = human_consensus(labels)
    v = verdicts[(verdicts["judge"] == judge) & verdicts["correct"].notna()]
    j = v.drop_duplicates("trace_id", keep="last").set_index("trace_id")["correct"]
    both = pd.concat([j.astype(bool).rename("j"), human.rename("h")], axis=1,
                     join="inner").dropna()
    ids = [str(t) for t in both.index]
    return LabelMix.of(ids, tasks_of(ids, tasks), ~both["j"].astype(bool),
                       ~both["h"].astype(bool))


def calibration_table(cells: LabelCells, judge: str, *, n_resamples: int = N_RESAMPLES,
                      seed: int = SEED, note: str = "") -> pd.DataFrame:
    """The calibration factors of `judge` from its labels, with label-bootstrap CIs.

    `p_human_correct_given_judge_correct` / `..._judge_wrong` (the paper's method) and
    `sensitivity` / `specificity` (Rogan–Gladen), keyed by judge.
    """
    cal = Calibrator(cells, n_resamples=n_resamples, rng=seed)
    rows: list[dict[str, Any]] = []
    dens = {"a": cells.jc_hc + cells.jc_hw, "b": cells.jw_hc + cells.jw_hw,
            "se": cells.jc_hc + cells.jw_hc, "sp": cells.jc_hw + cells.jw_hw}
    names = {"a": "p_human_correct_given_judge_correct",
             "b": "p_human_correct_given_judge_wrong",
             "se": "sensitivity", "sp": "specificity"}
    for f, name in names.items():
        v = cal.factor(f)
        reps = cal.reps[f]
        finite = reps[np.isfinite(reps)]
        lo, hi = (np.quantile(finite, [0.025, 0.975]) if finite.size and math.isfinite(v)
                  else (math.nan, math.nan))
        rows.append(row({"judge": judge}, judge, name,
                        Estimate(v, dens[f], float(lo), float(hi)), note=note))
    rows.append(row({"judge": judge}, judge, "n_labels", cells.n, cells.n, note=note))
    return frame(rows, ["judge"])


def judges_in(verdicts: pd.DataFrame) -> Sequence[str]:
    return sorted(verdicts["judge"].unique()) if not verdicts.empty else []

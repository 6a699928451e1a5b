"""The report's figures (matplotlib, Agg backend), each saved as PNG and SVG."""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from agentprop.analysis import AnalysisResult
from agentprop.report._tables import hidden_metrics


def _sel(df: pd.DataFrame | None, metric: str, per_key: bool = True) -> pd.DataFrame:
    if df is None or df.empty:
        return pd.DataFrame(columns=["key", "value", "n", "ci_lo", "ci_hi"])
    sub = df[df["metric"] == metric]
    return sub[sub["key"] != ""] if per_key else sub


def _wrap(name: str, width: int = 28) -> str:
    """Long judge/ensemble names broken over lines (at commas first) so no label is cut."""
    text = str(name).replace(",", ", ")
    lines = textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)
    return "\n".join(lines) or str(name)


STAGE_NAMES = {"p_S1": "S1 injection applied", "p_S2": "S2 visible effect",
               "p_S3": "S3 wrong answer"}


def _err(sub: pd.DataFrame) -> np.ndarray:
    v, lo, hi = (sub[c].to_numpy(dtype=float) for c in ("value", "ci_lo", "ci_hi"))
    lo = np.where(np.isnan(lo), v, lo)
    hi = np.where(np.isnan(hi), v, hi)
    return np.nan_to_num(np.vstack([v - lo, hi - v]))


OUTCOME_STYLE = {  # outcome → (legend text, colour)
    "no_tool_call": ("no tool call", "#bdbdbd"),
    "not_applied": ("no visible effect", "#d9d9d9"),
    "noticed_recovered": ("noticed, recovered", "#1a9850"),
    "unnoticed_recovered": ("not noticed, recovered", "#91cf60"),
    "noticed_not_recovered": ("noticed, still wrong", "#fc8d59"),
    "propagated": ("propagated (not noticed, wrong)", "#d73027"),
}


def stopping_funnel(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    """The headline: per model, the share of injected traces ending in each outcome, stacked,
    each segment's CI drawn at its top."""
    st = res.tables.get("stopping")
    if st is None or st.empty:
        return None
    per = st[(st["key"] != "") & ~st["key"].astype(str).str.contains("|", regex=False)]
    keys = list(dict.fromkeys(per["key"]))
    if not keys:
        return None
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(keys) + 3), 4.5))
    x = np.arange(len(keys))
    bottom = np.zeros(len(keys))
    hidden = hidden_metrics(res.info).get("stopping", set())
    for outcome, (text, colour) in OUTCOME_STYLE.items():
        if outcome in hidden:
            continue
        sub = per[per["metric"] == outcome].set_index("key").reindex(keys)
        v = np.nan_to_num(sub["value"].to_numpy(dtype=float))
        ax.bar(x, v, 0.6, bottom=bottom, color=colour, label=text, edgecolor="white")
        lo = np.nan_to_num(sub["ci_lo"].to_numpy(dtype=float), nan=0.0)
        hi = np.nan_to_num(sub["ci_hi"].to_numpy(dtype=float), nan=0.0)
        shown = v > 0
        ax.errorbar(x[shown] + 0.22, (bottom + v)[shown],
                    yerr=np.vstack([v - lo, hi - v])[:, shown], fmt="none", ecolor="#333",
                    capsize=2, lw=0.8)
        bottom = bottom + v
    n = per[per["metric"] == "n"].set_index("key").reindex(keys)["value"]
    ax.set_xticks(x, [f"{_wrap(label(k), 16)}\n(n={int(v) if v == v else 0})" for k, v in
                      zip(keys, n, strict=True)], fontsize=8)
    ax.set_ylabel("share of injected traces")
    ax.set_ylim(0, 1.05)
    ax.set_title("Where the error stops, per model (95% CI, tasks resampled)", fontsize=10)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def stage_reach(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    """Stage reach per model, without the rates that are constant by construction (with
    neither p_S1 nor p_S2 left, the stopping funnel says it all: no figure)."""
    const = set(res.info.get("constant_by_construction") or [])
    if {"p_S1", "p_S2"} <= const:
        return None
    prop = res.tables.get("propagation")
    subs = {m: _sel(prop, m) for m in ("p_S1", "p_S2", "p_S3") if m not in const}
    first = next(iter(subs.values()))
    if first.empty:
        return None
    keys = list(first["key"])
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(keys) + 2), 4))
    width = 0.27
    x = np.arange(len(keys))
    for i, (m, sub) in enumerate(subs.items()):
        sub = sub.set_index("key").reindex(keys).reset_index()
        ax.bar(x + (i - (len(subs) - 1) / 2) * width,
               np.nan_to_num(sub["value"].to_numpy(dtype=float)), width,
               yerr=_err(sub), capsize=2, label=STAGE_NAMES[m])
    ax.set_xticks(x, [label(k) for k in keys], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("share of injected traces")
    ax.set_ylim(0, 1.05)
    ax.set_title("Stage reach per model (95% bootstrap CI)", pad=24)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8,
              frameon=False)
    fig.tight_layout()
    return fig


def rejection_vs_recovery(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    """Noticed vs recovered per model (our runs); the paper's rejection (1 − p_S1) vs
    recovery where noticing cannot be measured (imported release data)."""
    rr = res.tables.get("rejection_recovery")
    if rr is None or rr.empty:
        return None
    w = rr[rr["key"] != ""].pivot_table(index="key", columns="metric", values="value")
    ours = "noticed" in w and bool(w["noticed"].notna().any())
    xcol, rho_name, p_name = (("noticed", "spearman_rho_ours", "spearman_p_ours") if ours
                              else ("rejection", "spearman_rho", "spearman_p"))
    if xcol not in w or "recovery" not in w:
        return None
    w = w.dropna(subset=[xcol, "recovery"])
    if w.empty:
        return None
    fig, ax = plt.subplots(figsize=(6, 4.5))
    n_s2 = w.get("n_S2", pd.Series(1.0, index=w.index)).fillna(0).to_numpy(dtype=float)
    sizes = 20 + 220 * n_s2 / max(1.0, float(n_s2.max()))
    ax.scatter(w[xcol], w["recovery"], s=sizes, alpha=0.6)
    placed: list[tuple[float, float]] = []
    for k, r in w.iterrows():
        x0, y0 = float(r[xcol]), float(r["recovery"])
        # labels of points close together are stacked instead of drawn on top of each other
        near = sum(abs(x0 - a) < 0.08 and abs(y0 - b) < 0.04 for a, b in placed)
        placed.append((x0, y0))
        ax.annotate(label(str(k)), (x0, y0), fontsize=7, xytext=(5, 3 - 9 * near),
                    textcoords="offset points")
    rho = rr[(rr["key"] == "") & (rr["metric"] == rho_name)]["value"]
    p = rr[(rr["key"] == "") & (rr["metric"] == p_name)]["value"]
    title = ("Noticed P(noticed | S2) vs recovered (1 − r_23); size ∝ n_S2" if ours else
             "Rejection (1 − p_S1) vs recovery (1 − r_23); size ∝ n_S2")
    if len(rho) and not math.isnan(float(rho.iloc[0])):
        title += f"\nSpearman ρ = {float(rho.iloc[0]):.3f}, p = {float(p.iloc[0]):.3f}"
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("noticed after the corruption reached the observation" if ours
                  else "rejection rate")
    ax.set_ylabel("recovery rate (right answer after S2)")
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    fig.tight_layout()
    return fig


def interceptor_effect(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    it = res.tables.get("interceptor")
    c, t = _sel(it, "hallucination_control"), _sel(it, "hallucination_treatment")
    if c.empty:
        return None
    keys = list(c["key"])
    t = t.set_index("key").reindex(keys).reset_index()
    x = np.arange(len(keys))
    fig, ax = plt.subplots(figsize=(max(5, 1.5 * len(keys) + 2), 4))
    ax.bar(x - 0.2, c["value"].to_numpy(dtype=float), 0.4, yerr=_err(c), capsize=3,
           label="control")
    ax.bar(x + 0.2, np.nan_to_num(t["value"].to_numpy(dtype=float)), 0.4, yerr=_err(t),
           capsize=3, label="interceptor")
    ax.set_xticks(x, [label(k) for k in keys], fontsize=8)
    ax.set_ylabel("hallucination rate (wrong, not abstained)")
    ax.set_ylim(0, 1)
    ax.set_title("Interceptor effect, paired arms (95% bootstrap CI)")
    ax.legend()
    fig.tight_layout()
    return fig


def judge_kappa(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    j = res.tables.get("judges")
    sub = _sel(j, "kappa")
    if sub.empty:
        return None
    refs = sub["reference"].unique()
    ref = "human" if "human" in refs else refs[0]
    sub = sub[sub["reference"] == ref]
    fig, ax = plt.subplots(figsize=(7, max(2.5, 0.5 * len(sub) + 1.5)))
    y = np.arange(len(sub))
    ax.errorbar(np.nan_to_num(sub["value"].to_numpy(dtype=float)), y, xerr=_err(sub),
                fmt="o", capsize=3)
    ax.set_yticks(y, [f"{_wrap(k)} (n={n})" for k, n in zip(sub["judge"], sub["n"],
                                                             strict=True)], fontsize=8)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlim(-1, 1)
    ax.set_xlabel(f"Cohen's κ (95% bootstrap CI) vs reference:\n{_wrap(ref, 60)}",
                  fontsize=9)
    fig.tight_layout()
    return fig


def confusion(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    j = res.tables.get("judges")
    if j is None or j.empty:
        return None
    primary = str(res.info.get("primary_judge", ""))
    cm = j[j["metric"].isin(["tp", "fp", "fn", "tn"])]
    pairs = list(dict.fromkeys(zip(cm["judge"], cm["reference"], strict=True)))
    # the primary judge against humans, else any judge against humans, else the primary
    # judge against the LLM majority, else any judge against the stated reference
    order = [(primary, "human")] + [p for p in pairs if p[1] == "human"] + \
        [p for p in pairs if p[0] == primary] + \
        [p for p in pairs if p[1] == str(res.info.get("agreement_reference") or "")]
    pick = next((p for p in order if p in pairs), None)
    if pick is None:
        return None
    judge, ref = pick
    cells = cm[(cm["judge"] == judge) & (cm["reference"] == ref)]
    v = cells.set_index("metric")["value"]
    m = np.array([[v["tp"], v["fp"]], [v["fn"], v["tn"]]])
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    ax.imshow(m, cmap="Blues", vmin=0)
    dark = float(m.max()) * 0.6
    for (r, c), val in np.ndenumerate(m):
        ax.text(c, r, f"{int(val)}", ha="center", va="center",
                color="white" if val > dark else "black")
    jn, rn = _wrap(judge, 30), _wrap(ref, 30)
    ax.set_xticks([0, 1], ["says correct", "says wrong"], fontsize=8)
    ax.set_yticks([0, 1], ["says correct", "says wrong"], fontsize=8)
    ax.set_xlabel(f"reference: {rn}", fontsize=8)
    ax.set_ylabel(f"judge: {jn}", fontsize=8)
    ax.set_title(f"Judge vs reference (n={int(m.sum())})", fontsize=9)
    fig.tight_layout()
    return fig


FIGURES: dict[str, Callable[[AnalysisResult, Callable[[str], str]], Figure | None]] = {
    "stopping_funnel": stopping_funnel,
    "stage_reach": stage_reach,
    "rejection_vs_recovery": rejection_vs_recovery,
    "interceptor_effect": interceptor_effect,
    "judge_kappa": judge_kappa,
    "confusion_matrix": confusion,
}


def render_figures(res: AnalysisResult, out: Path,
                   label: Callable[[str], str]) -> dict[str, bytes]:
    """Write figures/NAME.png and .svg under `out`; return PNG bytes by name."""
    out.mkdir(parents=True, exist_ok=True)
    pngs: dict[str, bytes] = {}
    for name, make in FIGURES.items():
        fig = make(res, label)
        if fig is None:
            continue
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=110)
        pngs[name] = buf.getvalue()
        (out / f"{name}.png").write_bytes(pngs[name])
        fig.savefig(out / f"{name}.svg", format="svg")
        plt.close(fig)
    return pngs

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


def stage_reach(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    prop = res.tables.get("propagation")
    subs = {m: _sel(prop, m) for m in ("p_S1", "p_S2", "p_S3")}
    if subs["p_S1"].empty:
        return None
    keys = list(subs["p_S1"]["key"])
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(keys) + 2), 4))
    width = 0.27
    x = np.arange(len(keys))
    for i, (m, sub) in enumerate(subs.items()):
        sub = sub.set_index("key").reindex(keys).reset_index()
        ax.bar(x + (i - 1) * width, np.nan_to_num(sub["value"].to_numpy(dtype=float)), width,
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
    rr = res.tables.get("rejection_recovery")
    if rr is None or rr.empty:
        return None
    w = rr[rr["key"] != ""].pivot_table(index="key", columns="metric", values="value")
    if "rejection" not in w or "recovery" not in w:
        return None
    w = w.dropna(subset=["rejection", "recovery"])
    if w.empty:
        return None
    fig, ax = plt.subplots(figsize=(6, 4.5))
    n_s2 = w.get("n_S2", pd.Series(1.0, index=w.index)).fillna(0).to_numpy(dtype=float)
    sizes = 20 + 220 * n_s2 / max(1.0, float(n_s2.max()))
    ax.scatter(w["rejection"], w["recovery"], s=sizes, alpha=0.6)
    placed: list[tuple[float, float]] = []
    for k, r in w.iterrows():
        x0, y0 = float(r["rejection"]), float(r["recovery"])
        # labels of points close together are stacked instead of drawn on top of each other
        near = sum(abs(x0 - a) < 0.08 and abs(y0 - b) < 0.04 for a, b in placed)
        placed.append((x0, y0))
        ax.annotate(label(str(k)), (x0, y0), fontsize=7, xytext=(5, 3 - 9 * near),
                    textcoords="offset points")
    rho = rr[(rr["key"] == "") & (rr["metric"] == "spearman_rho")]["value"]
    p = rr[(rr["key"] == "") & (rr["metric"] == "spearman_p")]["value"]
    title = "Rejection (1 − p_S1) vs recovery (1 − r_23); size ∝ n_S2"
    if len(rho) and not math.isnan(float(rho.iloc[0])):
        title += f"\nSpearman ρ = {float(rho.iloc[0]):.3f}, p = {float(p.iloc[0]):.3f}"
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("rejection rate")
    ax.set_ylabel("recovery rate")
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

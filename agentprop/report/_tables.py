"""Tidy analysis tables → reader tables (key × metric, "value [lo, hi] n=…") in md/tex/csv."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

# metrics shown per section (in this order); anything else stays in the CSV
DISPLAY: dict[str, list[str]] = {
    "propagation": ["n", "p_S1", "p_S2", "p_S3", "r_12", "r_23", "inj_to_err", "noticed",
                    "noticed_false_alarm", "noticed_delta", "recovered", "no_tool_share",
                    "fabricated", "correction_rate", "noticed_requery", "noticed_verify",
                    "noticed_clarify", "noticed_abstain", "noticed_mention", "r_23_cal_paper",
                    "r_23_cal_rogan_gladen", "inj_to_err_cal_paper",
                    "inj_to_err_cal_rogan_gladen"],
    "stopping": ["n", "no_tool_call", "not_applied", "noticed_recovered",
                 "unnoticed_recovered", "noticed_not_recovered", "propagated", "n_undecided"],
    "propagation_by_type": ["n", "p_S1", "p_S2", "r_23", "inj_to_err", "noticed", "recovered",
                            "no_tool_share"],
    "fault_classes": ["n", "p_S2", "r_23", "noticed", "correction_rate", "noticed_abstain",
                      "fabricated", "fabricated_given_S2", "no_tool_share"],
    "rejection_recovery": ["rejection", "noticed", "recovery", "no_tool_share",
                           "rejection_given_tool_call", "correction_rate", "n_S2",
                           "spearman_rho", "spearman_p", "spearman_rho_ours", "spearman_p_ours"],
    "baseline_vs_p2": ["baseline_correct", "p2_injected_correct", "p2_all_correct",
                       "matched_baseline_correct", "matched_p2_injected_correct",
                       "matched_delta"],
    "interceptor": ["n_pairs", "hallucination_control", "hallucination_treatment",
                    "delta_hallucination", "saved", "broken", "correct_control",
                    "correct_treatment", "abstention_treatment", "coverage_treatment",
                    "selective_accuracy_treatment", "mcnemar_p", "ztest_p", "cohens_h",
                    "power"],
    "interceptor_sweep": ["precision", "recall", "f1", "abstention", "best_f1"],
    "interceptor_layers": ["L1", "L2", "L3", "any", "caught_wrong"],
    "judges": ["kappa", "kappa_loo", "kappa_asymptotic", "agreement", "judge_correct_share",
               "reference_correct_share", "bias", "tp", "fp", "fn", "tn",
               "krippendorff_alpha"],
    "calibration": ["p_human_correct_given_judge_correct", "p_human_correct_given_judge_wrong",
                    "sensitivity", "specificity", "n_labels"],
    "replication": ["correct_core", "correct_retail", "inj_to_err_core", "inj_to_err_retail",
                    "spearman_correct", "kendall_correct", "spearman_inj_to_err",
                    "kendall_inj_to_err"],
}

COUNT_METRICS = {"n", "n_S1", "n_S2", "n_pairs", "saved", "broken", "tp", "fp", "fn", "tn",
                 "n_labels", "n_error", "n_tasks", "n_no_stage_info", "n_undecided",
                 "false_alarms", "n_control_correct"}

CONSTANT_NOTE = "1 by construction: the runtime applies the corruption"
PAPER_REJECTION = ("rejection", "rejection_given_tool_call", "spearman_rho", "spearman_p")


def hidden_metrics(info: dict[str, object]) -> dict[str, set[str]]:
    """Per section, the metrics not shown because they are constant by construction in
    this workspace's own runs (they stay in numbers.json and the CSV tables)."""
    const = set(info.get("constant_by_construction") or [])  # type: ignore[call-overload]
    if not const:
        return {}
    hidden = {"propagation": set(const), "propagation_by_type": set(const)}
    if "p_S1" in const:  # the paper's rejection = 1 − p_S1 is then 0 for every model
        hidden["rejection_recovery"] = set(PAPER_REJECTION)
    if "p_S2" in const:  # every tool-using trace saw the corruption: "not applied" is 0
        hidden["stopping"] = {"not_applied"}
    return hidden


def constant_sentence(info: dict[str, object]) -> str:
    """The one sentence that says which rates are constant and why ("" if none)."""
    const = list(info.get("constant_by_construction") or [])  # type: ignore[call-overload]
    if not const:
        return ""
    names = ", ".join(const[:-1]) + (" and " if len(const) > 1 else "") + const[-1]
    extra = (" (so the paper's rejection = 1 − p_S1 is 0; here rejection is noticed)"
             if "p_S1" in const else "")
    return f"{names} are {CONSTANT_NOTE}{extra}; they are not shown, numbers.json keeps them."
P_METRICS = {"spearman_p", "spearman_p_ours", "mcnemar_p", "mcnemar_midp", "ztest_p"}


def fmt_cell(metric: str, value: float, n: int, lo: float, hi: float) -> str:
    """One number as a reader sees it; undefined values say so, with their n."""
    if metric in COUNT_METRICS:
        return "—" if math.isnan(value) else f"{int(value)}"
    if math.isnan(value):
        return f"undefined (n={n})"
    if metric in P_METRICS:
        txt = f"{value:.3g}" if value >= 0.001 else f"{value:.1e}"
        return f"{txt} (n={n})"
    s = f"{value:.3f}"
    if not (math.isnan(lo) or math.isnan(hi)):
        s += f" [{lo:.3f}, {hi:.3f}]"
    return s + f" (n={n})"


def display_table(df: pd.DataFrame, section: str, *,
                  labels: dict[str, str] | None = None,
                  hidden: set[str] | None = None) -> pd.DataFrame:
    """key × metric strings for one section (empty frame if nothing to show); `hidden`
    metrics are left out (see `hidden_metrics`)."""
    if df is None or df.empty:
        return pd.DataFrame()
    metrics = [m for m in DISPLAY.get(section, sorted(df["metric"].unique()))
               if m in set(df["metric"]) and m not in (hidden or set())]
    sub = df[df["metric"].isin(metrics)]
    keys = list(dict.fromkeys(sub["key"]))
    out = pd.DataFrame(index=[(labels or {}).get(k, k) or "pooled" for k in keys],
                       columns=metrics, dtype=object)
    out[:] = ""
    for r in sub.to_dict("records"):
        k = str(r["key"])
        label = (labels or {}).get(k, k) or "pooled"
        out.loc[label, str(r["metric"])] = fmt_cell(str(r["metric"]), float(r["value"]),
                                                    int(r["n"]), float(r["ci_lo"]),
                                                    float(r["ci_hi"]))
    out.index.name = "key"
    return out


def to_markdown(t: pd.DataFrame) -> str:
    if t.empty:
        return "_no data_\n"
    cols = [str(t.index.name or ""), *map(str, t.columns)]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for idx, r in t.iterrows():
        cells = [str(idx), *(str(v) for v in r.tolist())]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
        "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}


def tex_escape(s: str) -> str:
    return "".join(_TEX.get(c, c) for c in s)


def to_latex(t: pd.DataFrame, caption: str) -> str:
    """A booktabs table (needs \\usepackage{booktabs})."""
    if t.empty:
        return f"% {tex_escape(caption)}: no data\n"
    cols: Sequence[str] = [str(t.index.name or ""), *map(str, t.columns)]
    out = ["\\begin{table}[t]", "\\centering", "\\small",
           f"\\caption{{{tex_escape(caption)}}}",
           "\\begin{tabular}{l" + "r" * len(t.columns) + "}", "\\toprule",
           " & ".join(tex_escape(c) for c in cols) + " \\\\", "\\midrule"]
    for idx, r in t.iterrows():
        out.append(" & ".join(tex_escape(str(c)) for c in [idx, *r.tolist()]) + " \\\\")
    out += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(out) + "\n"

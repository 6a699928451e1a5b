"""Report section: Interceptor A/B (paired control vs treatment)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from agentprop._text import stack
from agentprop.analysis import AnalysisContext, AnalysisResult, interceptor_ab
from agentprop.report._figures import error_bars_within, mark_bars, panels, select, wrap
from agentprop.report._section import Section, SectionFigure, register


def interceptor_effect(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    """Hallucination per arm: one panel per model (its conditions side by side, then all
    of them pooled), so no label crowds another; a rate of 0 is drawn, an undefined one
    says n/a."""
    it = res.tables.get("interceptor")
    c = select(it, "hallucination_control")
    if c.empty:
        return None
    t = select(it, "hallucination_treatment").set_index("key")
    models = list(dict.fromkeys(str(k).split("|", 1)[0] for k in c["key"]))
    groups = {m: [k for k in c["key"] if str(k).split("|", 1)[0] == m] for m in models}
    for keys in groups.values():  # the pooled key last, after its conditions
        keys.sort(key=lambda k: ("|" not in str(k), str(k)))
    most = max(len(k) for k in groups.values())
    fig, axes = panels(len(models), (1.2 * most + 0.9, 3.4))
    cs = c.set_index("key")
    for ax, m in zip(axes, models, strict=True):
        keys = groups[m]
        x = np.arange(len(keys))
        for shift, arm, colour, name in ((-0.2, cs, "#1f77b4", "control"),
                                         (0.2, t, "#ff7f0e", "interceptor")):
            sub = arm.reindex(keys).reset_index()
            v = sub["value"].to_numpy(dtype=float)
            ax.bar(x + shift, np.nan_to_num(v), 0.4, yerr=error_bars_within(sub), capsize=3,
                   color=colour, label=name)
            mark_bars(ax, list(x + shift), [float(a) for a in v], 0.4, colour)
        ticks = [stack(str(k).split("|", 1)[1], 12) if "|" in str(k) else
                 ("all conditions" if len(keys) > 1 else "") for k in keys]
        ax.set_xticks(x, ticks, fontsize=8)
        ax.set_xlim(-0.6, len(keys) - 0.4)
        ax.set_title(wrap(label(m), 24), fontsize=9)
    for ax in axes[::3]:  # the first panel of each row
        ax.set_ylabel("hallucination rate\n(wrong, not abstained)", fontsize=9)
    axes[0].set_ylim(0, 1.05)
    axes[min(2, len(axes) - 1)].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0),
                                       fontsize=8, frameon=False)
    fig.suptitle("Interceptor effect, paired arms (95% bootstrap CI)", fontsize=10)
    fig.tight_layout()
    return fig


def interceptor_conditions(stages: pd.DataFrame) -> list[str]:
    """The conditions that have interceptor arms (the A/B table pools over them)."""
    if stages.empty or "arm" not in stages or "condition" not in stages:
        return []
    arms = stages[stages["arm"].fillna("").isin(["control", "treatment"])]
    return sorted(set(arms["condition"].astype(str)))


def conditions_note(result: AnalysisResult, stages: pd.DataFrame) -> str:
    conditions = interceptor_conditions(stages)
    if not conditions:
        return ""
    return ('<p class="muted">Conditions run with both arms: '
            + escape(", ".join(conditions)) + ".</p>")


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return interceptor_ab(ctx.stages, n_resamples=ctx.n_resamples, seed=ctx.seed,
                          evaluations=ctx.inp.workspace.interceptor_evaluations,
                          guards=ctx.inp.workspace.guard_evaluations)


SECTION = register(Section(
    name="interceptor",
    title="Interceptor A/B (paired control vs treatment)",
    compute=compute,
    order=90,
    explain=("Hallucination = wrong and not abstained. Saved: control hallucinated, treatment "
             "did not; broken: the reverse. Pairs are the same model, task, condition and "
             "seed in both arms; Δ = treatment − control with a paired bootstrap by task."),
    columns=("n_pairs", "hallucination_control", "hallucination_treatment",
             "delta_hallucination", "saved", "broken", "correct_control", "correct_treatment",
             "abstention_treatment", "coverage_treatment", "selective_accuracy_treatment",
             "mcnemar_p", "ztest_p", "cohens_h", "power"),
    key_columns=("model", "condition"),
    key_separator="|",
    groups=(("n_pairs", "hallucination_control", "hallucination_treatment",
             "delta_hallucination", "saved", "broken"),
            ("correct_control", "correct_treatment", "abstention_treatment",
             "coverage_treatment", "selective_accuracy_treatment")),
    lead=conditions_note,
    figures=(
        SectionFigure("interceptor_effect",
                      "Hallucination rate per arm, per model.",
                      interceptor_effect),
    ),
))

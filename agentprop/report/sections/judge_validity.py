"""Report section: the validity card of every judge and detector.

A card holds what it takes to trust an instrument's numbers: Cohen's κ with its CI against
human labels (judges/validity.json for the judges, judges/detectors.json for the
detectors; bench/bench_judge_validity.py, bench_noticed.py, bench_fabricated.py), whether
those labels were held out, who made them, when and by what rule; the false-alarm rate on
the labels and, for the detectors, on this workspace's clean (baseline) traces; the stress
tests' flip rates (judges/stress.json, bench/bench_stress.py); and the rates of this
workspace measured through it. Only the clean-run false alarms come from the workspace;
the rest is measured once on the shipped sets. An instrument without a card is named in
the notes of the rates measured through it ("unvalidated"). The page states the primary
judge's κ where it names the judge, and shows the cards in a table of their own.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

import pandas as pd

from agentprop.analysis import (
    AnalysisContext,
    AnalysisResult,
    Estimate,
    proportion_ci,
    tidy_frame,
    tidy_row,
)
from agentprop.analysis._corrected import ARM_RATES, RATES
from agentprop.analysis._stats import group_rng
from agentprop.report._section import Section, register

NAME = "judge_validity"
STATED = ("accuracy", "false_accept_rate", "false_reject_rate")
"""Figures the page states beside κ (the table's leading columns; not in numbers.json)."""
DETECTORS = ("noticed", "fabricated")
MEASURES = {"noticed": "the agent noticed a problem (text rules)",
            "fabricated": "the answer states a value no observation supports (rule)"}


def _float(v: object) -> float:
    return math.nan if v is None else float(v)  # type: ignore[arg-type]


def rates_through(ctx: AnalysisContext, instrument: str) -> list[str]:
    """The rates of this workspace measured through `instrument`."""
    if instrument == str(ctx.inp.primary_judge):
        return [r.name for r in RATES if r.question == "answer"] + list(ARM_RATES)
    return [r.name for r in RATES if r.question == instrument]


def _false_alarm(figures: Any) -> Estimate:
    """On the labels: a judge's false alarm rejects a correct answer (its event is a wrong
    one); a detector's flags what a human did not see."""
    if figures.get("false_alarm_rate") is not None:
        n = figures.get("negatives") or 0
        return Estimate(_float(figures["false_alarm_rate"]), int(n))
    return Estimate(_float(figures.get("false_reject_rate")), int(figures.get("right") or 0))


def _clean(ctx: AnalysisContext, instrument: str) -> Estimate | None:
    """The detector's rate on this workspace's baseline traces (nothing was injected:
    every flag there is a false alarm, or the agent's own trouble), tasks resampled."""
    if instrument not in DETECTORS or ctx.stages.empty:
        return None
    st = ctx.stages
    base = st[(st["condition"] == "baseline") & (st["arm"].fillna("") == "")
              & ~st["error"].fillna(False).astype(bool) & st[instrument].notna()]
    if base.empty:
        return Estimate(math.nan, 0)
    return proportion_ci(base[instrument].astype(bool).to_numpy(),
                         clusters=base["task_id"].astype(str).to_numpy(),
                         n_resamples=ctx.n_resamples,
                         rng=group_rng(ctx.seed, "validity", instrument, "clean"))


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    """Per instrument with a measured κ: κ (the card's headline), the false-alarm rates,
    the flip rate under every perturbation (`flip_<name>`) and the test–retest."""
    validity = ctx.inp.judge_validity
    if validity is None:
        return None
    rows = []
    for judge, v in validity.judges.items():
        if v.get("kappa") is None:
            continue
        # an instrument measured on its own set (the agree judge's) states its task count
        tasks = v.get("tasks", validity.tasks if judge not in DETECTORS else None)
        keys = {"judge": judge, "tasks": tasks,
                **{k: _float(v.get(k)) for k in STATED},
                "held_out": bool(validity.held_out.get(judge, False)),
                "labels": validity.labels.get(judge, ""),
                "rates": ", ".join(rates_through(ctx, judge))}
        rows.append(tidy_row(keys, judge, "kappa",
                             Estimate(float(v["kappa"]), int(v.get("n") or 0),
                                      _float(v.get("kappa_lo")), _float(v.get("kappa_hi")))))
        rows.append(tidy_row(keys, judge, "false_alarm_rate", _false_alarm(v),
                             note="on the labelled set"))
        clean = _clean(ctx, judge)
        if clean is not None:
            rows.append(tidy_row(keys, judge, "false_alarm_clean", clean,
                                 note="on this workspace's baseline traces"))
        real = validity.real_text.get(judge)
        if real:
            rows.append(tidy_row(keys, judge, "kappa_real_text",
                                 Estimate(_float(real.get("kappa")), int(real.get("n") or 0),
                                          _float(real.get("kappa_lo")),
                                          _float(real.get("kappa_hi"))),
                                 note=_real_note(real, validity.real_text.get("_source"))))
        for p, r in validity.stress.get(judge, {}).items():
            name = "retest" if p == "retest" else f"flip_{p}"
            should = "should not move" if r.get("expect") == "stable" else "should move"
            rows.append(tidy_row(keys, judge, name, Estimate(_float(r.get("rate")),
                                                             int(r.get("n") or 0)),
                                 note=should))
    cols = ["judge", "tasks", *STATED, "held_out", "labels", "rates"]
    return tidy_frame(rows, cols) if rows else None


def _real_note(real: Any, source: Any) -> str:
    """Where the real-text figures come from and what moves κ there: the prevalence of
    the positive class and the recall of each class (a tiny model's answers are mostly
    wrong, so κ alone misleads)."""
    src = source or {}
    model = str(src.get("model") or "a real model").split(" (")[0]
    pos, neg = real.get("positive") or {}, real.get("negative") or {}
    prev = real.get("prevalence")
    return (f"{model}'s text"
            + (f", prevalence {prev:.2f}" if prev is not None else "")
            + f"; recall on positives {_fmt(_float(pos.get('recall')))} "
            f"(n={int(pos.get('n') or 0)}), on negatives {_fmt(_float(neg.get('recall')))} "
            f"(n={int(neg.get('n') or 0)})")


def _fmt(v: float, digits: int = 2) -> str:
    return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def _worst(sub: pd.DataFrame, stable: bool) -> str:
    """The worst flip rate of one family: the largest where nothing should move, the
    smallest where the verdict should."""
    want = "should not move" if stable else "should move"
    fam = sub[sub["metric"].str.startswith("flip_") & (sub["note"] == want) & (sub["n"] > 0)]
    if fam.empty:
        return "—"
    r = fam.sort_values("value", ascending=not stable, kind="stable").iloc[0]
    return f"{r['value']:.2f} ({r['metric'][5:]}, n={int(r['n'])})"


def _pick(sub: pd.DataFrame, metric: str) -> pd.Series | None:
    hit = sub[sub["metric"] == metric]
    return None if hit.empty else hit.iloc[0]


FIELDS = ("κ [95 % CI] (n)", "labels held out", "false alarms", "worst stable flip",
          "weakest must-flip", "retest", "on real model text", "rates through it", "labels")


def reader(df: pd.DataFrame) -> pd.DataFrame:
    """The cards, one field per row (instrument, field, value): narrow enough for a
    terminal, whatever the labels' provenance says."""
    out = []
    for judge, sub in df.groupby("judge", sort=False):
        k, fa, clean, retest, real = (_pick(sub, m) for m in (
            "kappa", "false_alarm_rate", "false_alarm_clean", "retest", "kappa_real_text"))
        assert k is not None
        values = (
            f"{_fmt(k['value'])} [{_fmt(k['ci_lo'])}, {_fmt(k['ci_hi'])}] (n={int(k['n'])})",
            "yes" if bool(k["held_out"]) else "no (development set)",
            (f"{_fmt(fa['value'])} on the labels" if fa is not None else "—")
            + (f"; {_fmt(clean['value'])} on clean runs (n={int(clean['n'])})"
               if clean is not None else ""),
            _worst(sub, True), _worst(sub, False),
            _fmt(retest["value"]) if retest is not None else "—",
            (f"κ {_fmt(real['value'])} [{_fmt(real['ci_lo'])}, {_fmt(real['ci_hi'])}] "
             f"(n={int(real['n'])}; {real['note']})") if real is not None else "—",
            str(k["rates"]) or "—", str(k["labels"]) or "—")
        out += [{"instrument": judge, "field": f, "value": v}
                for f, v in zip(FIELDS, values, strict=True)]
    t = pd.DataFrame(out, columns=["instrument", "field", "value"])
    return t.set_index("instrument")


def page_table(t: pd.DataFrame) -> str:
    """One card per instrument: a small table of its fields."""
    if t.empty:
        return "<p><em>No instrument has a measured validity.</em></p>"
    cards = []
    for name in dict.fromkeys(map(str, t.index)):
        sub = t[t.index.astype(str) == name]
        rows = "".join(f'<tr><td class="k">{escape(str(r["field"]))}</td>'
                       f"<td>{escape(str(r['value']))}</td></tr>" for _, r in sub.iterrows())
        cards.append(f'<table class="card"><tr><th colspan="2">{escape(str(name))}</th></tr>'
                     f"{rows}</table>")
    return f'<div id="cards">{"".join(cards)}</div>'


def judge_note(res: AnalysisResult, judge: str) -> str:
    """", measured against N hand-labelled answers: κ … [CI], …" ("" when not measured)."""
    t = res.tables.get(NAME)
    hit = t[(t["key"] == judge) & (t["metric"] == "kappa")] if t is not None else None
    if hit is None or hit.empty:
        return ""
    v = hit.iloc[0]
    need = ("value", "ci_lo", "ci_hi", *STATED)
    if any(pd.isna(v[k]) for k in need):
        return ""
    tasks = "?" if pd.isna(v["tasks"]) else str(int(v["tasks"]))
    suite = " of the suite, not your questions" if res.info.get("user_tools") else ""
    return (f" (measured against {int(v['n'])} hand-labelled answers to "
            f"{escape(tasks)} tasks{suite}: "
            f"κ {v['value']:.2f} [{v['ci_lo']:.2f}, {v['ci_hi']:.2f}], accuracy "
            f"{v['accuracy']:.2f}, false accepts {100 * v['false_accept_rate']:.1f} %, false "
            f"rejects {100 * v['false_reject_rate']:.1f} %; docs/judges.md)")


def user_lead(res: AnalysisResult, stages: pd.DataFrame) -> str:
    """On a workspace of the user's own questions: the cards are the suite's, not theirs."""
    if not res.info.get("user_tools"):
        return ""
    return ('<p class="note">These cards were measured on the suite\'s hand-labelled '
            "answers, not on your questions: they tell how far an instrument is trusted on "
            "the suite's tasks. None is measured on your server's answers; to measure the "
            "judge there, label a sample of them (agentprop label sample, then agentprop "
            "label serve).</p>")


def fact(res: AnalysisResult) -> str:
    """The instruments of this workspace's rates without a card (`info["unvalidated"]`)."""
    missing = res.info.get("unvalidated") or []
    if not missing:
        return ""
    return ('<span class="bad">unvalidated: ' + escape(", ".join(missing))
            + " has no validity card (no κ against human labels); every rate measured "
            "through it is unvalidated</span>")


SECTION = register(Section(
    name=NAME,
    title="Validity cards: every judge and detector",
    compute=compute,
    order=910,  # after every measured section: it is not measured on this workspace
    explain=("What it takes to trust each instrument: its Cohen's κ against human labels "
             "(held out or not, and who made them, when, by what rule), its false alarms "
             "(on the labels; for the detectors also on this workspace's baseline traces), "
             "the stress tests' flip rates (meaning-preserving perturbations should not "
             "move a verdict, meaning-changing ones should), an LLM judge's test–retest, "
             "and the rates of this workspace measured through it. docs/judges.md, "
             "\"Validity cards\"."),
    reader=reader,
    page_table=page_table,
    judge_note=judge_note,
    fact=fact,
    lead=user_lead,
))


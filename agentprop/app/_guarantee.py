"""The interceptor's threshold with a guarantee: `intercept sweep --max-false-abstain α`.

The sweep's table already counts, per configuration, its firings on the val answers judged
right (`fp`, out of `fp + tn`) and on the wrong ones (`tp`). Learn-then-Test
(`analysis.ltt_select`) turns those counts into a choice whose false-abstain risk
P(abstain | the answer would be right) is ≤ α with confidence 1 − δ, choosing among the
valid configurations the one that catches the most hallucinations. The promise is about
answers like val's, so the rate is then measured where it was not tuned: the held-out
split's un-intercepted traces judged right, and the clean `baseline` ones among them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from agentprop.analysis import aurc, ltt_select
from agentprop.errors import AgentpropError
from agentprop.intercept import InterceptConfig, Signals, decide, signal_strength

if TYPE_CHECKING:
    from agentprop.analysis import LttResult

Scored = tuple[Signals, bool, str]
"""(signals, the un-intercepted answer is wrong, condition) of one usable trace."""


class NoValidConfig(AgentpropError):
    """No configuration's false-abstain risk is shown to be ≤ α at confidence 1 − δ: the
    work itself cannot give the promise (exit 1), and nothing is stored."""

    exit_code = 1


def select(table: pd.DataFrame, *, alpha: float, delta: float) -> LttResult:
    """Learn-then-Test over the sweep table's rows (Bonferroni over the grid: its
    configurations are not one nested chain). Utility = hallucinations caught (`tp`),
    ties → fewer abstentions. Raises NoValidConfig with what would make one valid."""
    res = ltt_select(
        list(table["config"]), [int(x) for x in table["fp"] + table["tn"]],
        [int(x) for x in table["fp"]], [float(x) for x in table["tp"]],
        alpha=alpha, delta=delta, abstentions=[int(x) for x in table["tp"] + table["fp"]])
    if res.chosen is None:
        n = max(res.n, default=0)
        # even a configuration that never fires on a right answer needs (1-α)^n ≤ δ/m
        need = math.ceil(math.log(res.level) / math.log(1 - alpha))
        finite = [p for p in res.p_values if not math.isnan(p)]
        best = f"smallest p-value {min(finite):.3g}" if finite else "no p-value"
        raise NoValidConfig(
            f"no configuration keeps P(abstain | right answer) ≤ {alpha:g} with confidence "
            f"{1 - delta:g} on {n} right val answers ({best} > δ/{len(res.labels)} = "
            f"{res.level:.3g}; a configuration that never fires needs at least {need}); "
            "collect more val traces or raise --max-false-abstain. Nothing was stored")
    return res


def rate(scored: Sequence[Scored], cfg: InterceptConfig, *, condition: str | None = None,
         on_wrong: bool = False) -> dict[str, Any]:
    """How often `cfg` fires on the right answers among `scored` (optionally of one
    condition; with `on_wrong`, on the wrong ones: its recall): n, k and the rate (None
    when n = 0: undefined, not 0)."""
    fires = [bool(decide(s, cfg)) for s, wrong, cond in scored
             if wrong == on_wrong and (condition is None or cond == condition)]
    return {"n": len(fires), "k": sum(fires),
            "rate": sum(fires) / len(fires) if fires else None}


def area(scored: Sequence[Scored]) -> dict[str, Any]:
    """The AURC of the signal strength over `scored` (None with n = 0), with its
    risk–coverage curve (the report draws it)."""
    res = aurc([signal_strength(s) for s, _, _ in scored], [w for _, w, _ in scored])
    return {"value": None if math.isnan(res.value) else res.value, "n": res.n,
            "coverage": list(res.coverage), "risk": list(res.risk)}


def guarantee(
    res: LttResult,
    cfg: InterceptConfig,
    *,
    val: Sequence[Scored],
    held_out: Sequence[Scored],
    split: str,
    held_out_split: str,
    judge: str,
) -> dict[str, Any]:
    """The stored guarantee of the chosen `cfg` (JSON-safe): the test's inputs and
    outcome, its realised rates on the held-out split (every condition, and the clean
    baseline), the AURC on both splits and every candidate's p-value."""
    i = res.index
    assert i is not None
    return {
        "method": "ltt", "correction": res.method, "alpha": res.alpha, "delta": res.delta,
        "config": cfg.label, "split": split, "judge": judge,
        "n": res.n[i], "k": res.k[i], "p_value": res.p_values[i], "level": res.level,
        "val_rate": res.k[i] / res.n[i], "val_caught": rate(val, cfg, on_wrong=True),
        "held_out_split": held_out_split,
        "held_out": rate(held_out, cfg), "baseline": rate(held_out, cfg, condition="baseline"),
        "aurc_val": area(val), "aurc_held_out": area(held_out),
        "candidates": [
            {"config": c, "n": n, "k": k, "p_value": None if math.isnan(p) else p,
             "valid": v}
            for c, n, k, p, v in zip(res.labels, res.n, res.k, res.p_values, res.valid,
                                     strict=True)],
    }


def mark_chosen(table: pd.DataFrame, res: LttResult) -> pd.DataFrame:
    """The sweep table with `best` on the configuration Learn-then-Test chose."""
    i = res.index
    assert i is not None
    out = table.copy()
    out["best"] = False
    out.loc[out.index[i], "best"] = True
    return out


def realised_line(stored: Mapping[str, Any] | None, cfg: InterceptConfig,
                  false_alarms: int, n_correct: int) -> dict[str, Any] | None:
    """For an evaluation of the guaranteed configuration: its realised false-abstain rate
    beside the promised α (None when `cfg` is not the one the guarantee is about)."""
    if not stored or stored.get("config") != cfg.label:
        return None
    return {"alpha": stored["alpha"], "delta": stored["delta"], "k": false_alarms,
            "n": n_correct, "rate": false_alarms / n_correct if n_correct else None}

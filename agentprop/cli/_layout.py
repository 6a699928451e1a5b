"""Tables that fit an 80-column terminal without cutting a name.

Names (steps, models, judges, trace ids) are never truncated: they go in columns that
fold onto further lines, and several fields are stacked in one cell rather than spread
over many narrow columns. Numbers never wrap. Text from models or files goes through
`Text`, never markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from agentprop._text import stack

_BREAKS = re.compile(r"([,:])")


def breakable(name: str) -> str:
    """`name` with a space after its commas and colons, so a long judge ensemble wraps
    at its members instead of mid-word (`ensemble:a,b` → `ensemble: a, b`)."""
    return _BREAKS.sub(r"\1 ", name).replace("  ", " ")


def narrow_table(*headers: str, title: str | None = None, caption: str | None = None,
                 **options: Any) -> Table:
    """A table for an 80-column terminal: no outer border and two spaces between columns
    (a rule's divider and one space of padding; the boxes of a default rich table cost
    3 columns each), every column folding instead of cutting with "…". Add further
    columns as usual; `fit` keeps them folding."""
    table = Table(title=title, caption=caption, box=box.SIMPLE_HEAD, padding=(0, 0, 0, 1),
                  show_edge=False, pad_edge=False, title_justify="left",
                  caption_justify="left", **options)
    for h in headers:
        table.add_column(h, overflow="fold")
    return table


def fit(table: Table) -> Table:
    """`table` with every column that may wrap folding its text instead of cutting it."""
    for column in table.columns:
        if not column.no_wrap:
            column.overflow = "fold"
    return table


def column_tables(title: str, labels: Sequence[str],
                  columns: Sequence[tuple[str, Sequence[str]]], *,
                  width: int = 80, label_width: int = 18, column_width: int = 19
                  ) -> list[tuple[str, Table]]:
    """A statistics × groups table cut into as few (title, table) parts as fit `width`,
    the groups spread evenly: each part holds the row labels and its group columns
    (header, cells), a header stacked at its separators, never cut. `column_width`: the
    room a group's widest cell line needs (with its padding)."""
    fits = max(1, (width - label_width) // column_width)
    n_parts = max(1, -(-len(columns) // fits))
    per = max(1, -(-len(columns) // n_parts))
    col_width = max(10, (width - label_width) // per - 2)
    out = []
    for start in range(0, max(1, len(columns)), per):
        part = columns[start:start + per]
        table = narrow_table()
        table.add_column("", overflow="fold", max_width=label_width)
        for header, _ in part:
            table.add_column("\n".join(stack(h, col_width) for h in header.split("\n")),
                             justify="right", overflow="fold")
        for i, label in enumerate(labels):
            table.add_row(label, *(cells[i] for _, cells in part))
        more = f" ({start // per + 1} of {n_parts})" if n_parts > 1 else ""
        out.append((title + more, table))
    return out


def _n(x: float) -> str:
    return f"{int(x):,}"


def plan_table(title: str, rows: Iterable[Mapping[str, Any]],
               model_totals: Iterable[Mapping[str, Any]], totals: Mapping[str, Any]) -> Table:
    """The dry-run plan: each step on its own line, then one line per model under it;
    then each model's totals and the overall total."""
    table = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1), title_justify="left",
                  show_edge=False, pad_edge=False)
    table.add_column("step / model", overflow="fold", ratio=1, min_width=16)
    for name in ("units", "calls", "tokens", "USD"):
        table.add_column(name, justify="right", no_wrap=True)
    current = None
    for r in rows:
        if r["step"] != current:
            current = r["step"]
            table.add_row(Text(f"{breakable(r['step'])} ({r['kind']})", style="bold"),
                          "", "", "", "")
        if r["model"] is None:
            if r["model_calls"] or r["units"]:
                table.add_row(Text("  (no model calls)", style="dim"), _n(r["units"]),
                              _n(r["model_calls"]), "", "")
            continue
        table.add_row(Text("  " + r["model"]), _n(r["units"]), _n(r["model_calls"]),
                      _n(r["input_tokens"] + r["output_tokens"]), f"{r['cost_usd']:,.2f}")
    table.add_section()
    table.add_row(Text("per model", style="bold"), "", "", "", "")
    for r in model_totals:
        table.add_row(Text("  " + r["model"]), _n(r["units"]), _n(r["model_calls"]),
                      _n(r["input_tokens"] + r["output_tokens"]), f"{r['cost_usd']:,.2f}")
    table.add_section()
    table.add_row(Text("total", style="bold"), _n(totals["units"]), _n(totals["model_calls"]),
                  _n(totals["input_tokens"] + totals["output_tokens"]),
                  f"{totals['cost_usd']:,.2f}", style="bold")
    return table


def traces_table(title: str, rows: Iterable[Mapping[str, Any]]) -> Table:
    """`traces list`: the id in a fixed column; beside it, stacked, the model, then task,
    condition, seed and arm, then the status and the start of the final answer."""
    table = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1), title_justify="left",
                  show_edge=False, pad_edge=False)
    table.add_column("trace", no_wrap=True, width=24)
    table.add_column("model / task, condition / status: answer", overflow="fold")
    for r in rows:
        answer = "[abstained]" if r["abstained"] else (r["final_answer"] or "")
        where = f"{r['task_id']} · {r['condition']} · seed {r['seed']}"
        if r["arm"]:
            where += f" · arm {r['arm']}"
        cell = Text(f"{r['model']}\n{where}\n")
        cell.append(r["status"], style="red" if r["status"] != "ok" else "green")
        # the start of the answer; how much more there is (`traces show ID` has it all)
        cell.append(": " + answer[:120]
                    + (f" [+{len(answer) - 120} chars]" if len(answer) > 120 else ""))
        table.add_row(Text(r["id"]), cell)
    return table


def headline_table(numbers: Mapping[str, Any]) -> Table:
    """The few headline numbers of a study per model, from its numbers.json; the model
    column folds (a long OpenRouter id wraps onto further lines instead of being cut)."""
    from agentprop.analysis import SMALL_N, below_floor  # pandas: only for a headline

    models = sorted({k.split("[", 1)[1].rstrip("]") for k in numbers
                     if k.startswith("propagation.r_23[")})
    table = Table(title="headline (primary judge; every table is in the report)",
                  box=box.SIMPLE_HEAD,
                  caption="n injected traces · no tool: answered without a tool call · corr.: "
                          "re-queried after a visible corruption · r_23 = P(wrong | visible "
                          "corruption) · Δ halluc.: interceptor arm − control, paired")
    table.add_column("model", overflow="fold", ratio=1, min_width=12)
    for name in ("n", "no tool", "corr.", "r_23 [95% CI]", "Δ halluc."):
        table.add_column(name, no_wrap=True, justify="right")

    few = []

    def value(name: str, ci: bool = False) -> str:
        v = numbers.get(name)
        if not v or v.get("value") is None:
            return "—"
        bounds = v.get("ci")
        if below_floor(int(v.get("n") or 0)):  # too few to read as a measurement
            few.append(name)
            return f"{v['value']:.2f} n={v['n']}*"
        if ci and bounds and None not in bounds:
            return f"{v['value']:.2f} [{bounds[0]:.2f}, {bounds[1]:.2f}]"
        return f"{v['value']:+.2f}" if name.startswith("interceptor.delta") else f"{v['value']:.2f}"

    for m in models:
        n = numbers.get(f"propagation.n[{m}]", {}).get("value")
        table.add_row(
            Text(m),
            "—" if n is None else f"{int(n)}",
            value(f"propagation.no_tool_share[{m}]"),
            value(f"propagation.correction_rate[{m}]"),
            value(f"propagation.r_23[{m}]", ci=True),
            value(f"interceptor.delta_hallucination[{m}]"),
        )
    if few:
        table.caption = f"{table.caption} · *: too few (n < {SMALL_N}) to read as a measurement"
    return table

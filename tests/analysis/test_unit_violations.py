"""The unit invariants read as columns give exactly the lines a row-by-row check gives,
in the order each unit first appears (a report of a million traces reads no Python row
per trace)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from agentprop.analysis.invariants import ARMS, UNIT_FIELDS, unit_violations


def _by_rows(rows: list[dict[str, object]]) -> list[str]:
    """The definition, one row at a time: a unit counted twice, arms not one to one."""
    def text(unit: tuple[object, ...]) -> str:
        f = dict(zip(UNIT_FIELDS, unit, strict=True))
        return " ".join(f"{k}={f[k]}" for k in UNIT_FIELDS[:-1]) + (
            f" arm={f['arm']}" if f["arm"] else "")

    out = [f"unit stored {n} times: {text(u)}"
           for u, n in Counter(tuple(r[f] for f in UNIT_FIELDS) for r in rows).items()
           if n > 1]
    pairs: dict[tuple[object, ...], Counter[object]] = {}
    for r in rows:
        if r["arm"] in ARMS:
            pairs.setdefault(tuple(r[f] for f in UNIT_FIELDS[:-1]), Counter())[r["arm"]] += 1
    out += [f"interceptor arms not paired one to one ({a['control']} control, "
            f"{a['treatment']} treatment): {text((*k, ''))}"
            for k, a in pairs.items() if a["control"] != 1 or a["treatment"] != 1]
    return out


def test_columns_match_the_row_by_row_definition() -> None:
    rng = np.random.default_rng(7)
    rows = [{"run_id": f"r{rng.integers(2)}", "model": f"m{rng.integers(2)}",
             "task_id": f"t{rng.integers(30)}", "condition": "p2:all",
             "seed": int(rng.integers(3)), "arm": str(rng.choice(["", *ARMS]))}
            for _ in range(400)]
    want = _by_rows(rows)
    assert any(w.startswith("unit stored") for w in want)
    assert any("not paired" in w for w in want)
    assert unit_violations(pd.DataFrame(rows, columns=list(UNIT_FIELDS))) == want


def test_clean_units_and_an_empty_workspace_have_none() -> None:
    rows = [{"run_id": "r", "model": "m", "task_id": f"t{i}", "condition": "c", "seed": 0,
             "arm": arm} for i in range(3) for arm in ARMS]
    assert unit_violations(pd.DataFrame(rows)) == []
    assert unit_violations(pd.DataFrame(columns=list(UNIT_FIELDS))) == []

"""Ground truth: simulated agents with stated parameters, run under p2:semantic_wrong,
must be measured back by the injector + stage table within the bootstrap CIs.

All checks together hold at a family-wise 95 % level (Bonferroni over the checks), so a
correct pipeline fails this test with probability < 5 % for an arbitrary seed; with the
fixed seed the outcome is deterministic.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprop.analysis.stages import propagation_rates, stage_table

runner = pytest.importorskip("agentprop.runner")
sim = pytest.importorskip("agentprop.sim")

DOMAINS = ("weather", "calendar", "medical", "retail")
TASKS_PER_DOMAIN = 50  # 200 test tasks per profile
CHECKS = ("no_tool", "S2_share", "corrected")


def _suite() -> object:
    from agentprop.suite import Suite, get_generator

    try:
        tasks = [t for d in DOMAINS for t in get_generator(d).generate(TASKS_PER_DOMAIN, seed=7)]
    except ImportError as e:
        pytest.skip(f"task generators not written yet ({e})")
    return Suite(tasks, seed=7)


def test_sim_profiles_recover_their_stated_rates(tmp_path: Path) -> None:
    from agentprop.store import Workspace

    suite = _suite()
    profiles = sorted(sim.PROFILES)
    units = runner.plan_units(
        "gt", [f"sim/{p}" for p in profiles], suite.tasks, ["p2:semantic_wrong"]  # type: ignore[attr-defined]
    )
    with Workspace(tmp_path / "ws") as ws:
        summary = runner.run_units_sync(units, workspace=ws, suite=suite, progress=False,
                                        concurrency=8)
        assert summary.units == len(units)
        df = stage_table(ws.iter_traces())
    assert len(df) == len(units) and not df["error"].any()
    level = 1 - 0.05 / (len(profiles) * len(CHECKS))
    rates = propagation_rates(df, by="model", rng_seed=42, n_boot=2000, level=level)
    misses = []
    for r in rates.to_dict("records"):
        truth = sim.PROFILES[r["model"].removeprefix("sim/")].true_rates()
        expected = {"no_tool": truth["no_tool"], "S2_share": truth["tool_use"],
                    "corrected": truth["correction_given_S2"]}
        for name, value in expected.items():
            lo, hi = r[f"{name}_lo"], r[f"{name}_hi"]
            if not lo - 1e-9 <= value <= hi + 1e-9:
                misses.append(f"{r['model']} {name}: true {value:.3f} outside "
                              f"[{lo:.3f}, {hi:.3f}] (measured {r[name]:.3f}, n={r[f'{name}_n']})")
        # semantic_wrong always changes an echoed argument: every opportunity is visible
        assert r["p_S1"] == 1.0 and r["r_12"] == 1.0, r
    assert not misses, "\n".join(misses)

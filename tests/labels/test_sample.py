"""Stratified sampling: balance, redistribution, overlap, determinism, queues."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from agentprop.labels import (
    SampleError,
    allocate,
    annotator_queue,
    sample_labels,
    stratified_sample,
)
from agentprop.store import Workspace
from tests.judges.conftest import MEDICAL, WEATHER, make_trace


def _rows(sizes: dict[tuple[str, str], int]) -> list[dict[str, str]]:
    return [{"id": f"{m}-{d}-{i}", "model": m, "domain": d}
            for (m, d), k in sizes.items() for i in range(k)]


ROWS = _rows({("a", "weather"): 50, ("a", "medical"): 50, ("b", "weather"): 5,
              ("b", "medical"): 40})


def test_balanced_with_redistribution() -> None:
    s = stratified_sample(ROWS, 40, ["model", "domain"], seed=1)
    counts = Counter(r["stratum"] for r in s)
    assert len(s) == 40 and len({r["trace_id"] for r in s}) == 40
    assert counts["b|weather"] == 5  # small stratum: everything it has
    assert sorted(counts[k] for k in ("a|weather", "a|medical", "b|medical")) in (
        [11, 12, 12], [12, 12, 11], [11, 12, 12])
    assert max(counts.values()) - min(v for k, v in counts.items() if k != "b|weather") <= 1


def test_allocate_never_exceeds_and_sums() -> None:
    import random

    alloc = allocate({"x": 3, "y": 100, "z": 0}, 50, random.Random(0))
    assert alloc == {"x": 3, "y": 47, "z": 0}
    assert sum(allocate({"x": 3, "y": 4}, 50, random.Random(0)).values()) == 7


def test_deterministic_and_seed_sensitive() -> None:
    a = stratified_sample(ROWS, 30, ["model", "domain"], seed=7, overlap=6)
    b = stratified_sample(ROWS, 30, ["model", "domain"], seed=7, overlap=6)
    c = stratified_sample(ROWS, 30, ["model", "domain"], seed=8, overlap=6)
    assert a == b and a != c


def test_overlap_first_and_spread() -> None:
    s = stratified_sample(ROWS, 30, ["model", "domain"], seed=3, overlap=8,
                          annotators=["ann", "bob"])
    shared = [r for r in s if r["overlap"]]
    assert [r["position"] for r in shared] == list(range(8))
    assert len({r["stratum"] for r in shared}) == 4  # round-robin across strata
    assert all(r["annotators"] == "ann,bob" for r in shared)
    rest = Counter(r["annotators"] for r in s if not r["overlap"])
    assert rest == {"ann": 11, "bob": 11}
    q_ann = annotator_queue(s, "ann", set(), set())
    q_bob = annotator_queue(s, "bob", set(), set())
    assert len(q_ann) == len(q_bob) == 19 and len(set(q_ann) & set(q_bob)) == 8


def test_first_come_queue_without_assignment() -> None:
    s = stratified_sample(ROWS, 10, ["model"], seed=0, overlap=2)
    taken_by_other = {s[5]["trace_id"]}
    q = annotator_queue(s, "me", taken_by_other, set())
    assert s[5]["trace_id"] not in q and len(q) == 9
    q_mine = annotator_queue(s, "me", taken_by_other, taken_by_other)  # I labelled it too
    assert len(q_mine) == 10


@pytest.mark.parametrize(("kw", "msg"), [
    ({"n": 0}, "positive"), ({"n": 5, "by": ["colour"]}, "cannot stratify"),
    ({"n": 5, "overlap": 9}, "overlap"),
])
def test_errors(kw: dict, msg: str) -> None:
    args = {"by": ["model"], **kw}
    with pytest.raises(SampleError, match=msg):
        stratified_sample(ROWS, **args)


def test_sample_labels_stores_ok_traces_only(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "w")
    ws.put_traces([make_trace(f"t{i}", WEATHER if i % 2 else MEDICAL, "x",
                              model="m1" if i < 6 else "m2") for i in range(12)]
                  + [make_trace("err", WEATHER, None, status="error")])
    s = sample_labels(ws, 8, ["model", "domain"], overlap=2, seed=0)
    stored = ws.label_sample()
    assert s.n == 8 == len(stored) and s.available == 12 and s.overlap == 2
    assert "err" not in {r["trace_id"] for r in stored}
    assert set(s.strata.values()) == {2}


def test_cli_sample(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from agentprop.cli import app

    ws = Workspace(tmp_path / "w")
    ws.put_traces([make_trace(f"t{i}", WEATHER, "x", model=f"m{i % 2}") for i in range(10)])
    r = CliRunner().invoke(app, ["label", "sample", "-w", str(tmp_path / "w"), "--n", "6",
                                 "--by", "model", "--overlap", "2", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["strata"] == {"m0": 3, "m1": 3}
    bad = CliRunner().invoke(app, ["label", "sample", "-w", str(tmp_path / "w"), "--by", "x"])
    assert bad.exit_code == 2 and "cannot stratify" in bad.output

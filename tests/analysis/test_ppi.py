"""PPI++ (analysis/_ppi.py): the same numbers as ppi-python where the methods coincide, the
stratified and task-bootstrap extensions, undefined cases, and coverage of the true rate
in simulated studies with a judge of known error rates (analysis/_coverage.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agentprop.analysis._coverage import SCENARIOS, coverage
from agentprop.analysis._ppi import PPIData, ppi_difference, ppi_estimate, ppi_mean_ci

ppi_py = pytest.importorskip("ppi_py")  # the `dev` extra


def _draw(rng: np.random.Generator, n: int, big_n: int, p: float = 0.4, acc: float = 0.85
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = (rng.random(n) < p).astype(float)
    f = np.where(rng.random(n) < acc, y, 1 - y)
    y_u = (rng.random(big_n) < p).astype(float)
    f_u = np.where(rng.random(big_n) < acc, y_u, 1 - y_u)
    return y, f, f_u


@pytest.mark.parametrize("lam", [None, 0.0, 1.0, 0.3])
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_same_point_and_interval_as_ppi_python(lam: float | None, alpha: float) -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        n, big_n = int(rng.integers(10, 300)), int(rng.integers(20, 3000))
        y, f, f_u = _draw(rng, n, big_n, p=float(rng.uniform(0.1, 0.9)),
                          acc=float(rng.uniform(0.5, 1.0)))
        value, lo, hi, _ = ppi_mean_ci(y, f, f_u, lam=lam, alpha=alpha)
        ref_lo, ref_hi = ppi_py.ppi_mean_ci(y, f, f_u, alpha=alpha, lam=lam)
        ref = ppi_py.ppi_mean_pointestimate(y, f, f_u, lam=lam)
        assert value == pytest.approx(float(np.ravel(ref)[0]), abs=1e-6)
        assert lo == pytest.approx(float(np.ravel(ref_lo)[0]), abs=1e-6)
        assert hi == pytest.approx(float(np.ravel(ref_hi)[0]), abs=1e-6)


def test_stratified_estimate_combines_ppi_python_per_cell() -> None:
    """Cells (labels drawn with unequal probabilities): Σ W_h θ_h, and Σ W_h² se_h² plus
    the variance of the shares."""
    rng = np.random.default_rng(3)
    parts = [_draw(rng, 40, 300, p=0.2), _draw(rng, 80, 100, p=0.7), _draw(rng, 25, 500)]
    y = np.concatenate([p[0] for p in parts])
    f = np.concatenate([p[1] for p in parts])
    f_u = np.concatenate([p[2] for p in parts])
    cells = np.repeat(["a", "b", "c"], [len(p[0]) for p in parts])
    cells_u = np.repeat(["a", "b", "c"], [len(p[2]) for p in parts])
    got = ppi_estimate(PPIData.of(y, f, f_u, cells=cells, cells_u=cells_u))
    size = np.array([len(p[0]) + len(p[2]) for p in parts], dtype=float)
    w = size / size.sum()
    theta, var, thetas = 0.0, 0.0, []
    for wh, (yh, fh, fuh) in zip(w, parts, strict=True):
        est = float(np.ravel(ppi_py.ppi_mean_pointestimate(yh, fh, fuh))[0])
        lo, hi = ppi_py.ppi_mean_ci(yh, fh, fuh, alpha=0.05)
        se = (float(np.ravel(hi)[0]) - float(np.ravel(lo)[0])) / (2 * 1.959963984540054)
        theta += wh * est
        var += wh ** 2 * se ** 2
        thetas.append(est)
    # plus the sampling of the cells' shares (multinomial over the traces)
    var += (float(np.sum(w * np.square(thetas))) - theta ** 2) / size.sum()
    assert got.method == "clt-stratified"
    assert got.value == pytest.approx(theta, abs=1e-9)
    assert got.hi - got.lo == pytest.approx(2 * 1.959963984540054 * math.sqrt(var), abs=1e-9)


def test_every_trace_labelled_in_cells_is_the_binomial_interval() -> None:
    rng = np.random.default_rng(4)
    y = (rng.random(300) < 0.6).astype(float)
    f = np.where(rng.random(300) < 0.8, y, 1 - y)
    cells = np.where(f == 1, "yes", "no")
    r = ppi_estimate(PPIData.of(y, f, [], cells=cells, cells_u=[]))
    half = 1.959963984540054 * math.sqrt(y.mean() * (1 - y.mean()) / 300)
    assert r.value == pytest.approx(y.mean())
    assert (r.hi - r.lo) / 2 == pytest.approx(half)


def test_useless_instrument_collapses_to_the_labels() -> None:
    rng = np.random.default_rng(11)
    y = (rng.random(400) < 0.5).astype(float)
    f = (rng.random(400) < 0.5).astype(float)  # independent of y
    f_u = (rng.random(4000) < 0.5).astype(float)
    r = ppi_estimate(PPIData.of(y, f, f_u))
    assert r.lam < 0.1
    assert r.value == pytest.approx(y.mean(), abs=0.01)


def test_constant_instrument_and_all_labelled_are_the_labels_alone() -> None:
    y = np.array([1.0, 0.0, 1.0, 1.0])
    for f_u in (np.ones(10), np.zeros(0)):
        r = ppi_estimate(PPIData.of(y, np.ones(4), f_u))
        assert r.lam == 0.0
        assert r.value == pytest.approx(0.75)


def test_undefined_is_nan_with_its_reason() -> None:
    r = ppi_estimate(PPIData.of([], [], [1.0, 0.0, 1.0]))
    assert math.isnan(r.value) and r.n_unlabelled == 3 and "no labels" in r.note
    # a stratum of the population without labels: the rate is not estimable
    r = ppi_estimate(PPIData.of([1.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0],
                                cells=["a", "a", "a"], cells_u=["a", "b"]))
    assert math.isnan(r.value) and "stratum b" in r.note
    # one label: a value, no interval
    r = ppi_estimate(PPIData.of([1.0], [1.0], [1.0, 0.0]))
    assert r.value == 1.0 and math.isnan(r.lo) and "fewer than two" in r.note
    assert r.estimate().ci is None


def test_shared_tasks_resample_tasks_and_keep_the_point() -> None:
    rng = np.random.default_rng(5)
    y, f, f_u = _draw(rng, 120, 600)
    tasks = rng.integers(0, 60, size=120).astype(str)
    tasks_u = rng.integers(0, 60, size=600).astype(str)
    plain = ppi_estimate(PPIData.of(y, f, f_u))
    boot = ppi_estimate(PPIData.of(y, f, f_u, clusters=tasks, clusters_u=tasks_u),
                        n_resamples=400, rng=1)
    assert plain.method == "clt" and boot.method == "task bootstrap"
    assert boot.value == pytest.approx(plain.value)
    assert boot.lo < boot.value < boot.hi
    again = ppi_estimate(PPIData.of(y, f, f_u, clusters=tasks, clusters_u=tasks_u),
                         n_resamples=400, rng=1)
    assert (again.lo, again.hi) == (boot.lo, boot.hi)  # seeded


def test_difference_of_two_arms_shares_the_task_draws() -> None:
    rng = np.random.default_rng(9)
    tasks = np.arange(150).astype(str)
    y_c = (rng.random(150) < 0.5).astype(float)
    y_t = np.where(rng.random(150) < 0.7, 0.0, y_c)  # treatment removes some errors
    f_c = np.where(rng.random(150) < 0.9, y_c, 1 - y_c)
    f_t = np.where(rng.random(150) < 0.9, y_t, 1 - y_t)
    lab = np.arange(150) < 60
    a = PPIData.of(y_t[lab], f_t[lab], f_t[~lab], clusters=tasks[lab], clusters_u=tasks[~lab])
    b = PPIData.of(y_c[lab], f_c[lab], f_c[~lab], clusters=tasks[lab], clusters_u=tasks[~lab])
    d = ppi_difference(a, b, n_resamples=500, rng=0)
    assert d.value == pytest.approx(ppi_estimate(a).value - ppi_estimate(b).value)
    assert d.method == "task bootstrap" and d.lo < d.value < d.hi
    # the paired interval is narrower than adding the arms' variances
    ia, ib = ppi_estimate(a), ppi_estimate(b)
    unpaired = math.hypot((ia.hi - ia.lo) / 2, (ib.hi - ib.lo) / 2)
    assert (d.hi - d.lo) / 2 < unpaired


@pytest.mark.parametrize("scenario", SCENARIOS[:2], ids=lambda s: s.name)
def test_coverage_of_the_true_rate(scenario: object) -> None:
    """1,000 simulated studies (the fast version of bench/bench_ppi_coverage.py): PPI++
    and Rogan–Gladen (valid here: the judge errs alike in every stratum) cover the true
    rate 93–97 % of the time; the paper's correction fails when the target's prevalence
    differs from the label mix's."""
    t = coverage(scenario, 1000, seed=20261202, n_resamples=250).set_index("method")  # type: ignore[arg-type]
    assert 0.93 <= t.loc["ppi", "coverage"] <= 0.97
    assert 0.93 <= t.loc["rogan_gladen", "coverage"] <= 0.97
    assert t.loc["judge_only", "coverage"] < 0.8  # the judge's errors are real
    if scenario is SCENARIOS[1]:
        assert t.loc["paper", "coverage"] < 0.6
    assert t.loc["ppi", "width"] < t.loc["labels_only", "width"]  # the judge helps


def test_coverage_with_labels_drawn_by_verdict() -> None:
    """Labels drawn half from each verdict (as far from proportional as `label sample
    --for` gets): the stratified PPI++ interval still covers 93–97 %."""
    t = coverage(SCENARIOS[-1], 1000, seed=20261202, n_resamples=100).set_index("method")
    assert SCENARIOS[-1].by_verdict
    assert 0.93 <= t.loc["ppi", "coverage"] <= 0.97
    assert abs(t.loc["ppi", "bias"]) < 0.01

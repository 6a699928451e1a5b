"""How many human labels a rate needs: the stratified PPI++ variance (`_ppi.py`) solved
for the labels, with Neyman allocation over the cells (instrument verdict × stratum).

A rate's traces fall into cells h (the instrument says yes / no, per model), N_h traces
each, W_h = N_h/N. With μ_h the human rate in cell h and s_h = √(μ_h(1 − μ_h)), the
estimate from n_h labels per cell has variance

    Σ_h W_h² s_h² / n_h  +  (Σ_h W_h μ_h² − μ²) / N

(`_ppi._combine`: inside a verdict cell the instrument is constant, so PPI++ is the
labelled mean; the second term is the sampling of the traces themselves, which no label
removes). For a half-width h at confidence 1 − α the labels must bring the first term
down to V = (h/z)² minus the second; the fewest labels that do it are Neyman's,
n_h ∝ W_h s_h, n = (Σ W_h s_h)² / V, with a cell that would need more labels than it has
traces labelled whole and the rest re-allocated. Every cell gets at least two labels (a
variance needs two). μ_h comes from a pilot (the labels already in the cell, smoothed as
(x + ½)/(n + 1) so that a few agreeing labels do not promise zero variance) or, without
one, from a stated assumption: the worst case μ = ½, or the instrument's accuracy A
(μ = A where it says yes, 1 − A where it says no).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from scipy.stats import norm

from agentprop.analysis._stats import ALPHA


@dataclass(frozen=True)
class Cell:
    """One cell of a rate's traces: its size, the labels it has, and its human rate."""

    key: str
    population: int
    labelled: int = 0
    rate: float = 0.5
    """μ_h: the pilot's smoothed rate, or the assumed one."""
    source: str = "assumed: worst case (μ = ½)"
    need: int = 0
    """Labels the plan asks for in this cell (already made ones included)."""

    @property
    def sd(self) -> float:
        return math.sqrt(max(self.rate * (1 - self.rate), 0.0))

    @property
    def to_label(self) -> int:
        return max(0, self.need - self.labelled)


def pilot_cell(key: str, population: int, human: Sequence[bool], *, verdict: bool | None,
               assume_accuracy: float | None) -> Cell:
    """A cell's μ from its labels (`human`: yes/no of the event), else the assumption."""
    n = len(human)
    if n:
        x = sum(bool(h) for h in human)
        return Cell(key, population, n, (x + 0.5) / (n + 1),
                    f"pilot: {x} of {n} labels yes")
    if assume_accuracy is not None and verdict is not None:
        mu = assume_accuracy if verdict else 1 - assume_accuracy
        return Cell(key, population, 0, mu,
                    f"assumed: the instrument is right {assume_accuracy:.0%} of the time")
    return Cell(key, population, 0)


@dataclass(frozen=True)
class Plan:
    """The labels one rate of one group needs for a half-width."""

    group: str
    half_width: float
    cells: tuple[Cell, ...]
    reachable: bool
    """Whether labelling can reach the half-width at all (the traces' own sampling can
    forbid it: then every trace is to be labelled and `expected_half_width` says what
    that gives)."""
    expected_half_width: float
    """The half-width the planned labels give under the pilot/assumed rates."""

    @property
    def need(self) -> int:
        return sum(c.need for c in self.cells)

    @property
    def labelled(self) -> int:
        return sum(c.labelled for c in self.cells)

    @property
    def to_label(self) -> int:
        return sum(c.to_label for c in self.cells)


def _floor(c: Cell) -> int:
    """The fewest labels a cell keeps: two (a variance needs two), and those made."""
    return min(c.population, max(2, c.labelled))


def neyman_split(cells: Sequence[Cell], n: float) -> list[int]:
    """n labels over the cells ∝ W_h s_h (Neyman), each within [its floor, N_h]: a cell
    whose share is outside those bounds is fixed at the bound (its labels made, or all its
    traces) and the rest re-allocated among the others."""
    need = [_floor(c) for c in cells]
    free = [i for i, c in enumerate(cells) if c.population > 0]
    left = float(n)
    while free:
        weight = sum(cells[i].population * cells[i].sd for i in free)
        if weight <= 0:
            break
        share = {i: left * cells[i].population * cells[i].sd / weight for i in free}
        fixed = [i for i in free if share[i] >= cells[i].population or share[i] < need[i]]
        if not fixed:
            for i in free:
                need[i] = max(need[i], min(cells[i].population, math.ceil(share[i] - 1e-9)))
            break
        for i in fixed:
            if share[i] >= cells[i].population:
                need[i] = cells[i].population
            left -= need[i]
            free.remove(i)
    return need


def _variance(cells: Sequence[Cell], need: Sequence[int]) -> float:
    total = sum(c.population for c in cells)
    if total == 0:
        return math.nan
    w = [c.population / total for c in cells]
    mu = sum(wi * c.rate for wi, c in zip(w, cells, strict=True))
    shares = max(sum(wi * c.rate ** 2 for wi, c in zip(w, cells, strict=True)) - mu ** 2, 0.0)
    within = sum(wi ** 2 * c.sd ** 2 / k for wi, c, k in zip(w, cells, need, strict=True)
                 if c.population and k)
    return within + shares / total


def plan(group: str, cells: Sequence[Cell], half_width: float, *,
         alpha: float = ALPHA) -> Plan:
    """The fewest labels per cell that give `half_width` at confidence 1 − α."""
    z = float(norm.ppf(1 - alpha / 2))
    total = sum(c.population for c in cells)
    if total == 0:
        return Plan(group, half_width, tuple(cells), False, math.nan)
    everything = [c.population for c in cells]
    best = z * math.sqrt(_variance(cells, everything))
    if best > half_width:
        done = tuple(replace(c, need=c.population) for c in cells)
        return Plan(group, half_width, done, False, best)
    w = [c.population / total for c in cells]
    mu = sum(wi * c.rate for wi, c in zip(w, cells, strict=True))
    shares = max(sum(wi * c.rate ** 2 for wi, c in zip(w, cells, strict=True)) - mu ** 2,
                 0.0) / total
    room = (half_width / z) ** 2 - shares
    # total n for Neyman without caps, then the caps (each capped cell adds nothing)
    n = sum(wi * c.sd for wi, c in zip(w, cells, strict=True)) ** 2 / room
    need = neyman_split(cells, n)
    while z * math.sqrt(_variance(cells, need)) > half_width + 1e-12:
        n *= 1.02  # caps moved labels: grow until the half-width holds
        need = neyman_split(cells, n)
        if need == everything:
            break
    done = tuple(replace(c, need=k) for c, k in zip(cells, need, strict=True))
    return Plan(group, half_width, done, True, z * math.sqrt(_variance(cells, need)))


def split_total(cells_by_group: dict[str, list[Cell]], n: int) -> dict[str, list[int]]:
    """n labels over several groups (one rate per model) so that their half-widths come
    out about equal (n_g ∝ (Σ_h W_h s_h)²_g), then by Neyman inside each group."""
    weights = {}
    for g, cells in cells_by_group.items():
        total = sum(c.population for c in cells)
        weights[g] = (sum(c.population / total * c.sd for c in cells) ** 2 if total else 0.0)
    wsum = sum(weights.values())
    out = {}
    for g, cells in cells_by_group.items():
        share = n * weights[g] / wsum if wsum > 0 else n / max(len(cells_by_group), 1)
        out[g] = neyman_split(cells, share)
    return out

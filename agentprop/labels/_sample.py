"""The stratified label sample: balanced over strata, seeded, with shared overlap items.

Allocation: n is split as evenly as possible over the strata (combinations of the `by`
columns); a stratum with fewer traces than its share gives the rest to the others
(water-filling). Which strata get the remainder, which traces are drawn and the order of
the sample all follow from `seed`. The draw is recorded as the workspace's `LabelDesign`
(its strata and their sizes), so the analysis can weight the labels by it. The first
`overlap` positions are the shared items,
drawn round-robin across strata; every annotator labels them. Any other item is labelled by
one annotator: the one assigned to it (`annotators`, round-robin) or, when unassigned,
whoever reaches it first. Only traces with status ``ok`` are sampled.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from agentprop.core import LabelCell, LabelDesign
from agentprop.errors import AgentpropError

if TYPE_CHECKING:
    from agentprop.store import Workspace

SAMPLE_COLUMNS = ("model", "domain", "condition", "split", "difficulty", "arm", "run_id")


class SampleError(AgentpropError):
    """A sampling request that cannot be met; one line for the user."""


class SampleSummary(BaseModel):
    n: int
    available: int
    strata: dict[str, int]
    overlap: int


def allocate(sizes: dict[str, int], n: int, rng: random.Random) -> dict[str, int]:
    """Split n over strata as evenly as their sizes allow (water-filling)."""
    alloc = {k: 0 for k in sizes}
    left = min(n, sum(sizes.values()))
    while left > 0:
        open_ = [k for k in sorted(sizes) if alloc[k] < sizes[k]]
        share, extra = divmod(left, len(open_))
        lucky = set(rng.sample(open_, extra))
        for k in open_:
            give = min(share + (k in lucky), sizes[k] - alloc[k])
            alloc[k] += give
            left -= give
    return alloc


def stratified_sample(
    rows: Sequence[dict[str, Any]],
    n: int,
    by: Sequence[str],
    *,
    overlap: int = 0,
    seed: int = 0,
    annotators: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """Pure: the label_sample rows (trace_id, position, stratum, overlap, annotators)."""
    if n <= 0:
        raise SampleError(f"--n must be positive (got {n})")
    bad = [c for c in by if c not in SAMPLE_COLUMNS]
    if bad or not by:
        raise SampleError(f"cannot stratify by {', '.join(bad) or 'nothing'}; "
                          f"choose from {', '.join(SAMPLE_COLUMNS)}")
    if overlap < 0:
        raise SampleError(f"--overlap must be ≥ 0 (got {overlap})")
    rng = random.Random(seed)
    groups: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        groups["|".join(str(r[c]) for c in by)].append(r["id"])
    if not groups:
        raise SampleError("no traces to sample (only traces with status ok are sampled)")
    alloc = allocate({k: len(v) for k, v in groups.items()}, n, rng)
    chosen: dict[str, list[str]] = {}
    for k in sorted(groups):
        ids = sorted(groups[k])
        chosen[k] = rng.sample(ids, alloc[k])
    return arrange(chosen, overlap, rng, annotators)


def arrange(chosen: dict[str, list[str]], overlap: int, rng: random.Random,
            annotators: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The sample rows of the traces chosen per stratum: the `overlap` shared items first
    (round-robin across strata), then the rest, each part in a seeded order; the
    non-shared items assigned round-robin to `annotators` (see the module rule)."""
    if overlap < 0:
        raise SampleError(f"--overlap must be ≥ 0 (got {overlap})")
    total = sum(len(v) for v in chosen.values())
    if overlap > total:
        raise SampleError(f"--overlap {overlap} is larger than the sample ({total})")
    # overlap: round-robin across strata, in a seeded order of strata
    order = sorted(chosen)
    rng.shuffle(order)
    shared: list[tuple[str, str]] = []
    cursor = {k: 0 for k in order}
    while len(shared) < overlap:
        for k in order:
            if len(shared) < overlap and cursor[k] < len(chosen[k]):
                shared.append((chosen[k][cursor[k]], k))
                cursor[k] += 1
    shared_ids = {t for t, _ in shared}
    rest = [(t, k) for k in sorted(chosen) for t in chosen[k] if t not in shared_ids]
    rng.shuffle(rest)
    rng.shuffle(shared)
    names = [a for a in dict.fromkeys(a.strip() for a in annotators) if a]
    out: list[dict[str, Any]] = []
    for pos, (tid, k) in enumerate(shared):
        out.append({"trace_id": tid, "position": pos, "stratum": k, "overlap": 1,
                    "annotators": ",".join(names)})
    for i, (tid, k) in enumerate(rest):
        out.append({"trace_id": tid, "position": len(shared) + i, "stratum": k, "overlap": 0,
                    "annotators": names[i % len(names)] if names else ""})
    return out


def sample_labels(
    workspace: Workspace,
    n: int = 100,
    by: Sequence[str] = ("model", "domain"),
    *,
    overlap: int = 0,
    seed: int = 0,
    condition: str | None = None,
    annotators: Sequence[str] = (),
) -> SampleSummary:
    """Draw the sample from `workspace` and store it (replacing any previous sample)."""
    rows = workspace.trace_rows(status="ok", condition=condition)
    sample = stratified_sample(rows, n, by, overlap=overlap, seed=seed, annotators=annotators)
    workspace.put_label_sample(sample)
    sizes: dict[str, int] = defaultdict(int)
    for r in rows:
        sizes["|".join(str(r[c]) for c in by)] += 1
    drawn: dict[str, int] = defaultdict(int)
    for r in sample:
        drawn[r["stratum"]] += 1
    design = LabelDesign(condition=condition, by=list(by), cells={
        k: LabelCell(population=v, target=drawn[k], drawn=drawn[k])
        for k, v in sorted(sizes.items())})
    workspace.update_meta(label_design=design.model_dump(mode="json"))
    strata: dict[str, int] = defaultdict(int)
    for r in sample:
        strata[r["stratum"]] += 1
    return SampleSummary(n=len(sample), available=len(rows), strata=dict(sorted(strata.items())),
                         overlap=sum(r["overlap"] for r in sample))


def annotator_queue(sample: Sequence[dict[str, Any]], annotator: str,
                    labelled_by_others: set[str], labelled_by_me: set[str]) -> list[str]:
    """The trace ids `annotator` should label, in sample order (see the module rule)."""
    out: list[str] = []
    for r in sample:
        assigned = [a for a in str(r["annotators"] or "").split(",") if a]
        if r["overlap"]:
            if not assigned or annotator in assigned:
                out.append(r["trace_id"])
        elif assigned:
            if annotator in assigned:
                out.append(r["trace_id"])
        elif r["trace_id"] in labelled_by_me or r["trace_id"] not in labelled_by_others:
            out.append(r["trace_id"])
    return out

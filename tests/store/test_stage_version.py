"""A stored stage row is read only by the code version that wrote it (`STAGE_VERSION`).
When the code a stored value comes from changes, this test fails until the change is
weighed: bump `analysis._stored.STAGE_VERSION` if any stored value can come out
differently (old rows are then recomputed, never read), and record the new digest here."""

from __future__ import annotations

import hashlib
from pathlib import Path

from agentprop.analysis._stored import STAGE_VERSION

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (
    "agentprop/analysis/noticing.py", "agentprop/analysis/stages.py",
    "agentprop/analysis/outcomes.py", "agentprop/analysis/_stored.py",
    "agentprop/judges/_fabrication.py", "agentprop/judges/_reading.py",
    "agentprop/judges/_extract.py", "agentprop/judges/_languages.py",
    "agentprop/judges/_lexicon.py", "agentprop/judges/_entities.py",
)
"""What a stored stage row is computed from: the stages, the `noticed` text rules, and the
`fabricated` rule with the facts judge's reading of an answer that it uses."""

RECORDED = (2, "c5f03513a910e176")
"""(STAGE_VERSION, digest of SOURCES) as last weighed. 2026-12-07: `_stored.stored_checks`
reads the stored rows as columns (what it reads, not what is stored: no bump)."""


def test_the_stage_sources_are_as_last_weighed() -> None:
    h = hashlib.sha256()
    for name in SOURCES:
        h.update(name.encode())
        h.update((ROOT / name).read_bytes().replace(b"\r\n", b"\n"))
    assert (STAGE_VERSION, h.hexdigest()[:16]) == RECORDED, (
        "the code behind stored stage rows changed: bump STAGE_VERSION in "
        "agentprop/analysis/_stored.py if a stored value can change, then record "
        "(STAGE_VERSION, digest) in RECORDED")

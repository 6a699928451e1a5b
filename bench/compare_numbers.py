"""Compare the demo's numbers.json before and after a change (a refactor must change none).

Two ways to use it:

    python bench/compare_numbers.py BEFORE.json AFTER.json
    python bench/compare_numbers.py --ref main [--keep DIR]

The second exports agentprop/ at git REF into a temp folder, runs `agentprop demo` once with
that code and once with the working tree's code (each into its own workspace, offline), and
compares the two `report/numbers.json`. Every name is compared exactly (value, n and CI): the
demo is seeded, so any difference is a real change. Exit status 0 when identical, 1 when not
(the differing names are printed), 2 on bad input.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEMO = "from agentprop.cli import main; main()"


def load(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object of names to numbers")
    return data


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to NaN (an undefined rate stays undefined)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def compare(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[str]]:
    """Names only before, only after, and present in both with a different entry."""
    return {
        "removed": sorted(before.keys() - after.keys()),
        "added": sorted(after.keys() - before.keys()),
        "changed": sorted(k for k in before.keys() & after.keys()
                          if not _same(before[k], after[k])),
    }


def run_demo(src: Path, workspace: Path) -> tuple[Path, float]:
    """Run the demo with the agentprop package found in `src`; numbers.json and seconds."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    workspace = workspace.resolve()
    t0 = time.perf_counter()
    # run in `src`: `python -c` puts the current folder first on sys.path, before
    # PYTHONPATH, so run from the repository both demos would import the working tree's code
    subprocess.run([sys.executable, "-c", DEMO, "demo", "-w", str(workspace), "--json"],
                   env=env, check=True, stdout=subprocess.DEVNULL, cwd=src)
    return workspace / "report" / "numbers.json", time.perf_counter() - t0


def export_ref(ref: str, dest: Path) -> None:
    """The agentprop/ package as committed at `ref`, unpacked under `dest`."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "agentprop"],
                         check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(dest, filter="data")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="BEFORE.json AFTER.json")
    ap.add_argument("--ref", help="git ref to compare the working tree's demo against")
    ap.add_argument("--keep", type=Path, help="keep both demo workspaces under this folder")
    args = ap.parse_args(argv)
    if bool(args.ref) == bool(args.files) or (args.files and len(args.files) != 2):
        print("error: give BEFORE.json AFTER.json, or --ref REF", file=sys.stderr)
        return 2
    if args.files:
        before_path, after_path = args.files
    else:
        base = args.keep or Path(tempfile.mkdtemp(prefix="compare-numbers-"))
        export_ref(args.ref, base / "src")
        before_path, s_before = run_demo(base / "src", base / "before")
        after_path, s_after = run_demo(ROOT, base / "after")
        print(f"demo at {args.ref}: {s_before:.0f} s; working tree: {s_after:.0f} s")
    try:
        before, after = load(before_path), load(after_path)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    diff = compare(before, after)
    for kind, names in diff.items():
        for name in names:
            print(f"{kind}: {name}")
    same = not any(diff.values())
    print(f"{len(before)} names before, {len(after)} after: "
          + ("identical" if same else
             f"{len(diff['changed'])} changed, {len(diff['added'])} added, "
             f"{len(diff['removed'])} removed"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

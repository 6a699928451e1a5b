"""One process per run id: an exclusive lock file per run in the workspace folder.

Two identical `run` commands started at once would otherwise both see every unit as
pending and both call the model for it: no duplicate row results (`INSERT OR IGNORE`),
but a real API bills twice. The lock is an OS file lock (`flock`) on
``WORKSPACE/.locks/<run hash>.lock``: it is released when the process ends, even by
kill -9, so a crash never leaves a stale lock behind. The second process fails at once
with a clear message; rerun it when the first is done, and it resumes. Where `fcntl` does
not exist (Windows) runs are not locked.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from agentprop.core import stable_hash
from agentprop.errors import AgentpropError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

LOCK_DIR = ".locks"


class RunLockedError(AgentpropError):
    """The run is being executed by another process; one line for the user."""


def _acquire(path: Path, run_id: str) -> IO[str]:
    f = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        holder = f.read().strip() or "unknown"
        f.close()
        raise RunLockedError(
            f"run {run_id} is already running in another process (pid {holder}) on this "
            "workspace; wait for it to finish, then rerun the same command to resume"
        ) from None
    f.seek(0)
    f.truncate()
    f.write(str(os.getpid()))
    f.flush()
    return f


@contextlib.contextmanager
def run_lock(workspace: str | Path, run_ids: Iterable[str]) -> Iterator[None]:
    """Hold the lock of every run in `run_ids` (RunLockedError if another process holds
    one) for the duration of the block."""
    if fcntl is None:
        yield
        return
    folder = Path(workspace) / LOCK_DIR
    folder.mkdir(exist_ok=True)
    held: list[IO[str]] = []
    try:
        for rid in sorted(set(run_ids)):
            held.append(_acquire(folder / f"{stable_hash(rid)[:16]}.lock", rid))
        yield
    finally:
        for f in held:
            f.close()  # closing the file releases its lock

"""What a judging pass still has to do, read from the store in pages of traces.

A pass judges every trace of its scope lacking a verdict of a judge (a verdict marked
``raw.retry`` does not count: it is redone). Holding that as sets of ids and a list of
work items costs hundreds of MB at a million traces, so the work is read lazily in
insertion order, one page of trace ids at a time (`Workspace.pending_page`). Verdicts
written while the pass runs belong to traces already read, so no trace is handed out
twice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentprop.judges._base import Judge
    from agentprop.store import Workspace

PAGE = 500


def pending_items(ws: Workspace, judges: Sequence[Judge],
                  run_ids: Sequence[str] | None = None,
                  page: int = PAGE) -> Iterator[tuple[str, list[Judge]]]:
    """(trace id, the judges that still have to judge it), in insertion order."""
    by_name = {j.name: j for j in judges}
    after = 0
    while True:
        after, todo = ws.pending_page(list(by_name), run_ids, after=after, limit=page)
        if not todo and not after:
            return
        for trace_id, names in todo:
            yield trace_id, [by_name[n] for n in names]

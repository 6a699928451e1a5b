"""What a judging pass still has to do, read from the store in pages of traces.

A pass judges every trace of its scope lacking a verdict of a judge (a verdict marked
``raw.retry`` does not count: it is redone). Holding that as sets of ids and a list of
work items costs hundreds of MB at a million traces, so the work is read lazily in
insertion order, one page of trace ids at a time (keyset on rowid: no long read
transaction, so the writer's commits are checkpointed as they come). Verdicts written
while the pass runs belong to traces already read, so no trace is handed out twice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentprop.judges._base import Judge
    from agentprop.store import Workspace

PAGE = 500
# a verdict that counts as done: any verdict of the judge not marked raw.retry
_DONE = ("SELECT 1 FROM verdicts v WHERE v.trace_id = t.id AND v.judge = ? "
         "AND json_extract(v.data, '$.raw.retry') IS NOT 1")


def _scope(run_ids: Sequence[str] | None) -> tuple[str, list[str]]:
    if run_ids is None:
        return "", []
    return f" AND t.run_id IN ({','.join('?' * len(run_ids))})", list(run_ids)


def pending_count(ws: Workspace, judge: str, run_ids: Sequence[str] | None = None) -> int:
    """How many traces of the scope `judge` has still to judge."""
    where, params = _scope(run_ids)
    sql = f"SELECT COUNT(*) FROM traces t WHERE NOT EXISTS ({_DONE}){where}"
    return int(ws.conn.execute(sql, [judge, *params]).fetchone()[0])


def pending_items(ws: Workspace, judges: Sequence[Judge],
                  run_ids: Sequence[str] | None = None,
                  page: int = PAGE) -> Iterator[tuple[str, list[Judge]]]:
    """(trace id, the judges that still have to judge it), in insertion order."""
    where, params = _scope(run_ids)
    after = 0
    while True:
        rows = ws.conn.execute(f"SELECT t.rowid, t.id FROM traces t WHERE t.rowid > ?{where} "
                               "ORDER BY t.rowid LIMIT ?", [after, *params, page]).fetchall()
        if not rows:
            return
        after = rows[-1][0]
        ids = [r[1] for r in rows]
        marks = ",".join("?" * len(ids))
        done = {j.name: {r[0] for r in ws.conn.execute(
            f"SELECT t.id FROM traces t WHERE t.id IN ({marks}) AND EXISTS ({_DONE})",
            [*ids, j.name])} for j in judges}
        for trace_id in ids:
            todo = [j for j in judges if trace_id not in done[j.name]]
            if todo:
                yield trace_id, todo

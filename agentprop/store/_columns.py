"""Query results as columns: a workspace's large tables (stage rows, verdicts, votes,
unit columns) read into pandas without a Python object per value, when the optional
columnar reader is installed (`pip install 'agentprop[scale]'`: the ADBC SQLite driver,
which hands SQLite's values to Arrow in C).

Without it, `pandas.read_sql_query` builds the same frame from Python rows (≈ 3–5× the
CPU: 4.5 of ≈ 30 s of `analyze` at 200,000 traces, bench/README.md). Both give the same
frame: a column's values keep their SQLite type (integers with NULLs as float64 NaN, as
pandas makes them), and a column that is NULL throughout (or a result without rows) is
object None, as `read_sql_query` makes it. ADBC infers a column's type from its values,
so this needs what the store's writers guarantee: one storage class per column besides
NULL (a column mixing integers and text would come back as text).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import pandas as pd

_ONE_BATCH = 1 << 30
"""Rows per Arrow batch: every row in one, so the driver infers each column's type from
all of its values (from the first 1,024 by default, which fails on a column NULL there)."""


def columnar_reader() -> bool:
    """Whether the columnar reader (the ADBC SQLite driver, with pyarrow) is installed."""
    try:
        import adbc_driver_sqlite.dbapi  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def read_frame(conn: sqlite3.Connection, uri: str, sql: str, params: Sequence[Any] = (),
               *, columnar: bool | None = None) -> pd.DataFrame:
    """The result of `sql` as a DataFrame: through the columnar reader on a read-only
    connection to `uri` (the workspace's database) when it is installed (`columnar`
    None) or asked for, else through `conn`, as `read_sql_query` reads it."""
    if columnar is None:
        columnar = columnar_reader()
    if not columnar:
        return pd.read_sql_query(sql, conn, params=tuple(params))
    import adbc_driver_sqlite.dbapi as adbc

    with adbc.connect(uri) as ac, ac.cursor() as cur:
        cur.adbc_statement.set_options(**{"adbc.sqlite.query.batch_rows": str(_ONE_BATCH)})
        cur.execute(sql, tuple(params) if params else None)
        table = cur.fetch_arrow_table()
    empty = [c for c, col in zip(table.column_names, table.columns, strict=True)
             if col.null_count == len(col)]
    frame = table.to_pandas(split_blocks=True, self_destruct=True)  # frees as it converts
    del table
    for name in empty:
        frame[name] = pd.Series([None] * len(frame), index=frame.index, dtype=object)
    return frame

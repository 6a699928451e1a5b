"""SIGTERM ends a long command the way Ctrl-C does.

A run or a judging pass is often stopped by something other than a person at the
keyboard (`timeout`, a job scheduler, `docker stop`), and those send SIGTERM. Python's
default for SIGTERM ends the process at once, so the batch a writer holds is lost and no
resume command is printed. `run_interruptible` runs a coroutine in a fresh event loop
where SIGTERM cancels it, so its `finally` blocks flush what finished, and then raises
KeyboardInterrupt, which the CLI already turns into the Ctrl-C message and exit 130.

Both signals reach a coroutine only when the event loop runs, so a scheduler whose
work never awaits anything (an in-process simulated model, a heuristic judge) calls
`checkpoint()` between units: without it Ctrl-C waited until every unit had run.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

# add_signal_handler is refused off the main thread and on platforms without it
_NO_HANDLER = (NotImplementedError, RuntimeError, ValueError)


async def checkpoint() -> None:
    """Give the event loop a turn: a pending Ctrl-C or SIGTERM is delivered here. One per
    unit of work costs about 10 µs (a unit is milliseconds at the fastest)."""
    await asyncio.sleep(0)


def run_interruptible(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coro)`, with SIGTERM cancelling it and raising KeyboardInterrupt."""

    async def main() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        terminated = False

        def on_term() -> None:
            nonlocal terminated
            terminated = True
            if task is not None:
                task.cancel()

        with contextlib.suppress(*_NO_HANDLER):
            loop.add_signal_handler(signal.SIGTERM, on_term)
        try:
            return await coro
        except asyncio.CancelledError:
            if terminated:
                raise KeyboardInterrupt from None
            raise
        finally:
            with contextlib.suppress(*_NO_HANDLER):
                loop.remove_signal_handler(signal.SIGTERM)

    return asyncio.run(main())

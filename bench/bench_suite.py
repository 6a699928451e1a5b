"""Time building and checking the full 2,300-task suite (target: < 10 s on 2 cores)."""

from __future__ import annotations

import time

from agentprop.suite import build_suite, check_suite


def main() -> None:
    t0 = time.perf_counter()
    suite = build_suite()
    t1 = time.perf_counter()
    failures = check_suite(suite)
    t2 = time.perf_counter()
    print(
        f"tasks={len(suite)} build={t1 - t0:.2f}s check={t2 - t1:.2f}s "
        f"total={t2 - t0:.2f}s failures={len(failures)}"
    )


if __name__ == "__main__":
    main()

"""What this machine lets opkit use."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The cores this process may run on (its CPU affinity: a container or `taskset` may allow fewer than the
    machine has), at least 1. The default for compile jobs and verify workers."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


__all__ = ["usable_cpus"]

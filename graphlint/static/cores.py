"""How many worker processes ``graphlint check`` starts by default: the cores this process may
use, as ruff (and any Rust program's ``available_parallelism``) counts them."""

from __future__ import annotations

import os

#: Where a container's CPU limit is read (cgroup v2, then v1): ``os.cpu_count()`` counts the
#: host's cores, and a pool of that many workers on a 2-CPU quota only waits its turn.
CGROUP_CPU_MAX = "/sys/fs/cgroup/cpu.max"
CGROUP_V1_CPU = "/sys/fs/cgroup/cpu"


def available_cores() -> int:
    """The cores this process may use: those it may be scheduled on (``sched_getaffinity``),
    capped by a cgroup CPU quota (a container's ``--cpus``), as ruff's and cargo's
    ``available_parallelism`` count them. At least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    quota = _cgroup_quota()
    return max(1, min(cores, quota) if quota else cores)


def _cgroup_quota() -> int | None:
    """The CPU quota of the cgroup, rounded up to whole cores; None when there is none."""
    try:
        with open(CGROUP_CPU_MAX) as fh:
            limit, period_text = fh.read().split()[:2]  # "max 100000" or "200000 100000"
        if limit == "max":
            return None
        return -(-int(limit) // int(period_text))
    except (OSError, ValueError, ZeroDivisionError):
        pass
    try:
        with open(os.path.join(CGROUP_V1_CPU, "cpu.cfs_quota_us")) as fh:
            quota_us = int(fh.read())
        with open(os.path.join(CGROUP_V1_CPU, "cpu.cfs_period_us")) as fh:
            period_us = int(fh.read())
        return -(-quota_us // period_us) if quota_us > 0 and period_us > 0 else None
    except (OSError, ValueError):
        return None

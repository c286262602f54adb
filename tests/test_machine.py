"""opkit.machine.usable_cpus: compile jobs and verify workers default to the cores this process may use."""

from __future__ import annotations

import os

from opkit import machine
from opkit.verify import parallel


def test_the_affinity_not_the_machine_sets_the_count(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert machine.usable_cpus() == 1
    assert parallel.default_workers() == 1


def test_without_affinity_the_cpu_count_and_never_zero(monkeypatch):
    def no_affinity(pid):
        raise OSError("not supported")

    monkeypatch.setattr(os, "sched_getaffinity", no_affinity, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert machine.usable_cpus() == 6
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert machine.usable_cpus() == 1

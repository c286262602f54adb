"""The replay's timed run (opkit/perf/replay_engine.cpp through opkit/perf/engine.py) on small graphs whose times
are worked out by hand: dependencies, fixed parts, flows capped per task and HBM shared max-min fairly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opkit.errors import OpkitError
from opkit.perf import engine


def times(tasks: list[tuple[float, float, float]], edges: list[tuple[int, int]], hbm: float) -> list[tuple[float, float]]:
    """(start, end) of each task: ``tasks`` are (fixed, gm_bytes, cap), ``edges`` (src, dst)."""
    cols = np.array(tasks, dtype=np.float64).reshape(-1, 3)
    e = np.array(edges, dtype=np.int32).reshape(-1, 2)
    spec = np.arange(len(cols), dtype=np.int32)  # a spec of its own for each task
    start, end = engine.timed_run(spec, cols[:, 0], cols[:, 1], cols[:, 2], e[:, 0], e[:, 1], hbm)
    return list(zip(start.tolist(), end.tolist(), strict=True))


def test_a_task_starts_when_its_last_dependency_ends() -> None:
    # 0: 10 cycles, 1: 4 cycles, 2 after both (the edge 0 -> 2 twice counts once): 10..15; 3 free: 0..0
    out = times([(10, 0, 0), (4, 0, 0), (5, 0, 0), (0, 0, 0)], [(0, 2), (1, 2), (0, 2)], 1e9)
    assert out == [(0, 10), (0, 4), (10, 15), (0, 0)]


def test_fixed_part_then_flow_at_its_cap() -> None:
    # 2 fixed cycles, then 100 B at 10 B/cycle with ample HBM: ends at 12; its successor 12..13
    assert times([(2, 100, 10), (1, 0, 0)], [(0, 1)], 1e9) == [(0, 12), (12, 13)]


def test_flows_share_hbm_max_min_fairly() -> None:
    # HBM 10 B/cycle. a: 20 B capped at 2, b: 80 B capped at 10 -> a gets 2, b the 8 left: both end at 10
    assert times([(0, 20, 2), (0, 80, 10)], [], 10.0) == [(0, pytest.approx(10)), (0, pytest.approx(10))]
    # a: 100 B, b: 50 B, both capped at 10: 5 B/cycle each, b ends at 10; a alone at 10 B/cycle: 50 B in 5 more
    out = times([(0, 100, 10), (0, 50, 10)], [], 10.0)
    assert out == [(0, pytest.approx(15)), (0, pytest.approx(10))]


def test_a_flow_that_joins_later_slows_the_one_in_flight() -> None:
    # a: 100 B from 0; b: 5 fixed cycles, then 50 B. HBM 10, caps 10: a alone to 5 (50 B moved), then 5 each:
    # both have 50 B left and end at 15
    out = times([(0, 100, 10), (5, 50, 10)], [], 10.0)
    assert out == [(0, pytest.approx(15)), (0, pytest.approx(15))]
    # with ample HBM each moves at its own cap: a ends at 10, b at 5 + 5
    assert times([(0, 100, 10), (5, 50, 10)], [], 1e9) == [(0, 10), (0, 10)]


def test_a_graph_that_cannot_finish_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="2 of 3 trace events never became ready"):
        times([(1, 0, 0), (1, 0, 0), (1, 0, 0)], [(1, 2), (2, 1)], 1e9)
    with pytest.raises(RuntimeError, match="zero bandwidth"):
        times([(0, 100, 10)], [], 0.0)
    assert times([], [], 1.0) == []


def test_a_compiler_failure_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from opkit.build import toolchain

    monkeypatch.setattr(toolchain, "find_compiler", lambda *a: toolchain.Compiler("/bin/false", "gcc", (12,)))
    with pytest.raises(OpkitError, match=r"replay engine \(replay_engine.cpp\) cannot be compiled"):
        engine._compile(tmp_path / "engine.so")
    assert not list(tmp_path.iterdir())

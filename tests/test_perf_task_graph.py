"""The replay's task graph as columns (opkit/perf/task_graph.py): specs stored once, tasks as views, edges."""

from __future__ import annotations

from test_perf_model import core, flag, op, toy, trace

from opkit.perf.replay import build_graph, run


def test_a_recurring_instruction_is_one_spec_and_tasks_read_back() -> None:
    ev = [op("MTE2", 1000)] * 3 + [flag("set_flag", "MTE2", "V"), flag("wait_flag", "MTE2", "V")] + \
        [op("V", 20, 10, api="Relu")] * 2
    g = build_graph(trace(core(ev), core(ev, block=1)), toy())
    assert len(g) == 14 and g.n_cores == 2
    assert len(g.spec_fixed) == 4  # DataCopy, SetFlag, WaitFlag, Relu: the same on both cores
    run(g, 1e9)
    tasks = g.tasks
    assert [t.name for t in tasks[:7]] == ["DataCopy"] * 3 + ["SetFlag MTE2->V #0", "WaitFlag MTE2->V #0"] + \
        ["Relu"] * 2
    first, second = tasks[0], tasks[1]
    assert (first.core, first.pipe, first.gm_bytes, first.cap, first.klass) == (0, "MTE2", 1000.0, 10.0, "gm_read")
    assert second.deps == [0] and (second.start, second.end) == (100.0, 200.0)
    assert tasks[4].deps == [3] and tasks[5].deps == [4]  # the wait after its set; Relu after the wait (scalar order)
    assert tasks[-1].core == 1 and tasks[-1].end == 320.0  # 3 copies of 100 cycles, 2 x 10 repeats
    assert g.edges == [(3, 4, "flag"), (10, 11, "flag")]
    assert list(g.end) == [t.end for t in tasks]

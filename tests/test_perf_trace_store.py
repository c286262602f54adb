"""The compact trace store (opkit/perf/trace_store.py): a trace file read core by core, a trace dict converted, the
same store either way; each distinct event priced once by the replay."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_perf_mm_order import job, job_ids
from test_perf_mm_order import trace as mm_trace

from opkit.errors import OpkitError
from opkit.perf import costs, replay
from opkit.perf.case import read_trace
from opkit.perf.mm_order import canonical_job_order
from opkit.perf.model import evaluate
from opkit.perf.trace_store import TraceStore, as_store, load_trace

CHIP = "ascend910b2"


def rd(addr: int, n: int) -> dict[str, Any]:
    return {"ev": "op", "pipe": "MTE2", "api": "DataCopy", "dtype": "float16", "bytes": n, "repeats": 1,
            "gm": [addr, n, n, 1, 1, 0]}


def vec(api: str = "Exp") -> dict[str, Any]:
    return {"ev": "op", "pipe": "V", "api": api, "dtype": "float32", "bytes": 256, "repeats": 8}


def sample() -> dict[str, Any]:
    """Three cores: reads with GM ranges, recurring instructions, flags; core 2's events include a call site whose
    file name holds the text that separates events (its line is read as JSON)."""
    flags = [{"ev": "set_flag", "from": "MTE2", "to": "V", "id": 0}, {"ev": "wait_flag", "from": "MTE2", "to": "V",
                                                                      "id": 0}]
    cores = []
    for b in range(2):
        ev = []
        for i in range(4):
            ev += [rd((1 << 40) + 4096 * (i % 2), 4096), *flags, vec(), vec("Add")]
        cores.append({"block": b, "core_type": "AIV", "pipes": {"V": {"instrs": 8, "bytes": 2048, "repeats": 64}},
                      "instructions": [], "events_dropped": 0, "events": ev})
    odd = {"ev": "hccl_wait", "handle": 0, "slice": 0, "file": "a},{b.cpp", "line": 3}
    cores.append({"block": 2, "core_type": "AIV", "pipes": {}, "instructions": [], "events_dropped": 5,
                  "events": [vec(), odd, rd(1 << 41, 512), vec()]})
    return {"kernel": "k", "soc": "ascend910b2", "blocks": 3, "trace_only": True, "rank": 0, "rank_dim": 1,
            "cores": cores}


def write_like_the_simulator(path: Path, tr: dict[str, Any]) -> Path:
    """The layout of write_trace (kernel_launch.h): a header line, one line per core, then the closing line."""
    head = {k: v for k, v in tr.items() if k != "cores"}
    lines = [json.dumps(head, separators=(",", ":"))[:-1] + ',"cores":[']
    for i, c in enumerate(tr["cores"]):
        lines[-1] += "," if i else ""
        lines.append(" " + json.dumps(c, separators=(",", ":")))
    lines.append("]}")
    path.write_text("\n".join(lines) + "\n")
    return path


def same(a: TraceStore, b: TraceStore) -> None:
    assert a.head == b.head and a.records == b.records and len(a.cores) == len(b.cores)
    for x, y in zip(a.cores, b.cores, strict=True):
        assert x.info == y.info
        assert np.array_equal(x.rec, y.rec) and np.array_equal(x.gm, y.gm) and np.array_equal(x.ranges, y.ranges)


def test_a_file_read_core_by_core_is_the_store_of_its_document(tmp_path: Path) -> None:
    tr = sample()
    f = write_like_the_simulator(tmp_path / "t.json", tr)
    assert json.loads(f.read_text()) == tr  # the layout is the one JSON document
    store = load_trace(f)
    same(store, as_store(tr))
    assert [store.events(ci) for ci in range(3)] == [c["events"] for c in tr["cores"]]
    # each distinct event once: core 0's and 1's reads differ only in their GM range, so they share one record
    assert len(store.records) == 7
    assert len(set(store.cores[0].rec.tolist()) | set(store.cores[1].rec.tolist())) == 5
    assert store.cores[0].ranges.tolist() == [[(1 << 40) + 4096 * (i % 2), 4096, 4096, 1, 1, 0] for i in range(4)]
    assert (store.cores[2].block, store.cores[2].core_type, store.cores[2].events_dropped) == (2, "AIV", 5)
    # a file in another layout (one line) is read whole; a cut-off file is an error that names it
    one = tmp_path / "one.json"
    one.write_text(json.dumps(tr))
    same(load_trace(one), store)
    cut = tmp_path / "cut.json"
    cut.write_text("\n".join(f.read_text().splitlines()[:2]))
    with pytest.raises(OpkitError, match="cut.json: the run's trace cannot be read"):
        read_trace(cut)


def test_a_dict_and_its_store_model_the_same(tmp_path: Path) -> None:
    tr = sample()
    f = write_like_the_simulator(tmp_path / "t.json", tr)
    a, _ = evaluate(copy.deepcopy(tr), CHIP)
    b, _ = evaluate(read_trace(f), CHIP)
    assert a == b and a["l2_by_address"] and a["l2_hit"] == pytest.approx(6 * 4096 / (8 * 4096 + 512))  # 2 first reads miss
    assert tr == sample()  # the dict is not changed


def test_matmul_jobs_reordered_in_the_store_as_in_the_dict() -> None:
    tr = mm_trace(job(1, 3) + job(3, 3) + job(2, 3) + job(4, 3), [1, 2], [3, 4])
    store = canonical_job_order(as_store(copy.deepcopy(tr)))
    ordered = canonical_job_order(copy.deepcopy(tr))
    assert job_ids(ordered) == [1, 3, 2, 4]
    same(store, as_store(ordered))


def test_each_distinct_instruction_is_priced_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def counted(ev: dict[str, Any], *a: Any) -> costs.Cost:
        calls.append(str(ev["api"]))
        return costs.op_cost(ev, *a)

    monkeypatch.setattr(replay, "op_cost", counted)
    tr = {"cores": [{"block": b, "core_type": "AIV", "events": [vec(), vec("Add")] * 500} for b in range(3)]}
    g = replay.build_graph(tr, costs.chip_params(CHIP))
    assert len(g) == 3000 and sorted(calls) == ["Add", "Exp"]

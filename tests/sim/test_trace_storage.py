"""The simulator's trace storage (tests/sim/cpp/trace_store_harness.cpp): each core's events in order in the trace
file, the instructions an untrace took back left out of it and of its counts, with and without a full storage."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sim_util import CPP, build

from opkit.perf.trace_store import as_store, load_trace


@pytest.fixture(scope="module")
def exe() -> Path:
    return build(CPP / "trace_store_harness.cpp")


def run(exe: Path, tmp: Path, **env: str) -> tuple[dict[str, Any], Path]:
    trace = tmp / "t.json"
    e = {k: v for k, v in os.environ.items() if not k.startswith("OPKIT_SIM_TRACE")}
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60,
                       env={**e, "OPKIT_SIM_TRACE": str(trace), **env})
    assert r.returncode == 0, r.stderr
    return json.loads(trace.read_text()), trace


def op(pipe: str, api: str, dtype: str, nbytes: int, repeats: int, **kw: Any) -> dict[str, Any]:
    return {"ev": "op", "pipe": pipe, "api": api, "dtype": dtype, "bytes": nbytes, "repeats": repeats, **kw}


ADDS = op("V", "Adds", "float32", 256, 8)
MULS = op("V", "Muls", "float32", 512, 16)
OUT = op("MTE3", "DataCopy", "float32", 64, 1)


def read(block: int) -> dict[str, Any]:
    return op("MTE2", "DataCopy", "float16", 128, 2, gm=[(1 << 40) + 256 * block, 64, 128, 2, 1, 0])


def flag(block: int) -> dict[str, Any]:
    return {"ev": "set_flag", "from": "V", "to": "MTE3", "id": block}


def test_untraced_events_are_left_out_of_the_file_and_the_counts(exe: Path, tmp_path: Path) -> None:
    t, path = run(exe, tmp_path)
    c0, c1 = t["cores"]
    assert c0["events"] == [ADDS, flag(0), OUT]
    assert c1["events"] == [ADDS, read(1), MULS, flag(1), OUT]
    assert c0["events_dropped"] == c1["events_dropped"] == 0
    assert c0["pipes"] == {"V": {"instrs": 1, "bytes": 256, "repeats": 8}, "MTE3": {"instrs": 1, "bytes": 64, "repeats": 1}}
    assert c1["pipes"]["MTE2"] == {"instrs": 1, "bytes": 128, "repeats": 2} and c1["pipes"]["V"]["instrs"] == 2
    muls = [i for i in c0["instructions"] if i["api"] == "Muls"]
    assert muls == [{"pipe": "V", "api": "Muls", "dtype": "float32", "count": 0, "bytes": 0, "repeats": 0}]
    # the file is in the layout the model reads core by core
    store, whole = load_trace(path), as_store(t)
    assert store.records == whole.records
    assert all(np.array_equal(a.rec, b.rec) and np.array_equal(a.ranges, b.ranges)
               for a, b in zip(store.cores, whole.cores, strict=True))


def test_untrace_of_a_dropped_event_takes_back_its_count(exe: Path, tmp_path: Path) -> None:
    # two events a core and no pool: core 0 keeps Adds and the read, drops Muls, the flag and the write; the untrace
    # takes back the kept read and one of the dropped
    t, _ = run(exe, tmp_path, OPKIT_SIM_TRACE_CORE_EVENTS="2", OPKIT_SIM_TRACE_EVENTS="0")
    c0, c1 = t["cores"]
    assert (c0["events"], c0["events_dropped"]) == ([ADDS], 2)
    assert (c1["events"], c1["events_dropped"]) == ([ADDS, read(1)], 3)
    # a pool of one more event: the first core to ask for it keeps its Muls
    t, _ = run(exe, tmp_path, OPKIT_SIM_TRACE_CORE_EVENTS="2", OPKIT_SIM_TRACE_EVENTS="1")
    assert sum(len(c["events"]) + c["events_dropped"] for c in t["cores"]) == 1 + 2 + 3 + 2

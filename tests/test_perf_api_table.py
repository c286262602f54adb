"""The performance model knows every API the simulator can trace, and names any it does not.

The traced (pipe, API) pairs come from the simulator's headers (opkit.perf.traced_apis), so an API
added to the simulator is checked here without anyone listing it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from test_perf_model import core, trace

from opkit.perf import apis
from opkit.perf.costs import chip_params, op_cost
from opkit.perf.model import model_trace
from opkit.perf.report import summary_lines
from opkit.perf.traced_apis import Site, _header_text, preprocess, scan, traced_apis
from opkit.run.types import RunOutput

ROOT = Path(__file__).resolve().parents[1]
DTYPES = ("float16", "bfloat16", "float32", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64")

needs_cxx = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("clang++") is None,
                               reason="no C++ compiler to preprocess the simulator's headers")


def ev(pipe: str, api: str, dtype: str = "float16", nbytes: int = 4096, repeats: int = 16) -> dict[str, Any]:
    return {"ev": "op", "pipe": pipe, "api": api, "dtype": dtype, "bytes": nbytes, "repeats": repeats}


# --- the table against the simulator's headers --------------------------------------------------------

@pytest.fixture(scope="module")
def traced():
    return traced_apis()


@needs_cxx
def test_every_traced_call_resolves_to_a_literal(traced) -> None:
    assert not traced.unresolved, "trace(...) calls whose API or pipe is not a literal the scan can follow:\n" + \
        "\n".join(f"{s}: {what} from `{text}`" for s, what, text in traced.unresolved)


@needs_cxx
def test_the_scan_finds_the_known_instructions(traced) -> None:
    # the scan cannot pass by finding nothing: the basic instructions of every pipe, the cube path the
    # Matmul API runs on, the macro-generated, helper-forwarded and name-function forms
    want = {("MTE2", "DataCopy"), ("MTE3", "DataCopy"), ("MTE2", "DataCopyPad"), ("MTE1", "LoadData"),
            ("M", "Mmad"), ("FIX", "Fixpipe"), ("V", "Add"), ("V", "Exp"), ("V", "WholeReduceMax"),
            ("V", "Sigmoid"), ("V", "SoftmaxFlashV2"), ("V", "SimpleSoftMax"), ("V", "DataCopy"),
            ("MTE3", "InitGlobalMemory")}
    assert want <= set(traced.apis), sorted(want - set(traced.apis))
    assert len(traced.apis) > 90
    for sites in traced.apis.values():
        for s in sites:
            assert (ROOT / "opkit" / "sim" / "include" / s.file).is_file(), s


# Instructions the simulator issues on a pipe without a trace record (priced at nothing), as docs/perf.md
# §5 lists them; a new one fails here, and so does one of these once it is traced.
KNOWN_UNTRACED = {
    "Sort": "the merge of Sort<T, true> (isFullSort) after its traced Sort32",
    "Extract": "the (score, index) extraction of a sorted list",
    "scalar_touch": "LocalTensor GetValue/SetValue on the scalar pipe (untraced scalar work)",
}


@needs_cxx
def test_every_issued_instruction_is_traced_but_the_documented_gaps(traced) -> None:
    got = {name for _, name in traced.untraced}
    assert got == set(KNOWN_UNTRACED), (
        "issue(pipe) without a trace(...) after it (the performance model would not see the instruction):\n"
        + "\n".join(f"{s}: {name}" for s, name in traced.untraced if name not in KNOWN_UNTRACED)
        + f"\ntraced now, remove from KNOWN_UNTRACED and docs/perf.md §5: {sorted(set(KNOWN_UNTRACED) - got)}")
    text = (ROOT / "docs" / "perf.md").read_text(encoding="utf-8")
    for name in ("Extract", "isFullSort", "GetValue"):
        assert name in text.split("## 5.", 1)[1].split("\n## ", 1)[0], name


@needs_cxx
def test_every_traced_api_has_a_cost_entry(traced) -> None:
    missing = [f"{p}:{a} (traced at {', '.join(map(str, s[:3]))})" for (p, a), s in traced.apis.items()
               if apis.entry(p, a) is None]
    assert not missing, "traced APIs the performance model's table (opkit/perf/apis.py) does not know:\n" + \
        "\n".join(missing)


@needs_cxx
def test_every_traced_api_is_priced_without_a_fallback_in_every_dtype(traced) -> None:
    for chip in ("ascend910b2", "ascend310p3"):
        p = chip_params(chip)
        for (pipe, api) in traced.apis:
            for dt in (DTYPES if pipe == "V" else ("float16",)):
                c = op_cost(ev(pipe, api, dt), "AIC" if pipe in ("M", "MTE1", "FIX") else "AIV", p)
                assert not c.unknown and c.klass != "unknown" and c.fixed + c.gm_bytes > 0, (chip, pipe, api, dt, c)


def test_the_cube_dtypes_of_the_chips_are_priced() -> None:
    # Mmad's source dtypes (half, bfloat16_t, int8_t, float) at the documented rates
    for chip in ("ascend910b2", "ascend310p3"):
        p = chip_params(chip)
        costs = {dt: op_cost(ev("M", "Mmad", dt, repeats=64), "AIC", p) for dt in ("float16", "bfloat16", "int8",
                                                                                  "float32")}
        assert not any(c.unknown for c in costs.values())
        assert costs["int8"].fixed < costs["float16"].fixed == costs["bfloat16"].fixed < costs["float32"].fixed


def test_docs_table_is_the_code_table() -> None:
    text = (ROOT / "docs" / "perf.md").read_text(encoding="utf-8")
    section = text.split("### API cost table", 1)[1].split("\n## ", 1)[0]
    doc = {}
    for m in re.finditer(r"^\| (\w+) \| `([^`]+)` \| ([^|]+) \| ([^|]+) \|$", section, re.M):
        doc[(m.group(1), m.group(2))] = (m.group(3).strip(), m.group(4).strip())
    code = {(p, a): (r, s) for p, a, r, s in apis.rows()}
    assert set(doc) == set(code), (sorted(set(code) - set(doc)), sorted(set(doc) - set(code)))
    assert doc == code
    assumed = [k for k, (_, s) in code.items() if s.startswith("assumed")]
    assert {("V", "Compares"), ("V", "CreateVecIndex"), ("MTE2", "Fill")} <= set(assumed)
    for k in assumed:
        assert len(code[k][1]) > len("assumed: ") + 10, f"{k}: an assumed entry says why"


# --- the scan on headers written here -----------------------------------------------------------------

HEADERS = {
    "impl/sim_trace.h": """
#pragma once
enum Pipe : int { P_S = 0, P_V, P_M, P_MTE1, P_MTE2, P_MTE3, P_FIX };
inline void trace(int pipe, unsigned long bytes, unsigned long repeats, const char* api = "", const char* dt = "") {}
""",
    "impl/engine.h": """
#pragma once
#include "impl/sim_trace.h"
#include <string>
// a helper: the API and the pipe come from its callers
inline void run_vec(const char* api, bool wide) {
    int pipe = wide ? P_V : P_MTE1;
    trace(pipe, 256, 1, api, "float16");
}
inline const char* kind_name(int k) {
    switch (k) { case 0: return "KindA"; default: return "KindB"; }
}
inline void by_kind(int k) { const char* api = kind_name(k); trace(P_V, 0, 1, api); }
""",
    "api/vec.h": """
#pragma once
#include "impl/engine.h"
#define MY_UNARY(NAME) inline void NAME(int n) { run_vec(#NAME, n > 0); }
MY_UNARY(NewUnary)
template <class T> inline void Copier(T* d, const char* name = "DefaultCopy") {
    trace(P_MTE2, 32, 1, name, "int8");
}
inline void Direct() { trace(P_FIX, 64, 2, "Fixpipe"); }
inline void UsesDefault() { Copier<int>(nullptr); }
struct Named { const char* name_; void go() { trace(P_V, 1, 1, name_); } };
inline void Forwards(const char* what) { trace(P_V, 1, 1, what); }
struct Obj { int x; Obj(const char* api, int n) : x(n) { trace(P_MTE3, 1, 1, api); } };
inline void MakesObj() { Obj o("FromCtor", 1); (void)o; }
inline unsigned issue(int pipe) { return 0; }
inline void Silent() { issue(P_V); }
inline void begin() { issue(P_V); }
inline void Counted() { begin(); trace(P_V, 1, 1, "Counted"); }
""",
}


@needs_cxx
def test_scan_follows_helpers_macros_defaults_and_name_functions(tmp_path: Path) -> None:
    for name, text in HEADERS.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    res = scan(*_header_text(preprocess(tmp_path, 2201), tmp_path))
    assert set(res.apis) == {("V", "NewUnary"), ("MTE1", "NewUnary"), ("V", "KindA"), ("V", "KindB"),
                             ("MTE2", "DefaultCopy"), ("FIX", "Fixpipe"), ("MTE3", "FromCtor"), ("V", "Counted")}
    assert res.apis[("V", "NewUnary")] == [Site("api/vec.h", 5)]  # where the macro is used
    assert apis.entry("V", "NewUnary") is None  # so the table test above would name it
    assert res.apis[("FIX", "Fixpipe")] == [Site("api/vec.h", 9)]
    # a member cannot be followed, and a helper no header calls leaves the name to kernels: both reported
    assert [(str(s), what) for s, what, _ in res.unresolved] == [("api/vec.h:11", "API"), ("api/vec.h:12", "API")]
    # an instruction issued with no trace after it, in its function or after its callers' call, is found
    assert [(str(s), name) for s, name in res.untraced] == [("api/vec.h:16", "Silent")]


# --- at run time: an unknown record is priced by its pipe's fallback and named ---------------------------

def test_unknown_records_are_priced_by_the_fallback_and_named() -> None:
    p = chip_params("ascend910b2")
    for pipe, known in (("MTE2", "DataCopy"), ("MTE3", "DataCopy"), ("FIX", "Fixpipe"), ("MTE1", "LoadData")):
        new, old = op_cost(ev(pipe, "NewCopy"), "AIC", p), op_cost(ev(pipe, known), "AIC", p)
        assert new.unknown == f"{pipe}:NewCopy" and not old.unknown
        assert (new.fixed, new.gm_bytes, new.cap) == (old.fixed, old.gm_bytes, old.cap)
    v = op_cost(ev("V", "NewVec", repeats=10), "AIV", p)
    assert v.unknown == "V:NewVec" and v.fixed == p.vector_startup + 10 * p.vector_cpr["unary"]
    m = op_cost(ev("M", "Mmad", "int4", repeats=8), "AIC", p)
    assert m.unknown == "M:Mmad[int4]" and m.fixed == op_cost(ev("M", "Mmad", "float16", repeats=8), "AIC", p).fixed
    assert op_cost(ev("S", "NewScalar"), "AIV", p).unknown == "S:NewScalar"
    assert op_cost(ev("XYZ", "Odd"), "AIV", p).unknown == "XYZ:Odd"


def test_unknown_apis_reach_the_record_and_the_report() -> None:
    tr = trace(core([ev("V", "Add"), ev("V", "NewVec"), ev("MTE2", "NewCopy"), ev("V", "NewVec")]))
    res = model_trace(tr, "ascend910b2")
    assert res.unknown_apis == ["MTE2:NewCopy", "V:NewVec"]
    lines = summary_lines(res.as_dict())
    warn = [x for x in lines if x.startswith("warning: not in the API cost table")]
    assert len(warn) == 1 and "MTE2:NewCopy (as gm_read)" in warn[0] and "V:NewVec (as unary" in warn[0]
    known = model_trace(trace(core([ev("V", "Add"), ev("MTE2", "DataCopy")])), "ascend910b2")
    assert known.unknown_apis == [] and not any("API cost table" in x for x in summary_lines(known.as_dict()))


class TraceRunner:
    """Stands in for the simulator: zero outputs and a fixed trace."""

    def __init__(self, path: Path, tr: dict[str, Any]) -> None:
        self.path = path
        path.write_text(json.dumps(tr))

    def run(self, spec: Any, case: Any, column: int, chip: str, inputs: dict[str, Any]) -> RunOutput:
        out = {o.name: np.zeros(case.shapes["x"], np.float16) for o in spec.outputs}
        return RunOutput(out, {"block_dim": 1, "trace_file": str(self.path)})


def test_verify_perf_records_and_warns_about_unknown_apis(tmp_path: Path) -> None:
    from opkit.perf.case import perf_record
    from opkit.spec import load
    from opkit.verify.pipeline import Selection, verify_spec
    from opkit.verify.report import schema_path, unknown_api_lines, write_json

    spec = load(ROOT / "ops" / "posembedding" / "interleave_rope")
    runner = TraceRunner(tmp_path / "t.json", trace(core([ev("MTE2", "DataCopy"), ev("V", "NewVec")])))
    results = verify_spec(spec, runner, Selection(keyword="smoke"), perf=perf_record)
    assert results and all(r.perf["unknown_apis"] == ["V:NewVec"] for r in results)
    lines = unknown_api_lines(results)
    assert len(lines) == len(results) and lines[0].startswith(results[0].id) and "V:NewVec" in lines[0]
    write_json(results, tmp_path / "results.json")
    doc = json.loads((tmp_path / "results.json").read_text())
    schema = json.loads(schema_path().read_text())
    jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    doc["cases"][0]["perf"]["unknown_apis"] = ["NewVec"]  # not PIPE:API
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema, cls=jsonschema.Draft202012Validator)
    # without --perf: no model, no record
    plain = verify_spec(spec, runner, Selection(keyword="smoke"))
    assert all(r.perf == {} for r in plain) and unknown_api_lines(plain) == []

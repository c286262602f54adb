"""InterleaveRope package (ops/posembedding/interleave_rope): spec, golden, cross-checks, cost model."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from opkit.spec import load
from opkit.verify.golden import custom_generators, load_module, run_golden
from opkit.verify.inputs import as_golden_input, make_inputs

PKG = Path(__file__).resolve().parents[1] / "ops" / "posembedding" / "interleave_rope"
SMALL = 1 << 20  # elements of x up to which a case counts as smoke-sized here


@pytest.fixture(scope="module")
def spec():
    return load(PKG)


@pytest.fixture(scope="module")
def golden(spec):
    return load_module(spec)


def _small_cases(spec):
    return [(c, col) for c in spec.cases for col in c.columns if np.prod(c.shapes["x"]) <= SMALL]


# --- independent references ------------------------------------------------------------------------
# Written the way model code writes rotary embeddings, without looking at golden.py.

def rotate_half(t):
    """HF-transformers / LLaMA style: the second half, negated, in front of the first half."""
    t1 = t[..., : t.shape[-1] // 2]
    t2 = t[..., t.shape[-1] // 2:]
    return np.concatenate((-t2, t1), axis=-1)


def apply_rotary_pos_emb(q, cos, sin):
    """LLaMA-style rotate-half RoPE on a tensor already in half-split order."""
    return (q * cos) + (rotate_half(q) * sin)


def deinterleave(x):
    """The real op's README formulation: reshape to [..., D/2, 2], swap the last two axes, flatten."""
    *lead, d = x.shape
    return x.reshape(*lead, d // 2, 2).swapaxes(-1, -2).reshape(*lead, d)


def complex_rope(x, theta):
    """Meta's original LLaMA formulation: interleaved pairs as complex numbers times e^{i theta}.

    theta has D/2 angles per row; returns the rotated pairs in half-split order.
    """
    z = x[..., 0::2] + 1j * x[..., 1::2]
    w = z * np.exp(1j * theta)
    return np.concatenate([w.real, w.imag], axis=-1)


def _golden_inputs(spec, case, column):
    raw = make_inputs(spec, case, column, custom_generators(spec))
    return {k: as_golden_input(v) for k, v in raw.items()}


# --- the spec ---------------------------------------------------------------------------------------

def test_spec_loads(spec):
    assert spec.name == "interleave_rope" and spec.op_type == "InterleaveRope"
    assert spec.family == "posembedding" and spec.kernel == "vector"
    assert [p.name for p in spec.inputs] == ["x", "cos", "sin"]
    assert [p.name for p in spec.outputs] == ["y"]
    assert spec.n_columns == 2
    assert spec.column(0) == {"x": "float16", "cos": "float16", "sin": "float16", "y": "float16"}
    assert spec.column(1) == {"x": "bfloat16", "cos": "bfloat16", "sin": "bfloat16", "y": "bfloat16"}
    assert [s.key for s in spec.socs] == ["ascend910b", "ascend910_93"]
    assert not spec.attrs
    assert {p.case for p in spec.perf} <= {c.name for c in spec.cases}


def test_cases_cover_what_the_issue_asks(spec):
    by_name = {c.name: c for c in spec.cases}
    pat = set()
    for c in spec.cases:
        b, n, s, d = c.shapes["x"]
        cb, cn, cs, cd = c.shapes["cos"]
        assert c.shapes["sin"] == c.shapes["cos"], c.name
        assert cn == 1 and cd == d and d % 2 == 0 and d <= 256, c.name
        pat.add(("B" if cb == b and b > 1 else "1") + ("S" if cs == s and s > 1 else "1"))
    assert pat == {"BS", "B1", "1S", "11"}
    llama = [c for c in spec.cases if c.shapes["x"][:3] == [1, 32, 2048]]
    assert {c.shapes["x"][3] for c in llama} == {64, 128}
    assert all("full" in c.tags for c in llama)
    assert by_name["decode"].shapes["x"][2] == 1
    assert any(c.shapes["x"][2] % 2 == 1 and c.shapes["x"][2] > 1 for c in spec.cases)
    assert any(c.columns == (1,) for c in spec.cases)  # a bf16-only case
    assert "nan" in by_name["special_values"].special["x"]
    assert any(c.shapes["x"][3] * 2 % 32 for c in spec.cases)  # a row that is not whole 32-byte blocks
    assert all("smoke" in c.tags for c in spec.cases if np.prod(c.shapes["x"]) <= SMALL)


# --- the golden on every smoke-sized case -------------------------------------------------------------

def test_golden_shapes_on_small_cases(spec):
    cases = _small_cases(spec)
    assert len(cases) >= 20
    for case, column in cases:
        inputs = make_inputs(spec, case, column, custom_generators(spec))
        out = run_golden(spec, case, inputs)
        assert set(out) == {"y"}
        y = out["y"]
        assert y.shape == tuple(case.shapes["x"]), case.name
        assert y.dtype == np.float64
        if not case.special:
            assert np.isfinite(y).all(), case.name


@pytest.mark.parametrize("name", ["smoke", "decode", "odd_s", "bf16", "cos_b1sd", "cos_b11d", "cos_11sd",
                                  "cos_111d", "d40_unaligned", "d2_minimal", "d100_b11d"])
def test_golden_equals_llama_rotate_half_of_deinterleaved_x(spec, golden, name):
    case = spec.case(name)
    for column in case.columns:
        g = _golden_inputs(spec, case, column)
        expected = apply_rotary_pos_emb(deinterleave(g["x"]), g["cos"], g["sin"])
        y = golden.interleave_rope(**g)["y"]
        np.testing.assert_allclose(y, expected, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("shape", [(2, 3, 5, 64), (1, 2, 7, 128), (3, 1, 1, 6), (1, 1, 4, 2)])
def test_golden_equals_complex_rotation_with_real_tables(golden, shape):
    """With real cos/sin caches, y is the complex rotation of each (x[2t], x[2t+1]) pair by theta_t."""
    b, n, s, d = shape
    rng = np.random.default_rng(11)
    x = rng.normal(size=shape)
    theta = rng.uniform(-np.pi, np.pi, size=(b, 1, s, d // 2))
    cos = np.cos(np.concatenate([theta, theta], axis=-1))
    sin = np.sin(np.concatenate([theta, theta], axis=-1))
    y = golden.interleave_rope(x=x, cos=cos, sin=sin)["y"]
    np.testing.assert_allclose(y, complex_rope(x, theta), rtol=1e-12, atol=1e-12)


def test_rope_tables_rotate_pairs_like_llama(golden):
    """rope_cos/rope_sin give a real cache: both halves share the angles, cos^2 + sin^2 = 1."""
    shape = (2, 1, 9, 64)
    c = golden.rope_cos(shape, "float16", None, {})
    s = golden.rope_sin(shape, "float16", None, {})
    assert c.shape == shape and s.shape == shape
    np.testing.assert_allclose(c ** 2 + s ** 2, 1.0, atol=1e-12)
    np.testing.assert_array_equal(c[..., :32], c[..., 32:])
    np.testing.assert_array_equal(c[0, 0, 0], np.ones(64))  # position 0: no rotation
    assert not np.array_equal(c[0], c[1])  # batches sit at different positions


def test_golden_is_not_plain_rotate_half(golden):
    """The de-interleave matters: skipping it (or using the interleaved rotation) gives other numbers."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(1, 2, 4, 8))
    cos = rng.uniform(-1, 1, size=(1, 1, 4, 8))
    sin = rng.uniform(-1, 1, size=(1, 1, 4, 8))
    y = golden.interleave_rope(x=x, cos=cos, sin=sin)["y"]
    assert not np.allclose(y, apply_rotary_pos_emb(x, cos, sin))
    assert not np.allclose(y, deinterleave(apply_rotary_pos_emb(x, cos, sin)))


# --- broadcast patterns --------------------------------------------------------------------------------

@pytest.mark.parametrize("cos_shape", [(3, 1, 5, 16), (3, 1, 1, 16), (1, 1, 5, 16), (1, 1, 1, 16)])
def test_broadcast_patterns_equal_explicit_broadcast(golden, cos_shape):
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 4, 5, 16))
    cos = rng.uniform(-1, 1, size=cos_shape)
    sin = rng.uniform(-1, 1, size=cos_shape)
    y = golden.interleave_rope(x=x, cos=cos, sin=sin)["y"]
    full_cos = np.ascontiguousarray(np.broadcast_to(cos, x.shape))
    full_sin = np.ascontiguousarray(np.broadcast_to(sin, x.shape))
    np.testing.assert_array_equal(y, golden.interleave_rope(x=x, cos=full_cos, sin=full_sin)["y"])
    # and row by row: every (b, n, s) uses cos/sin row (b or 0, 0, s or 0)
    for b in range(3):
        for s in range(5):
            row_c = cos[b if cos_shape[0] > 1 else 0, 0, s if cos_shape[2] > 1 else 0]
            row_s = sin[b if cos_shape[0] > 1 else 0, 0, s if cos_shape[2] > 1 else 0]
            for n in range(4):
                expected = apply_rotary_pos_emb(deinterleave(x[b, n, s]), row_c, row_s)
                np.testing.assert_allclose(y[b, n, s], expected, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("name", ["cos_b1sd", "cos_b11d", "cos_11sd", "cos_111d"])
def test_broadcast_cases_equal_explicit_broadcast(spec, golden, name):
    case = spec.case(name)
    g = _golden_inputs(spec, case, 0)
    y = golden.interleave_rope(**g)["y"]
    full = {k: np.broadcast_to(g[k], g["x"].shape) for k in ("cos", "sin")}
    np.testing.assert_array_equal(y, golden.interleave_rope(x=g["x"], **full)["y"])


# --- special values ------------------------------------------------------------------------------------

@pytest.mark.parametrize("pos", [0, 1, 6, 7, 10, 15])
def test_nan_reaches_exactly_its_pair(golden, pos):
    """NaN at x[..., 2t] or x[..., 2t+1] makes y[..., t] and y[..., D/2 + t] NaN, nothing else."""
    d = 16
    rng = np.random.default_rng(pos)
    x = rng.normal(size=(2, 3, 4, d))
    cos = rng.uniform(0.1, 1, size=(2, 1, 4, d))
    sin = rng.uniform(0.1, 1, size=(2, 1, 4, d))
    x[1, 2, 3, pos] = np.nan
    y = golden.interleave_rope(x=x, cos=cos, sin=sin)["y"]
    expected = np.zeros(y.shape, dtype=bool)
    expected[1, 2, 3, pos // 2] = True
    expected[1, 2, 3, d // 2 + pos // 2] = True
    np.testing.assert_array_equal(np.isnan(y), expected)


def test_special_values_case_keeps_nonfinite_inside_pairs(spec, golden):
    case = spec.case("special_values")
    for column in case.columns:
        g = _golden_inputs(spec, case, column)
        x = g["x"]
        assert np.isnan(x).any() and np.isinf(x).any()
        y = golden.interleave_rope(**g)["y"]
        half = x.shape[-1] // 2
        bad_pair = ~np.isfinite(x[..., 0::2]) | ~np.isfinite(x[..., 1::2])
        nan_pair = np.isnan(x[..., 0::2]) | np.isnan(x[..., 1::2])
        bad_y = np.concatenate([bad_pair, bad_pair], axis=-1)
        assert not (~np.isfinite(y) & ~bad_y).any()  # nothing leaks out of a pair
        np.testing.assert_array_equal(np.isnan(y[..., :half]) & nan_pair, nan_pair)
        np.testing.assert_array_equal(np.isnan(y[..., half:]) & nan_pair, nan_pair)


# --- cost model ----------------------------------------------------------------------------------------

def _cost_args(spec, name, column=0):
    case = spec.case(name)
    return {k: tuple(v) for k, v in case.shapes.items()}, spec.column(column), case.attrs


def test_flops_and_bytes(spec, golden):
    shapes, dtypes, attrs = _cost_args(spec, "llama_prefill_d64")
    n = 1 * 32 * 2048 * 64
    assert golden.flops(shapes, dtypes, attrs) == 3 * n
    assert golden.hbm_bytes(shapes, dtypes, attrs) == 2 * n * 2 + 2 * 2048 * 64 * 2
    shapes, dtypes, attrs = _cost_args(spec, "cos_111d")
    assert golden.hbm_bytes(shapes, dtypes, attrs) == 2 * (3 * 2 * 5 * 64) * 2 + 2 * 64 * 2


def test_unfused_chain(spec, golden):
    shapes, dtypes, attrs = _cost_args(spec, "llama_prefill_d128")
    chain = golden.unfused_chain(shapes, dtypes, attrs)
    assert [s["op"] for s in chain] == ["strided_gather", "mul", "rotate", "mul", "add"]
    assert [s["launch"] for s in chain] == [1, 2, 3, 4, 5]
    nbytes = 32 * 2048 * 128 * 2
    table = 2048 * 128 * 2
    assert [s["hbm_bytes"] for s in chain] == [2 * nbytes, 2 * nbytes + table, 2 * nbytes,
                                               2 * nbytes + table, 3 * nbytes]
    assert all(s["hbm_bytes"] == s["reads"] + s["writes"] for s in chain)
    assert sum(s["flops"] for s in chain) == golden.flops(shapes, dtypes, attrs)
    fused = golden.hbm_bytes(shapes, dtypes, attrs)
    assert sum(s["hbm_bytes"] for s in chain) == 11 * nbytes + 2 * table > 5 * fused


# --- the C++ sources agree with the spec ------------------------------------------------------------

def test_sources_present_and_consistent():
    for rel in ("op_host/interleave_rope_def.cpp", "op_host/interleave_rope_infershape.cpp",
                "op_host/interleave_rope_tiling.cpp", "op_kernel/interleave_rope_tiling_data.h",
                "op_kernel/interleave_rope.h", "op_kernel/interleave_rope.cpp", "CMakeLists.txt", "README.md"):
        assert (PKG / rel).is_file(), rel
    entry = (PKG / "op_kernel/interleave_rope.cpp").read_text()
    assert re.search(r'extern "C" __global__ __aicore__ void interleave_rope\(\s*GM_ADDR x, GM_ADDR cos, '
                     r'GM_ADDR sin, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling\)', entry)
    assert "DTYPE_X" in entry and "TILING_KEY_IS" in entry
    opdef = (PKG / "op_host/interleave_rope_def.cpp").read_text()
    assert re.findall(r'(Input|Output)\("(\w+)"\)', opdef) == [("Input", "x"), ("Input", "cos"),
                                                                 ("Input", "sin"), ("Output", "y")]
    assert opdef.count("DataType({ge::DT_FLOAT16, ge::DT_BF16})") == 4
    assert re.findall(r'AddConfig\("(\w+)"', opdef) == ["ascend910b", "ascend910_93"]


# --- the kernel on opkit's CPU simulator ----------------------------------------------------------
# Until `opkit verify` runs packages end to end, this test builds the real tiling function and the
# real kernel against opkit/sim and compares with the golden. The tiling runs behind a few lines of
# stand-in gert/platform types (below), so that it does not depend on the simulator's host harness.

SIM_INCLUDE = Path(__file__).resolve().parents[1] / "opkit" / "sim" / "include"

_MOCK_GERT = r"""
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>
namespace ge {
using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
enum DataType { DT_FLOAT = 0, DT_FLOAT16 = 1, DT_BF16 = 27 };
}
namespace fe { struct PlatFormInfos { uint32_t aiv; uint64_t ub; }; }
namespace gert {
struct Shape {
    std::vector<int64_t> d;
    size_t GetDimNum() const { return d.size(); }
    int64_t GetDim(size_t i) const { return d[i]; }
};
struct StorageShape { Shape s; const Shape& GetStorageShape() const { return s; } };
struct Desc { ge::DataType dt; ge::DataType GetDataType() const { return dt; } };
struct TilingContext {
    StorageShape shapes[3];
    Desc descs[3];
    fe::PlatFormInfos plat;
    alignas(8) unsigned char tiling[256];
    uint64_t key = 0;
    uint32_t blockDim = 0;
    size_t ws[1] = {0};
    const StorageShape* GetInputShape(size_t i) const { return i < 3 ? &shapes[i] : nullptr; }
    const Desc* GetInputDesc(size_t i) const { return i < 3 ? &descs[i] : nullptr; }
    fe::PlatFormInfos* GetPlatformInfo() { return &plat; }
    template <class T> T* GetTilingData() { return reinterpret_cast<T*>(tiling); }
    void SetTilingKey(uint64_t k) { key = k; }
    void SetBlockDim(uint32_t b) { blockDim = b; }
    size_t* GetWorkspaceSizes(size_t) { return ws; }
};
}
"""

_MOCK_PLATFORM = r"""
#pragma once
#include "register/op_def_registry.h"
namespace platform_ascendc {
enum class CoreMemType { L0_A = 0, L0_B, L0_C, L1, L2, UB, HBM, FB, BT, RESERVED };
struct PlatformAscendC {
    explicit PlatformAscendC(fe::PlatFormInfos* p) : p_(p) {}
    uint32_t GetCoreNumAiv() const { return p_->aiv; }
    void GetCoreMemSize(CoreMemType t, uint64_t& v) const { v = t == CoreMemType::UB ? p_->ub : 0; }
    uint32_t GetLibApiWorkSpaceSize() const { return 16u << 20; }
    fe::PlatFormInfos* p_;
};
}
"""

_TILING_MAIN = r"""
#include <cstring>
#include "interleave_rope_tiling.cpp"
// Runs the real tiling for one case; returns 0 on success.
extern "C" int irope_tiling(int bf16, const int64_t* x, const int64_t* c, uint32_t cores, uint64_t ub,
                            void* tilingOut, uint64_t* key, uint32_t* blockDim, uint64_t* ws)
{
    gert::TilingContext ctx;
    ctx.plat = {cores, ub};
    ctx.shapes[0].s.d.assign(x, x + 4);
    ctx.shapes[1].s.d.assign(c, c + 4);
    ctx.shapes[2].s.d.assign(c, c + 4);
    for (auto& d : ctx.descs) d.dt = bf16 ? ge::DT_BF16 : ge::DT_FLOAT16;
    if (optiling::TilingInterleaveRope(&ctx) != ge::GRAPH_SUCCESS) return 1;
    std::memcpy(tilingOut, ctx.tiling, sizeof(InterleaveRopeTilingData));
    *key = ctx.key; *blockDim = ctx.blockDim; *ws = ctx.ws[0];
    return 0;
}
"""

_RUN_MAIN = r"""
// irope_run bf16 B N S D cB cS cores [in.bin out.bin]: x, cos, sin in as uint16 bits, y out.
// Without the files: run the tiling only and print what it decided.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "tikicpulib.h"
#include "interleave_rope_tiling_data.h"
extern "C" __global__ __aicore__ void interleave_rope(GM_ADDR x, GM_ADDR cos, GM_ADDR sin, GM_ADDR y,
                                                      GM_ADDR workspace, GM_ADDR tiling);
extern "C" int irope_tiling(int bf16, const int64_t* x, const int64_t* c, uint32_t cores, uint64_t ub,
                            void* tilingOut, uint64_t* key, uint32_t* blockDim, uint64_t* ws);
int main(int argc, char** argv)
{
    int bf16 = atoi(argv[1]);
    int64_t xs[4], cs[4];
    for (int i = 0; i < 4; ++i) xs[i] = atoll(argv[2 + i]);
    cs[0] = atoll(argv[6]); cs[1] = 1; cs[2] = atoll(argv[7]); cs[3] = xs[3];
    InterleaveRopeTilingData td;
    uint64_t key = 0, ws = 0;
    uint32_t blockDim = 0;
    if (irope_tiling(bf16, xs, cs, (uint32_t)atoi(argv[8]), OPKIT_SIM_UB_CAP, &td, &key, &blockDim, &ws) != 0) {
        fprintf(stderr, "tiling failed\n");
        return 2;
    }
    printf("key=%llu blockDim=%u tileRows=%u cosRows=%u rowStride=%u aligned=%u formerNum=%u formerRows=%llu "
           "tailRows=%llu\n", (unsigned long long)key, blockDim, td.tileRows, td.cosRows, td.rowStride, td.alignedRows,
           td.formerNum, (unsigned long long)td.formerRows, (unsigned long long)td.tailRows);
    if (argc < 11) return 0;  // tiling only
    size_t nx = xs[0] * xs[1] * xs[2] * xs[3], nc = cs[0] * cs[2] * cs[3];
    std::vector<uint16_t> in(nx + 2 * nc);
    FILE* f = fopen(argv[9], "rb");
    if (!f || fread(in.data(), 2, in.size(), f) != in.size()) return 4;
    fclose(f);
    uint8_t* x = (uint8_t*)AscendC::GmAlloc(nx * 2);
    uint8_t* c = (uint8_t*)AscendC::GmAlloc(nc * 2);
    uint8_t* s = (uint8_t*)AscendC::GmAlloc(nc * 2);
    uint8_t* y = (uint8_t*)AscendC::GmAlloc(nx * 2);
    uint8_t* w = (uint8_t*)AscendC::GmAlloc(ws);
    uint8_t* t = (uint8_t*)AscendC::GmAlloc(sizeof td);
    memcpy(x, in.data(), nx * 2);
    memcpy(c, in.data() + nx, nc * 2);
    memcpy(s, in.data() + nx + nc, nc * 2);
    memcpy(t, &td, sizeof td);
    AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
    ICPU_SET_TILING_KEY(key);
    ICPU_RUN_KF(interleave_rope, blockDim, x, c, s, y, w, t);
    f = fopen(argv[10], "wb");
    fwrite(y, 2, nx, f);
    fclose(f);
    return 0;
}
"""


def _compiler():
    import shutil
    return shutil.which("g++") or shutil.which("clang++")


@pytest.fixture(scope="module")
def sim_runner(tmp_path_factory):
    """Executables (one per dtype column) running tiling + kernel on the simulator."""
    import subprocess

    import opkit.sim as sim

    cxx = _compiler()
    if cxx is None or not (SIM_INCLUDE / "tikicpulib.h").is_file():
        pytest.skip("needs a C++ compiler and opkit/sim's kernel headers")
    import hashlib
    import os
    import tempfile

    flags = sim.cxx_flags("ascend910b", opt="-O0")
    kdir = PKG / "op_kernel"
    # Built once per content: every source and header involved, the harness text and the flags.
    h = hashlib.sha256()
    for f in sorted([*kdir.glob("*"), PKG / "op_host" / "interleave_rope_tiling.cpp", *SIM_INCLUDE.rglob("*.h")]):
        h.update(str(f).encode() + f.read_bytes())
    h.update((_MOCK_GERT + _MOCK_PLATFORM + _TILING_MAIN + _RUN_MAIN + cxx + " ".join(flags)).encode())
    build = Path(tempfile.gettempdir()) / "opkit-interleave-rope-test" / h.hexdigest()[:20]
    exes = {0: build / "irope_half", 1: build / "irope_bfloat16_t"}
    if not all(e.exists() for e in exes.values()):
        tmp = Path(tempfile.mkdtemp(prefix="irope-build-"))
        (tmp / "mock" / "register").mkdir(parents=True)
        (tmp / "mock" / "tiling" / "platform").mkdir(parents=True)
        (tmp / "mock" / "register" / "op_def_registry.h").write_text(_MOCK_GERT)
        (tmp / "mock" / "tiling" / "platform" / "platform_ascendc.h").write_text(_MOCK_PLATFORM)
        (tmp / "tiling_main.cpp").write_text(_TILING_MAIN)
        (tmp / "run_main.cpp").write_text(_RUN_MAIN)
        jobs = {
            "tiling.o": [cxx, "-std=c++17", "-O0", f"-I{tmp / 'mock'}", f"-I{PKG / 'op_host'}", f"-I{kdir}",
                         "-c", str(tmp / "tiling_main.cpp")],
            "main.o": [cxx, *flags, f"-I{kdir}", "-c", str(tmp / "run_main.cpp")],
        }
        for dtype in ("half", "bfloat16_t"):
            jobs[f"kernel_{dtype}.o"] = [cxx, *flags, f"-DDTYPE_X={dtype}", f"-DDTYPE_COS={dtype}",
                                         f"-DDTYPE_SIN={dtype}", f"-DDTYPE_Y={dtype}", f"-I{kdir}", "-c",
                                         str(kdir / "interleave_rope.cpp")]
        procs = {out: subprocess.Popen([*cmd, "-o", str(tmp / out)], stderr=subprocess.PIPE, text=True)
                 for out, cmd in jobs.items()}
        for out, p in procs.items():
            _, err = p.communicate()
            assert p.returncode == 0, f"building {out} failed:\n{err[-4000:]}"
        build.mkdir(parents=True, exist_ok=True)
        for exe in exes.values():
            dtype = exe.name.split("_", 1)[1]
            r = subprocess.run([cxx, "-pthread", str(tmp / "main.o"), str(tmp / "tiling.o"),
                                str(tmp / f"kernel_{dtype}.o"), "-o", str(tmp / exe.name)],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr[-4000:]
            os.replace(tmp / exe.name, exe)
    work = tmp_path_factory.mktemp("irope_sim")

    def run(x, cos, sin, column, cores=48):
        b, n, s, d = x.shape
        cb, _, cs, _ = cos.shape
        np.concatenate([a.view(np.uint16).ravel() for a in (x, cos, sin)]).tofile(work / "in.bin")
        r = subprocess.run([str(exes[column]), str(column), *map(str, (b, n, s, d, cb, cs, cores)),
                            str(work / "in.bin"), str(work / "out.bin")], capture_output=True, text=True)
        assert r.returncode == 0, f"simulator run failed ({r.returncode}):\n{r.stderr[-4000:]}"
        assert "warning" not in r.stderr, r.stderr[-4000:]
        return np.fromfile(work / "out.bin", dtype=np.uint16).view(x.dtype).reshape(x.shape)

    def tiling(x_shape, cos_shape, column=0, cores=48):
        """The tiling's decisions as a dict, or None when it refuses the shapes."""
        b, n, s, d = x_shape
        cb, cn, cs, cd = cos_shape
        assert cn == 1 and cd == d  # the harness builds cos as [cB, 1, cS, D]
        r = subprocess.run([str(exes[column]), str(column), *map(str, (b, n, s, d, cb, cs, cores))],
                           capture_output=True, text=True)
        if r.returncode == 2:
            return None
        assert r.returncode == 0, r.stderr[-4000:]
        return {k: int(v) for k, v in (kv.split("=") for kv in r.stdout.split())}

    run.tiling = tiling
    return run


def _assert_close_to_golden(y, golden_y, column):
    """Within one rounding of the output dtype (fp32 compute), NaN/Inf exactly where the golden has them."""
    y = y.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(golden_y))
    inf = np.isinf(golden_y)
    np.testing.assert_array_equal(y[inf], golden_y[inf])
    fin = np.isfinite(golden_y)
    rtol = 2.0 ** -10 if column == 0 else 2.0 ** -7  # one ulp of fp16 / bf16
    np.testing.assert_allclose(y[fin], golden_y[fin], rtol=rtol, atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("name", [c for c in ("smoke", "decode", "decode_small", "odd_s", "bf16", "special_values",
                                               "cos_b1sd", "cos_b11d", "cos_11sd", "cos_111d", "d128",
                                               "d40_unaligned", "d2_minimal", "d256_max", "d100_b11d")])
def test_kernel_on_simulator_matches_golden(spec, golden, sim_runner, name):
    case = spec.case(name)
    for column in case.columns:
        raw = make_inputs(spec, case, column, custom_generators(spec))
        expected = golden.interleave_rope(**{k: as_golden_input(v) for k, v in raw.items()})["y"]
        for cores in (48, 3):  # one tile per core, and several tiles per core
            y = sim_runner(raw["x"], raw["cos"], raw["sin"], column, cores)
            _assert_close_to_golden(y, expected, column)


@pytest.mark.slow
def test_kernel_on_simulator_sees_a_wrong_golden(spec, golden, sim_runner):
    """The comparison above can fail: the kernel output is not plain rotate-half of x."""
    case = spec.case("smoke")
    raw = make_inputs(spec, case, 0, custom_generators(spec))
    g = {k: as_golden_input(v) for k, v in raw.items()}
    y = sim_runner(raw["x"], raw["cos"], raw["sin"], 0)
    with pytest.raises(AssertionError):
        _assert_close_to_golden(y, apply_rotary_pos_emb(g["x"], g["cos"], g["sin"]), 0)


@pytest.mark.slow
@pytest.mark.parametrize("x_shape, cos_shape, key", [
    ((2, 3, 5, 64), (2, 1, 5, 64), 1),   # [B, 1, S, D]
    ((2, 3, 5, 64), (2, 1, 1, 64), 2),   # [B, 1, 1, D]
    ((2, 3, 5, 64), (1, 1, 5, 64), 3),   # [1, 1, S, D], opkit extension
    ((2, 3, 5, 64), (1, 1, 1, 64), 4),   # [1, 1, 1, D], opkit extension
    ((1, 3, 5, 64), (1, 1, 5, 64), 1),   # B = 1: the real op's pattern
    ((1, 3, 1, 64), (1, 1, 1, 64), 2),   # B = 1, S = 1
    ((4, 3, 1, 64), (4, 1, 1, 64), 2),   # decode: S = 1 is a row per batch
])
def test_tiling_key_per_broadcast_pattern(sim_runner, x_shape, cos_shape, key):
    assert sim_runner.tiling(x_shape, cos_shape)["key"] == key


@pytest.mark.slow
@pytest.mark.parametrize("x_shape, cos_shape", [
    ((1, 2, 4, 63), (1, 1, 4, 63)),    # odd D
    ((1, 2, 4, 258), (1, 1, 4, 258)),  # D > 256
    ((1, 2, 4, 0), (1, 1, 4, 0)),      # D = 0
    ((3, 2, 4, 64), (2, 1, 4, 64)),    # cos batch neither B nor 1
    ((3, 2, 4, 64), (3, 1, 3, 64)),    # cos sequence neither S nor 1
])
def test_tiling_refuses_unsupported_shapes(sim_runner, x_shape, cos_shape):
    assert sim_runner.tiling(x_shape, cos_shape) is None


@pytest.mark.slow
@pytest.mark.parametrize("x_shape, cos_shape, cores", [
    ((1, 32, 2048, 64), (1, 1, 2048, 64), 48), ((1, 32, 2048, 128), (1, 1, 2048, 128), 40),
    ((32, 32, 1, 64), (32, 1, 1, 64), 48), ((3, 2, 5, 40), (3, 1, 1, 40), 7), ((1, 1, 1, 2), (1, 1, 1, 2), 48),
    ((2, 8, 1000, 256), (1, 1, 1000, 256), 24),
])
def test_tiling_splits_rows_and_respects_32_byte_rules(sim_runner, x_shape, cos_shape, cores):
    t = sim_runner.tiling(x_shape, cos_shape, cores=cores)
    b, n, s, d = x_shape
    rows = b * n * s
    assert 1 <= t["blockDim"] <= cores
    assert t["formerNum"] * t["formerRows"] + (t["blockDim"] - t["formerNum"]) * t["tailRows"] == rows
    assert t["formerRows"] - t["tailRows"] == 1 and t["formerNum"] < t["blockDim"]
    assert t["rowStride"] % 16 == 0 and d <= t["rowStride"] < d + 16  # rows start on 32-byte boundaries
    assert t["aligned"] == (d * 2 % 32 == 0)
    assert 1 <= t["tileRows"] <= max(t["formerRows"], t["tailRows"])
    assert t["tileRows"] <= 4095  # DataCopyPad's block count


def test_sources_compile_against_the_simulator():
    """Kernel (both dtype columns) and host files pass g++ -fsyntax-only with opkit/sim's headers."""
    import subprocess

    cxx = _compiler()
    if cxx is None or not (SIM_INCLUDE / "kernel_operator.h").is_file():
        pytest.skip("needs a C++ compiler and opkit/sim's headers")
    kernel = str(PKG / "op_kernel" / "interleave_rope.cpp")
    jobs = {f"kernel ({t})": [f"-DDTYPE_X={t}", f"-DDTYPE_Y={t}", kernel] for t in ("half", "bfloat16_t")}
    if (SIM_INCLUDE / "register" / "op_def_registry.h").is_file():  # the simulator's host headers
        for rel in ("op_host/interleave_rope_def.cpp", "op_host/interleave_rope_infershape.cpp",
                    "op_host/interleave_rope_tiling.cpp"):
            jobs[rel] = [str(PKG / rel)]
    import hashlib
    import tempfile

    h = hashlib.sha256(cxx.encode())  # a pass is remembered per content of every file involved
    for f in sorted([*PKG.glob("op_*/*"), *SIM_INCLUDE.rglob("*.h")]):
        h.update(str(f).encode() + f.read_bytes())
    stamp = Path(tempfile.gettempdir()) / "opkit-interleave-rope-test" / f"syntax-{h.hexdigest()[:20]}"
    if stamp.exists():
        return
    procs = {k: subprocess.Popen([cxx, "-std=c++17", "-fsyntax-only", f"-I{SIM_INCLUDE}", *args],
                                 stderr=subprocess.PIPE, text=True) for k, args in jobs.items()}
    for k, p in procs.items():
        _, err = p.communicate()
        assert p.returncode == 0, f"{k}:\n{err[-4000:]}"
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()


@pytest.mark.slow
def test_smoke_cases_pass_opkits_verify_pipeline_on_the_simulator(spec):
    """The whole path `opkit verify` takes: OpDef, InferShape and tiling through the simulator's host
    headers and harness, the kernel per dtype column, compared with the golden under the spec's profile."""
    if _compiler() is None:
        pytest.skip("needs a C++ compiler")
    try:
        from opkit.run.sim_runner import SimRunner
        from opkit.verify.pipeline import Selection, verify_spec
    except ImportError:
        pytest.skip("opkit's simulator runner is not there yet")
    results = verify_spec(spec, SimRunner(), Selection(tags=["smoke"]))
    assert len(results) == sum(len(c.columns) for c in spec.cases if "smoke" in c.tags)
    bad = [f"{r.id}: {r.status} {r.message}" for r in results if r.status != "pass"]
    assert not bad, "\n".join(bad)

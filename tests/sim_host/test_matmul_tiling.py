"""The host Matmul tiling API (matmul_tiling::MultiCoreMatmulTiling / MatmulApiTiling) and the
host TCubeTiling class: tilings that the chip's L0A/L0B/L0C/L1 can hold and that cover the problem."""

from __future__ import annotations

import itertools
import json
import subprocess
from pathlib import Path

import pytest
from sim_host_util import build_program

L0A = L0B = 64 * 1024
L0C = 128 * 1024
L1 = 512 * 1024 - 256
UB = 192 * 1024 - 256
BT = 1024
BYTES = {"fp16_big": 2, "fp32_small": 4, "int8_tall": 1, "bf16_square": 2}


@pytest.fixture(scope="module")
def checker() -> Path:
    return build_program("matmul_tiling_check")  # -Wall -Wextra -Werror: a header that warns fails


@pytest.fixture(scope="module")
def tilings(checker) -> dict[str, dict]:
    r = subprocess.run([str(checker), "24"], capture_output=True, text=True, check=True)
    out = {}
    for line in r.stdout.splitlines():
        d = json.loads(line)
        out[d["case"]] = d
    out["_stderr"] = r.stderr
    return out


@pytest.mark.parametrize(
    "case, m, n, k",
    [
        ("fp16_big", 1000, 3000, 777),
        ("fp32_small", 17, 33, 9),
        ("int8_tall", 4096, 64, 1024),
        ("bf16_square", 2048, 2048, 4096),
    ],
)
def test_multicore_tiling_fits_and_covers(tilings, case, m, n, k):
    t = tilings[case]
    b = BYTES[case]
    assert t["rc"] == 0
    assert (t["M"], t["N"], t["Ka"], t["Kb"], t["singleCoreK"]) == (m, n, k, k, k)
    assert 1 <= t["usedCoreNum"] <= 24
    m_parts = -(-m // t["singleCoreM"])
    n_parts = -(-n // t["singleCoreN"])
    assert m_parts * n_parts == t["usedCoreNum"]
    assert t["singleCoreM"] % 16 == 0 and t["singleCoreN"] % 16 == 0
    assert t["baseM"] % 16 == 0 and t["baseN"] % 16 == 0 and (t["baseK"] * b) % 32 == 0
    assert 2 * t["baseM"] * t["baseK"] * b <= L0A
    assert 2 * t["baseN"] * t["baseK"] * b <= L0B
    assert t["baseM"] * t["baseN"] * 4 <= L0C
    bias = t["baseN"] * 4 if t["isBias"] else 0
    assert t["depthA1"] * t["baseM"] * t["baseK"] * b + t["depthB1"] * t["baseN"] * t["baseK"] * b + bias <= L1
    assert t["stepKa"] >= 1 and t["depthA1"] == 2 * t["stepKa"]
    assert (t["dbL0A"], t["dbL0C"], t["iterateOrder"]) == (2, 1, 0)


def test_small_problem_uses_few_cores(tilings):
    t = tilings["fp32_small"]
    assert t["usedCoreNum"] <= 6 and t["baseK"] == 16  # K = 9 rounded up to 32 bytes of float (8 elements)


def test_single_core_and_fix_split(tilings):
    t = tilings["single_core"]
    assert t["rc"] == 0 and t["usedCoreNum"] == 1
    assert (t["M"], t["N"], t["Ka"], t["singleCoreM"], t["singleCoreN"]) == (512, 512, 256, 128, 256)
    assert t["iterateOrder"] == 1  # SetTraverse(FIRSTN)
    assert tilings["fix_split_misaligned"]["rc"] == -1  # SetFixSplit itself refuses a baseM of 100
    assert tilings["fix_split_too_big"]["rc"] == -1
    ok = tilings["fix_split_ok"]
    assert (ok["rc"], ok["baseM"], ok["baseN"], ok["baseK"]) == (0, 64, 128, 32)
    assert "not a multiple of 16" in tilings["_stderr"] and "exceed L0C" in tilings["_stderr"]


def test_macro_class_serialises_the_same_tiling(tilings):
    a, b = tilings["macro_class"], tilings["fp16_big"]
    assert {k: v for k, v in a.items() if k != "case"} == {k: v for k, v in b.items() if k != "case"}
    lay = tilings["macro_layout"]
    assert lay["size"] == 216 and lay["tail"] == 0x1122334455667788


def test_library_tiling_classes(tilings):
    # SoftMaxTiling: 16 uint32, the kernel struct's bytes; TopkTiling: 24 four-byte fields + 8 uint16.
    lib = tilings["library_sizes"]
    assert lib["softmax"] == lib["softmax_kernel"] == 64
    assert lib["topk"] == 112


def test_multicore_tiling_without_set_dim_is_one_core(tilings):
    # asc-devkit impl/adv_api/tiling/matmul/matmul_tiling_base.cpp: the constructors set blockDim = 1
    t = tilings["no_set_dim"]
    assert t["rc"] == 0 and t["usedCoreNum"] == 1
    assert (t["singleCoreM"], t["singleCoreN"], t["singleCoreK"]) == (256, 128, 512)
    assert tilings["set_dim_zero"]["rc"] == -1
    assert "SetDim was given a core count below 1" in tilings["_stderr"]


# ---- every tiling of a grid of shapes, dtypes and options fits the chip and covers the problem ----

BITS = {"fp16": 16, "bf16": 16, "fp32": 32, "int8": 8, "int4": 4, "int32": 32}
# (A = B, C, bias): the cube's input types with an output and bias type CANN pairs them with.
DTYPES = [("fp16", "fp32", "fp32"), ("fp16", "fp16", "fp32"), ("bf16", "bf16", "fp32"), ("fp32", "fp32", "fp32"),
          ("int8", "int32", "int32"), ("int4", "int32", "int32")]
SHAPES = [(1, 1, 1), (17, 33, 9), (77, 130, 200), (1000, 3000, 777), (4096, 64, 1024), (2048, 2048, 4096),
          (1, 4096, 8192), (5000, 7, 3), (129, 257, 65)]


def _grid(checker: Path, lines: list[str]) -> tuple[list[dict], str]:
    r = subprocess.run([str(checker), "grid"], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(out) == len(lines)
    return out, r.stderr


def _settings(line: str) -> dict[str, str]:
    return dict(tok.split("=", 1) if "=" in tok else (tok, "1") for tok in line.split())


def _check_fits(t: dict, s: dict[str, str]) -> None:
    """The invariants of docs/simulator.md's fit rule, from TCubeTiling's documented field meanings."""
    a_bits, b_bits = BITS[s.get("a", "fp16")], BITS[s.get("b", "fp16")]
    k0 = 256 // a_bits
    buf = [int(x) for x in s["buf"].split(",")] if "buf" in s else [-1, -1, -1, -1]
    l1 = buf[0] if buf[0] > 0 else L1
    l0c = buf[1] if buf[1] > 0 else L0C
    ub = buf[2] if buf[2] > 0 else UB
    bm, bn, bk = t["baseM"], t["baseN"], t["baseK"]
    case = t["case"]
    assert bm > 0 and bn > 0 and bk > 0 and bm % 16 == 0 and bn % 16 == 0 and bk % k0 == 0, case
    assert t["dbL0A"] in (1, 2) and t["dbL0B"] in (1, 2) and t["dbL0C"] == 1, case
    assert t["dbL0A"] * bm * bk * a_bits // 8 <= L0A, case
    assert t["dbL0B"] * bn * bk * b_bits // 8 <= L0B, case
    assert t["dbL0C"] * bm * bn * 4 <= l0c, case
    if t["isBias"]:
        assert bn * 4 <= BT, case  # the bias row in the BiasTable
    if s.get("cpos", "GM") != "GM":
        assert bm * bn * BITS[s.get("c", "fp32")] // 8 <= ub, case  # the C tile the kernel gets in UB
    # L1: depthA1 base blocks of A and depthB1 of B (each stepM/N * stepKa/b, once or twice), the bias row
    assert t["stepM"] == 1 and t["stepN"] == 1, case
    k_blocks = -(-t["singleCoreK"] // bk)
    assert 1 <= t["stepKa"] <= k_blocks and t["stepKb"] == t["stepKa"], case
    assert t["depthA1"] in (t["stepKa"], 2 * t["stepKa"]) and t["depthB1"] == t["depthA1"], case
    a1 = 0 if s.get("apos") == "TSCM" else t["depthA1"] * bm * bk * a_bits // 8
    b1 = t["depthB1"] * bn * bk * b_bits // 8
    bias_l1 = bn * BITS[s.get("bias", "fp32")] // 8 if t["isBias"] else 0
    assert a1 + b1 + bias_l1 <= l1, case
    assert t["shareL1Size"] == a1 + b1 + bias_l1 and t["shareL0CSize"] == bm * bn * 4, case
    # the base block is no larger than the core's aligned shape asks (a fixed split is kept as given)
    fix = [int(x) for x in s["fix"].split(",")] if "fix" in s else [-1, -1, -1]
    for base, single, f in ((bm, t["singleCoreM"], fix[0]), (bn, t["singleCoreN"], fix[1])):
        assert base == f if f > 0 else base <= max(16, -(-single // 16) * 16), case
    if fix[2] > 0:
        assert bk == fix[2], case
    else:
        assert bk <= -(-t["singleCoreK"] // k0) * k0, case
    assert t["iterateOrder"] == (1 if s.get("traverse") == "N" else 0), case
    assert t["isBias"] == int(s.get("isbias", "0")), case


def _check_covers(t: dict, s: dict[str, str], dim: int) -> None:
    """singleCore* pieces tile M x N (x K with split-K) exactly on usedCoreNum <= SetDim cores."""
    m, n, k = int(s["m"]), int(s["n"]), int(s["k"])
    case = t["case"]
    assert (t["M"], t["N"], t["Ka"], t["Kb"]) == (m, n, k, k), case
    parts = []
    for total, single in ((m, t["singleCoreM"]), (n, t["singleCoreN"]), (k, t["singleCoreK"])):
        assert 1 <= single <= total, case
        p = -(-total // single)
        assert (p - 1) * single < total <= p * single, case
        parts.append(p)
    if "splitk" not in s:
        assert parts[2] == 1 and t["singleCoreK"] == k, case
    assert parts[0] * parts[1] * parts[2] == t["usedCoreNum"] == t["coreDim"] and 1 <= t["usedCoreNum"] <= dim, case
    assert (t["mDim"], t["nDim"]) == (parts[0], parts[1]), case
    for total, single in ((m, t["singleCoreM"]), (n, t["singleCoreN"])):
        assert single == total or single % 16 == 0, case  # a piece is the whole dimension or 16-aligned
    assert t["getSingle"] == [t["singleCoreM"], t["singleCoreN"], t["singleCoreK"]], case
    assert t["getBase"] == [t["baseM"], t["baseN"], t["baseK"]] and t["hostSame"] == 1, case


def _grid_lines() -> list[str]:
    lines = []
    for i, ((a, c, bias), (m, n, k), dim, isbias, (ta, tb)) in enumerate(
        itertools.product(DTYPES, SHAPES, (1, 8, 24, 48), (0, 1), ((0, 0), (1, 0), (0, 1), (1, 1)))
    ):
        opts = [f"case=g{i}", f"m={m}", f"n={n}", f"k={k}", f"a={a}", f"b={a}", f"c={c}", f"bias={bias}",
                f"dim={dim}", f"isbias={isbias}", f"ta={ta}", f"tb={tb}"]
        # a rotating set of options, so that each meets every dtype and shape
        extra = [[], ["fa=NZ", "fb=NZ"], ["traverse=N"], ["buf=131072,65536,-1,-1"], ["cpos=VECIN"], ["splitk"],
                 ["range=64,64,-1"], ["apos=TSCM"], ["fix=64,128,-1"], ["align=32,64,-1"]][i % 10]
        lines.append(" ".join(opts + extra))
    return lines


def test_every_tiling_of_the_grid_fits_and_covers(checker):
    lines = _grid_lines()
    results, _ = _grid(checker, lines)
    for line, t in zip(lines, results, strict=True):
        s = _settings(line)
        assert t["rc"] == 0, line
        _check_fits(t, s)
        _check_covers(t, s, int(s["dim"]))


def test_set_fix_split_is_honoured_or_refused(checker):
    lines = [
        "case=ok cls=api m=512 n=512 k=512 fix=128,256,32",  # 2*128*32*2 B in L0A, 128*256*4 B = L0C exactly
        "case=only_m cls=api m=300 n=300 k=300 fix=256,-1,-1",  # baseN and baseK are the tiling's: they must fit around 256
        "case=l0c cls=api m=512 n=512 k=512 fix=256,256,-1",  # 256*256*4 B > L0C
        "case=l0a cls=api m=512 n=512 k=1024 a=fp32 b=fp32 fix=128,16,256",  # 128*256*4 B > L0A
        "case=mis_m cls=api m=64 n=64 k=64 fix=40,-1,-1",
        "case=mis_k cls=api m=64 n=64 k=64 fix=-1,-1,24",  # fp16: baseK in 16s
        "case=zero cls=api m=64 n=64 k=64 fix=0,-1,-1",
        "case=int8_k cls=api m=64 n=64 k=256 a=int8 b=int8 c=int32 fix=-1,-1,48",  # int8: baseK in 32s
        "case=bias_bt cls=api m=64 n=512 k=64 isbias=1 fix=-1,512,-1",  # 512 float bias values > 1 KiB BiasTable
        "case=ub cls=api m=512 n=512 k=64 cpos=VECIN fix=128,256,-1 buf=-1,-1,65536,-1",  # a 128 KiB C tile, 64 KiB UB
        "case=ub_free cls=api m=512 n=512 k=64 cpos=VECIN buf=-1,-1,32768,-1",  # not fixed: the tile shrinks to fit
    ]
    r, err = _grid(checker, lines)
    by = {t["case"]: t for t in r}
    ok = by["ok"]
    assert (ok["rc"], ok["rc_fix"], ok["baseM"], ok["baseN"], ok["baseK"]) == (0, 0, 128, 256, 32)
    only_m = by["only_m"]
    assert only_m["rc"] == 0 and only_m["baseM"] == 256
    _check_fits(only_m, _settings(lines[1]))
    assert by["l0c"]["rc"] == -1 and by["l0c"]["rc_fix"] == 0
    assert by["l0a"]["rc"] == -1
    for name in ("mis_m", "mis_k", "zero", "int8_k"):
        assert by[name]["rc_fix"] == -1, name
    assert by["bias_bt"]["rc"] == -1 and by["ub"]["rc"] == -1
    ub_free = by["ub_free"]
    assert ub_free["rc"] == 0 and ub_free["baseM"] * ub_free["baseN"] * 4 <= 32768
    _check_fits(ub_free, _settings(lines[-1]))
    assert "exceed L0C" in err and "exceeds L0A" in err and "BiasTable" in err and "exceeds the UB" in err
    assert "baseK 24 is not a multiple of 32 bytes of A's type (16 elements)" in err


def test_set_buffer_space_limits_the_tiling(checker):
    lines = [
        "case=small cls=api m=2048 n=2048 k=4096 buf=65536,32768,-1,-1",
        "case=too_big cls=api m=64 n=64 k=64 buf=1048576,-1,-1,-1",
        "case=below cls=api m=64 n=64 k=64 buf=-2,-1,-1,-1",
        "case=unaligned cls=api m=2048 n=2048 k=4096 buf=65550,-1,-1,-1",  # rounds down to 65536
        "case=tiny cls=api m=256 n=256 k=256 buf=1024,-1,-1,-1",  # no base block fits 1 KiB of L1
        "case=shrink cls=api m=64 n=64 k=64 buf=65536,-1,-1,-1 buf2=131072,-1,-1,-1",  # only shrinks, as CANN's
        "case=shrink_more cls=api m=64 n=64 k=64 buf=65536,-1,-1,-1 buf2=32768,-1,-1,-1",
    ]
    r, err = _grid(checker, lines)
    by = {t["case"]: t for t in r}
    small = by["small"]
    assert small["rc"] == 0 and small["rc_buf"] == 0
    _check_fits(small, _settings(lines[0]))
    assert small["baseM"] * small["baseN"] * 4 <= 32768
    assert by["too_big"]["rc_buf"] == -1 and by["below"]["rc_buf"] == -1
    assert "the L1 size 1048576 is out of range (-1 .. 524032)" in err
    un = by["unaligned"]
    assert un["rc"] == 0 and un["shareL1Size"] <= 65536
    assert by["tiny"]["rc"] == -1 and "exceed L1" in err
    assert by["shrink"]["rc_buf2"] == -1 and "the L1 size 131072 is out of range (-1 .. 65536)" in err
    assert by["shrink_more"]["rc_buf2"] == 0 and by["shrink_more"]["shareL1Size"] <= 32768


def test_multi_core_options(checker):
    lines = [
        "case=single m=1000 n=1000 k=512 dim=24 single=256,512,-1",  # 4 x 2 cores
        "case=single_too_many m=1000 n=1000 k=512 dim=4 single=256,512,-1",  # needs 8 cores
        "case=single_k m=256 n=256 k=4096 dim=8 single=-1,-1,1024",  # a K split without EnableMultiCoreSplitK
        "case=splitk m=64 n=64 k=65536 dim=24 splitk",  # a small M x N: only K has work to share
        "case=align m=1000 n=1000 k=64 dim=24 align=64,128,-1",
        "case=srange m=4096 n=4096 k=64 dim=8 srange=512,-1,-1,-1,-1,-1",
        "case=dim0 m=64 n=64 k=64 dim=0",
        "case=zero_m m=0 n=64 k=64 dim=8",
    ]
    r, err = _grid(checker, lines)
    by = {t["case"]: t for t in r}
    s = by["single"]
    assert s["rc"] == 0 and (s["singleCoreM"], s["singleCoreN"], s["usedCoreNum"], s["mDim"], s["nDim"]) == (256, 512, 8, 4, 2)
    assert by["single_too_many"]["rc"] == -1 and "no split of 1000 x 1000 x 512 fits 4 cores" in err
    assert by["single_k"]["rc"] == -1 and "EnableMultiCoreSplitK" in err
    sk = by["splitk"]
    assert sk["rc"] == 0 and sk["singleCoreK"] < 65536 and sk["usedCoreNum"] > 1
    _check_covers(sk, _settings(lines[3]), 24)
    al = by["align"]
    assert al["rc"] == 0 and al["singleCoreM"] % 64 == 0 and al["singleCoreN"] % 128 == 0
    _check_covers(al, _settings(lines[4]), 24)
    assert by["srange"]["rc"] == 0 and by["srange"]["singleCoreM"] <= 512
    assert by["dim0"]["rc"] == -1 and by["dim0"]["rc_dim"] == -1
    assert by["zero_m"]["rc"] == -1 and "singleM/N/K can not be zero" in err


def test_batch_matmul_tiling(checker):
    lines = [
        "case=b cls=batch m=128 n=96 k=200 batch=8,4 singlebatch=2,4 isbias=1",
        "case=bad cls=batch m=64 n=64 k=64 batch=2,2 singlebatch=4,1",
        "case=zero cls=batch m=64 n=64 k=64 batch=0,1",
    ]
    r, err = _grid(checker, lines)
    by = {t["case"]: t for t in r}
    b = by["b"]
    assert b["rc"] == 0 and b["coreDim"] == b["usedCoreNum"] == 4 and b["batchCore"] == [4, 1]
    assert (b["batchM"], b["batchN"], b["singleBatchM"], b["singleBatchN"]) == (8, 4, 2, 4)
    _check_fits(b, _settings(lines[0]))
    assert by["bad"]["rc"] == -1 and "SetSingleBatch (4, 1) exceeds SetBatch (2, 2)" in err
    assert by["zero"]["rc_batch"] == -1


def test_without_a_platform_the_tiling_has_910b_capacities(checker):
    # CANN's default constructors assume the 910B's L1/L0/UB/BiasTable sizes
    lines = ["case=np cls=api noplat m=2048 n=2048 k=4096 isbias=1", "case=np_big cls=api noplat m=64 n=64 k=64 buf=600000,-1,-1,-1"]
    r, err = _grid(checker, lines)
    assert r[0]["rc"] == 0
    _check_fits(r[0], _settings(lines[0]))
    assert r[1]["rc_buf"] == -1 and "the L1 size 600000 is out of range (-1 .. 524032)" in err

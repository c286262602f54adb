"""Simulated GEMM through the Matmul high-level API against the hand-written cube kernel, and NumPy.

    python benchmarks/sim_matmul_api.py [--size 1024] [--blocks 4] [--repeat 3]

C = A x B, SIZE x SIZE x SIZE, float16 in, float32 accumulation and out, every check of the simulator on:

1. The Matmul API in a MIX launch (1 AIC + 2 AIV per block, CANN's documented style: REGIST_MATMUL_OBJ,
   SetTensorA/B, IterateAll, End; each AIV client takes an equal slice of the rows, its AIC serves both),
   tiling baseM 128, baseN 256, baseK 64, stepKa/stepKb 4, double-buffered L1 and L0A/L0B; and the same
   kernel in an AIC-only launch (each AIC runs its slice inline: no AIV threads, no server).
2. benchmarks/kernels/matmul_custom's kernel (the cube steps of the Matmul default template written out
   by hand, AIC-only launch) with the same base block and step_k 4.
3. NumPy float32 `matmul` of the same operands, in the same process run.

Per variant: CPU time of the emulated cores' threads (sum over cores / cores that did cube work: the CPU
time per emulated core of a one-block launch), and the wall time of a launch on BLOCKS blocks. Figures
are measurements of this machine (shared with other work), not assertions.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import opkit.sim as sim  # noqa: E402

CHIP = "ascend910b2"
HAND = ROOT / "benchmarks" / "kernels" / "matmul_custom" / "op_kernel"

KERNEL = r"""
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tikicpulib.h"
#include "matmul_custom.h"
using namespace AscendC;
static int S = 1024;
static std::string MODE;
static std::mutex g_mu;
static double g_cube_cpu = 0;
static int g_cube_cores = 0;
static double cpu_now() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}
// CPU time of an AIC thread from kernel entry to exit (a MIX AIC leaves through REGIST_MATMUL_OBJ's return)
struct CubeTimer {
    double t0 = cpu_now();
    ~CubeTimer() {
        if (g_coreType != AscendC::AIC) return;
        std::lock_guard<std::mutex> lk(g_mu);
        g_cube_cpu += cpu_now() - t0;
        g_cube_cores++;
    }
};

using AT = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using CT = MatmulType<TPosition::GM, CubeFormat::ND, float>;

extern "C" __global__ __aicore__ void api_gemm(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR ws, GM_ADDR tiling) {
    CubeTimer timer;
    TPipe pipe;
    Matmul<AT, AT, CT, CT> mm;
    TCubeTiling t = *reinterpret_cast<TCubeTiling*>(tiling);
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    const int clients = GetBlockNum() * GetTaskRation();
    const int me = GetBlockIdx();
    const int rows = S / clients, r0 = me * rows;
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer((__gm__ half*)a);
    gb.SetGlobalBuffer((__gm__ half*)b);
    gc.SetGlobalBuffer((__gm__ float*)c);
    mm.SetOrgShape(S, S, S);
    mm.SetSingleShape(rows, S, S);
    mm.SetTensorA(ga[size_t(r0) * S]);
    mm.SetTensorB(gb);
    mm.IterateAll(gc[size_t(r0) * S]);
    mm.End();
}

extern "C" __global__ __aicore__ void hand_gemm(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR ws, GM_ADDR tiling) {
    CubeTimer timer;
    MatmulCustomKernel::MatmulCustom op;
    op.Init(a, b, c, *reinterpret_cast<MatmulCustomTilingData*>(tiling));
    op.Process();
}

int main(int argc, char** argv) {
    S = std::atoi(argv[1]);
    MODE = argv[2];
    const int blocks = std::atoi(argv[3]);
    size_t n = size_t(S) * S;
    half* a = (half*)GmAlloc(n * 2);
    half* b = (half*)GmAlloc(n * 2);
    float* c = (float*)GmAlloc(n * 4);
    for (size_t i = 0; i < n; ++i) {
        a[i] = half(float((i * 7) % 13) / 13.0f - 0.5f);
        b[i] = half(float((i * 5) % 11) / 11.0f - 0.5f);
    }
    uint8_t* ws = (uint8_t*)GmAlloc(16 * 1024 * 1024);
    auto w0 = std::chrono::steady_clock::now();
    if (MODE == "api" || MODE == "api_aic") {
        TCubeTiling* t = (TCubeTiling*)GmAlloc(sizeof(TCubeTiling));
        new (t) TCubeTiling();
        t->M = S; t->N = S; t->Ka = S; t->Kb = S; t->singleCoreM = S; t->singleCoreN = S; t->singleCoreK = S;
        t->baseM = 128; t->baseN = 256; t->baseK = 64; t->stepKa = 4; t->stepKb = 4; t->depthA1 = 8; t->depthB1 = 8;
        t->dbL0A = 2; t->dbL0B = 2; t->dbL0C = 1; t->stepM = 1; t->stepN = 1;
        opkit::sim::set_kernel_type(MODE == "api" ? KERNEL_TYPE_MIX_AIC_1_2 : KERNEL_TYPE_AIC_ONLY);
        ICPU_RUN_KF(api_gemm, blocks, (uint8_t*)a, (uint8_t*)b, (uint8_t*)c, ws, (uint8_t*)t);
    } else {
        MatmulCustomTilingData* t = (MatmulCustomTilingData*)GmAlloc(sizeof(MatmulCustomTilingData));
        t->M = S; t->N = S; t->K = S; t->baseM = 128; t->baseN = 256; t->baseK = 64; t->stepK = 4;
        t->mTiles = (S + 127) / 128; t->nTiles = (S + 255) / 256;
        opkit::sim::set_kernel_type(KERNEL_TYPE_AIC_ONLY);
        ICPU_RUN_KF(hand_gemm, blocks, (uint8_t*)a, (uint8_t*)b, (uint8_t*)c, ws, (uint8_t*)t);
    }
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    FILE* f = std::fopen(argv[4], "wb");
    std::fwrite(c, 4, n, f);
    std::fclose(f);
    std::printf("cube_cpu_s=%.6f cube_cores=%d wall_s=%.6f\n", g_cube_cpu, g_cube_cores, wall);
    return 0;
}
"""


def build(workdir: Path) -> Path:
    src = workdir / "sim_matmul_api.cpp"
    src.write_text(KERNEL, encoding="utf-8")
    exe = workdir / "sim_matmul_api"
    cmd = [sim.find_cxx(), *sim.cxx_flags(CHIP), f"-I{HAND}", str(src), "-o", str(exe)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"compile failed:\n{r.stderr[-4000:]}")
    return exe


def operands(size: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(size * size, dtype=np.int64)
    a = ((i * 7) % 13 / 13.0 - 0.5).astype(np.float16).reshape(size, size)
    b = ((i * 5) % 11 / 11.0 - 0.5).astype(np.float16).reshape(size, size)
    return a, b


def run(exe: Path, mode: str, size: int, blocks: int, out: Path) -> dict[str, float]:
    r = subprocess.run([str(exe), str(size), mode, str(blocks), str(out)], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{mode} run failed:\n{r.stderr[-3000:]}")
    vals = dict(kv.split("=") for kv in r.stdout.split())
    return {k: float(v) for k, v in vals.items()}


def figures(size: int, blocks: int, repeat: int) -> dict[str, dict[str, float]]:
    a, b = operands(size)
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    best_np = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        want = fa @ fb
        best_np = min(best_np, time.perf_counter() - t0)
    res: dict[str, dict[str, float]] = {"numpy": {"wall_s": best_np}}
    with tempfile.TemporaryDirectory(prefix="opkit-bench-mmapi-") as d:
        exe = build(Path(d))
        out = Path(d) / "c.bin"
        for mode in ("api", "api_aic", "hand"):
            one = min((run(exe, mode, size, 1, out) for _ in range(repeat)), key=lambda v: v["cube_cpu_s"])
            got = np.fromfile(out, np.float32).reshape(size, size)
            err = float(np.max(np.abs(got - want)))
            if err > 1e-2:
                raise SystemExit(f"{mode}: wrong result (max |error| {err})")
            multi = min((run(exe, mode, size, blocks, out) for _ in range(repeat)), key=lambda v: v["wall_s"])
            res[mode] = {"cpu_per_core_s": one["cube_cpu_s"] / max(one["cube_cores"], 1), "one_wall_s": one["wall_s"],
                         "multi_wall_s": multi["wall_s"], "multi_cpu_s": multi["cube_cpu_s"], "max_err": err}
    return res


def report(size: int, blocks: int, repeat: int) -> None:
    r = figures(size, blocks, repeat)
    flops = 2.0 * size ** 3
    print(f"GEMM {size}^3 fp16 -> fp32, every check on (best of {repeat}); NumPy float32 matmul "
          f"{r['numpy']['wall_s'] * 1e3:.1f} ms")
    labels = (("api", "Matmul API (MIX: AIC server, 2 AIV clients per block)"),
              ("api_aic", "Matmul API (AIC-only launch, inline)"), ("hand", "hand cube kernel (matmul_custom)"))
    for mode, label in labels:
        v = r[mode]
        print(f"  {label}: CPU time per emulated core {v['cpu_per_core_s']:.3f} s "
              f"({flops / v['cpu_per_core_s'] / 1e9:.1f} GFLOP/s), one-block launch wall {v['one_wall_s']:.3f} s, "
              f"{blocks}-block launch wall {v['multi_wall_s']:.3f} s (max |error| vs NumPy {v['max_err']:.2g})")
    for mode in ("api", "api_aic"):
        print(f"  {mode} / hand kernel: {r[mode]['cpu_per_core_s'] / r['hand']['cpu_per_core_s']:.2f}x CPU per core, "
              f"{r[mode]['multi_wall_s'] / r['hand']['multi_wall_s']:.2f}x {blocks}-block wall")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=1024, help="M = N = K (a multiple of 256)")
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if args.size % 256:
        raise SystemExit("--size must be a multiple of 256")
    report(args.size, args.blocks, args.repeat)


if __name__ == "__main__":
    main()

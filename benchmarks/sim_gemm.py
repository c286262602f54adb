"""Simulated GEMM throughput of the cube unit, and the verify time of the `cube` template.

    python benchmarks/sim_gemm.py [--size 1024] [--repeat 3] [--no-verify]

1. One emulated AIC core computes C = A x B for SIZE x SIZE x SIZE fp16 (fp32 accumulation, fp16 out)
   the way a cube kernel does: DataCopy ND2NZ GM -> L1 (128 x 256 of A, 256 x 128 of B), LoadData
   L1 -> L0A/L0B (64-deep K slices), Mmad accumulating in L0C, Fixpipe to GM, queues for the pipe order.
   Every check of the simulator stays on. Reported: 2*SIZE^3 / CPU time of the emulated core's thread
   (GFLOP/s per emulated core; CPU time, because the machine may be shared and wall time would count
   other processes' work), best of REPEAT runs, the same for Mmad alone (the cube's MAC loop), and the
   kernel's wall time.
2. Wall time of `opkit verify` (sim backend, `mixed` profile) of a fresh `opkit new mm --template cube`
   package, build included, and again with the build cached.

Figures are measurements of this machine (2 cores here, shared with other work), not assertions.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import opkit.sim as sim  # noqa: E402

CHIP = "ascend910b2"

KERNEL = r"""
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>
#include "kernel_operator.h"
#include "tikicpulib.h"
using namespace AscendC;
static int S = 1024;
static double g_mmad_s = 0, g_kernel_s = 0, g_kernel_wall = 0;
// CPU time of this thread (the emulated core): the machine may be shared, so wall time would count others' work
static double cpu_now() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}
constexpr int BM = 128, BN = 128, BK = 64, KL1 = 256;

extern "C" __global__ __aicore__ void gemm(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
    auto w0 = std::chrono::steady_clock::now();
    double t0 = cpu_now();
    GlobalTensor<half> ag, bg, cg;
    ag.SetGlobalBuffer((__gm__ half*)a);
    bg.SetGlobalBuffer((__gm__ half*)b);
    cg.SetGlobalBuffer((__gm__ half*)c);
    TPipe pipe;
    TQue<TPosition::A1, 1> qa1;
    TQue<TPosition::B1, 1> qb1;
    TQue<TPosition::A2, 1> qa2;
    TQue<TPosition::B2, 1> qb2;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qa1, 1, BM * KL1 * 2);
    pipe.InitBuffer(qb1, 1, KL1 * BN * 2);
    pipe.InitBuffer(qa2, 1, BM * BK * 2);
    pipe.InitBuffer(qb2, 1, BK * BN * 2);
    pipe.InitBuffer(qc, 1, BM * BN * 4);
    for (int mt = 0; mt < S / BM; ++mt)
        for (int nt = 0; nt < S / BN; ++nt) {
            LocalTensor<float> c1 = qc.AllocTensor<float>();
            for (int k1 = 0; k1 < S; k1 += KL1) {
                LocalTensor<half> a1 = qa1.AllocTensor<half>();
                LocalTensor<half> b1 = qb1.AllocTensor<half>();
                DataCopy(a1, ag[size_t(mt) * BM * S + k1], Nd2NzParams(1, BM, KL1, 0, S, BM, 1, 0));
                DataCopy(b1, bg[size_t(k1) * S + nt * BN], Nd2NzParams(1, KL1, BN, 0, S, KL1, 1, 0));
                qa1.EnQue(a1);
                qb1.EnQue(b1);
                a1 = qa1.DeQue<half>();
                b1 = qb1.DeQue<half>();
                for (int kk = 0; kk < KL1; kk += BK) {
                    LocalTensor<half> a2 = qa2.AllocTensor<half>();
                    LocalTensor<half> b2 = qb2.AllocTensor<half>();
                    for (int i = 0; i < BM / 16; ++i)
                        LoadData(a2[i * BK * 16], a1[(kk / 16) * BM * 16 + i * 256],
                                 LoadData2DParams(0, BK / 16, BM / 16, 0, 0, false, 0));
                    for (int i = 0; i < BK / 16; ++i)
                        LoadData(b2[i * BN * 16], b1[(kk / 16 + i) * 256],
                                 LoadData2DParams(0, BN / 16, KL1 / 16, 0, 0, true, 0));
                    qa2.EnQue(a2);
                    qb2.EnQue(b2);
                    a2 = qa2.DeQue<half>();
                    b2 = qb2.DeQue<half>();
                    MmadParams p;
                    p.m = BM; p.n = BN; p.k = BK;
                    p.cmatrixInitVal = (k1 == 0 && kk == 0);
                    double m0 = cpu_now();
                    Mmad(c1, a2, b2, p);
                    g_mmad_s += cpu_now() - m0;
                    qa2.FreeTensor(a2);
                    qb2.FreeTensor(b2);
                }
                qa1.FreeTensor(a1);
                qb1.FreeTensor(b1);
            }
            qc.EnQue(c1);
            c1 = qc.DeQue<float>();
            FixpipeParamsV220 fp(BN, BM, BM, S, false);
            fp.quantPre = QuantMode_t::F322F16;
            Fixpipe(cg[size_t(mt) * BM * S + nt * BN], c1, fp);
            qc.FreeTensor(c1);
        }
    g_kernel_s = cpu_now() - t0;
    g_kernel_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
}

int main(int argc, char** argv) {
    S = std::atoi(argv[1]);
    size_t n = size_t(S) * S;
    half* a = (half*)GmAlloc(n * 2);
    half* b = (half*)GmAlloc(n * 2);
    half* c = (half*)GmAlloc(n * 2);
    for (size_t i = 0; i < n; ++i) {
        a[i] = half(float((i * 7) % 13) / 13.0f - 0.5f);
        b[i] = half(float((i * 5) % 11) / 11.0f - 0.5f);
    }
    opkit::sim::set_kernel_type(KERNEL_TYPE_AIC_ONLY);
    ICPU_RUN_KF(gemm, 1, (uint8_t*)a, (uint8_t*)b, (uint8_t*)c);
    // the MAC loop alone (what Mmad runs after its checks and operand conversion): SIZE^3 MACs in
    // 128 x 128 x 64 pieces, as the kernel above
    std::vector<float> A(BM * BK, 0.5f), B(BK * BN, 0.25f), C(BM * BN, 0.0f);
    double l0 = cpu_now();
    const long calls = long(S / BM) * (S / BN) * (S / BK);
    for (long r = 0; r < calls; ++r) opkit::sim::cube::gemm_nz<float>(C.data(), A.data(), B.data(), BM, BN / 16, BK);
    double loop_s = cpu_now() - l0;
    // spot check one element against a double-precision dot product
    double ref = 0;
    for (int k = 0; k < S; ++k) ref += double(float(a[size_t(5) * S + k])) * double(float(b[size_t(k) * S + 7]));
    std::printf("kernel_s=%.6f wall_s=%.6f mmad_s=%.6f loop_s=%.6f c57=%.6f ref=%.6f chk=%.1f\n", g_kernel_s,
                g_kernel_wall, g_mmad_s, loop_s, double(float(c[size_t(5) * S + 7])), ref, double(C[0]));
    return 0;
}
"""


def build_gemm(workdir: Path) -> Path:
    src = workdir / "sim_gemm.cpp"
    src.write_text(KERNEL, encoding="utf-8")
    exe = workdir / "sim_gemm"
    r = subprocess.run([sim.find_cxx(), *sim.cxx_flags(CHIP), str(src), "-o", str(exe)], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"compile failed:\n{r.stderr[-4000:]}")
    return exe


def gemm_rate(exe: Path, size: int, repeat: int) -> dict[str, float]:
    best = {"kernel_s": float("inf"), "mmad_s": float("inf"), "loop_s": float("inf"), "wall_s": float("inf")}
    c = ref = 0.0
    for _ in range(repeat):
        out = subprocess.run([str(exe), str(size)], capture_output=True, text=True, check=True).stdout
        vals = dict(kv.split("=") for kv in out.split())
        for key in best:
            best[key] = min(best[key], float(vals[key]))
        c, ref = float(vals["c57"]), float(vals["ref"])
    flops = 2.0 * size ** 3
    if abs(c - ref) > 1e-2 * max(1.0, abs(ref)):
        raise SystemExit(f"wrong result: C[5,7] = {c}, expected {ref}")
    best["flops"] = flops
    return best


def verify_times() -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        subprocess.run([sys.executable, "-m", "opkit", "new", "mm", "--template", "cube"], cwd=d, env=env, check=True,
                       capture_output=True)
        times = []
        for _ in range(2):
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "opkit", "verify", "mm", "--profile", "mixed"], cwd=d, env=env,
                               capture_output=True, text=True)
            times.append(time.perf_counter() - t0)
            if r.returncode != 0:
                raise SystemExit(f"opkit verify failed:\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
        return times[0], times[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=1024, help="M = N = K (a multiple of 256)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-verify", action="store_true", help="skip the template verify timing")
    args = ap.parse_args()
    if args.size % 256:
        raise SystemExit("--size must be a multiple of 256")
    with tempfile.TemporaryDirectory() as d:
        exe = build_gemm(Path(d))
        r = gemm_rate(exe, args.size, args.repeat)
    s = args.size

    def rate(key: str) -> str:
        return f"{r[key]:.3f} s = {r['flops'] / r[key] / 1e9:.1f} GFLOP/s"

    print(f"GEMM {s}x{s}x{s} fp16 -> fp32 acc -> fp16, one emulated AIC core, CPU time (best of {args.repeat}):")
    print(f"  whole kernel (ND2NZ, LoadData, Mmad, Fixpipe, all checks): {rate('kernel_s')}")
    print(f"  Mmad alone (checks, pipe records, operand conversion, MACs): {rate('mmad_s')}")
    print(f"  the MAC loop alone (128 x 128 x 64 pieces):                 {rate('loop_s')}")
    load = os.getloadavg()[0]
    print(f"  wall time of the kernel: {r['wall_s']:.3f} s (load average now {load:.1f} on {os.cpu_count()} CPUs)")
    if not args.no_verify:
        cold, warm = verify_times()
        print("opkit verify of a fresh `opkit new mm --template cube` package (mixed profile, fp16 + bf16):")
        print(f"  with build: {cold:.1f} s   build cached: {warm:.1f} s")


if __name__ == "__main__":
    main()

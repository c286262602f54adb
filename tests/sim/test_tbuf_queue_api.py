"""TBuf's queue interface as CANN defines it (asc-devkit impl/basic_api/kernel_tbuf_impl.h): AllocTensor and DeQue
return the buffer (Get), FreeTensor and EnQue do nothing; flash_attention_score allocates from a TBuf<TSCM>."""

from __future__ import annotations

import subprocess

from sim_util import build

PROGRAM = r"""
#include <cstdio>
#include "kernel_operator.h"
#include "tikicpulib.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void tbuf_kernel(GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    LocalTensor<float> a = buf.AllocTensor<float>();    // the whole buffer, as Get<float>()
    Duplicate(a, 2.5f, 64);
    buf.EnQue(a);                                        // no queue: nothing happens
    LocalTensor<float> b = buf.DeQue<float>();           // the same buffer again
    PipeBarrier<PIPE_ALL>();
    GlobalTensor<float> g;
    g.SetGlobalBuffer((__gm__ float*)out, 64);
    DataCopy(g, b, 64);
    buf.FreeTensor(b);                                   // nothing to free
}

int main() {
    float* out = (float*)GmAlloc(64 * sizeof(float));
    ICPU_RUN_KF(tbuf_kernel, 1, (uint8_t*)out);
    int bad = 0;
    for (int i = 0; i < 64; ++i) bad += out[i] != 2.5f;
    std::printf("%d %u\n", bad, (unsigned)(sizeof(float) * 64));
    GmFree(out);
    return bad ? 1 : 0;
}
"""


def test_tbuf_alloc_enque_deque_free(tmp_path):
    src = tmp_path / "tbuf_queue.cpp"
    src.write_text(PROGRAM, encoding="utf-8")
    r = subprocess.run([str(build(src))], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split() == ["0", "256"]

// The simulator's trace storage (sim_trace.h; TraceEvents in sim_shadow.h): every core's events in order, those an
// untrace took back left out of the trace file and out of its counts, the per-core share and the pool.
// usage: trace_store_harness (OPKIT_SIM_TRACE names the trace file; OPKIT_SIM_TRACE_CORE_EVENTS and
// OPKIT_SIM_TRACE_EVENTS size the storage)
// On each of two AIV cores: Adds (V), then, listed for an untrace, a GM read (MTE2, with its range) and Muls (V),
// then a set_flag event with the block as its id and a GM write (MTE3). Core 0 takes back the read and Muls.
#include <vector>

#include "kernel_operator.h"
#include "tikicpulib.h"

namespace sim = opkit::sim;

extern "C" __global__ __aicore__ void trace_kernel(GM_ADDR x, GM_ADDR ws, GM_ADDR tiling) {
    const int b = int(AscendC::GetBlockIdx());
    sim::trace(sim::P_V, 256, 8, "Adds", "float32");
    std::vector<sim::CoreState::TraceRec> recs;
    sim::core().trace_record = &recs;
    const sim::GmRange g{x + 256 * b, 64, 128, 2};
    sim::trace(sim::P_MTE2, 128, 2, "DataCopy", "float16", &g);
    sim::trace(sim::P_V, 512, 16, "Muls", "float32");
    sim::core().trace_record = nullptr;
    sim::trace_event(sim::fmt("{\"ev\":\"set_flag\",\"from\":\"V\",\"to\":\"MTE3\",\"id\":%d}", b));
    if (b == 0) sim::untrace(recs);
    sim::trace(sim::P_MTE3, 64, 1, "DataCopy", "float32");
}

int main() {
    uint8_t* x = (uint8_t*)AscendC::GmAlloc(4096);
    uint8_t* ws = (uint8_t*)AscendC::GmAlloc(1024);
    uint8_t* tiling = (uint8_t*)AscendC::GmAlloc(64);
    ICPU_RUN_KF(trace_kernel, 2, x, ws, tiling);
    AscendC::GmFree(tiling);
    AscendC::GmFree(ws);
    AscendC::GmFree(x);
    return 0;
}

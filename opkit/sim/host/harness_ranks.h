// opkit simulator harness: a multi-rank run (`harness run-ranks REQ_RANK0.json ... REQ_RANK{R-1}.json`): one
// request per rank, world size R = the number of requests, rank r = the r-th. The ranks are devices of this
// process (opkit/sim/include/kernel_launch.h, run_ranks), one thread each: their host steps (request,
// InferShape, tiling, GM) run one rank at a time, their kernels at the same time (the collectives of
// adv_api/hccl/hccl.h need every rank running); each rank writes its own outputs and result file.
#pragma once
#include <mutex>
#include <string>
#include <vector>

#include "harness_launch.h"
#include "harness_output.h"
#include "harness_platform.h"
#include "harness_request.h"
#include "harness_tiling.h"
#include "adv_api/hccl/hccl.h"
#include "harness_poison.h"

namespace opkit {
namespace host {

inline void RunRank(const std::string& path, std::mutex& host_mu) {
    Request r;
    Platform pl;
    IrContext ir;
    Tiling t;
    KernelArgs ka;
    {
        std::lock_guard<std::mutex> lk(host_mu);  // the host side's state (platform, op log) is one per process
        opkit::host::oplog::reset();
        ReadRequest(path, false, &r);
        SetUpPlatform(r, &pl);
        ReadTensors(&r, pl.soc_key);
        MatchColumn(&r);
        BuildIrContext(r, &ir);
        InferShapes(&r, ir);
        InferDataTypes(r, ir);
        RunTiling(r, pl, ir, &t);
        AllocateArgs(&r, t, &ka);
        PoisonOutputs(r);  // as a single-device run: bytes of an output nothing (no core, no collective) wrote are reported
        SetKernelType(r, t.ctx->tiling_key_);
        const Value* trace = r.json.find("trace");
        if (trace && trace->type == Value::String) opkit::sim::cur_device()->trace_path = trace->text;
        ResetPlatform();
    }
    const int lrc = opkit_launch_kernel(t.ctx->block_dim_, t.ctx->tiling_key_, ka.args.data(), static_cast<int>(ka.args.size()));
    if (lrc != 0) {
        std::fflush(stdout);
        std::fflush(stderr);
        std::_Exit(lrc);
    }
    std::lock_guard<std::mutex> lk(host_mu);
    CheckUnwrittenOutputs(r);
    SetUpPlatform(r, &pl);
    WriteOutputs(r);
    WriteRunResult(r, pl, t, ka);
    FreeArgs(ka);
    ResetPlatform();
}

inline void RunRanks(const std::vector<std::string>& paths) {
    std::mutex host_mu;
    unsetenv("OPKIT_SIM_TRACE");  // each rank's trace file is its request's "trace"
    opkit::sim::run_ranks(static_cast<int>(paths.size()), [&](int rank) { RunRank(paths[static_cast<size_t>(rank)], host_mu); });
    opkit::sim::set_trace_only(false);
}

}  // namespace host
}  // namespace opkit

// opkit simulator harness: the generic main() of one operator x chip x dtype-column executable.
//
//   harness describe                      print the registered OpDef(s) as one JSON object
//   harness run REQUEST.json [...]        InferShape, InferDataType, tiling, launch, write outputs
//   harness tiling REQUEST.json [...]     InferShape, InferDataType and tiling only (no kernel needed)
//   harness run-ranks R0.json R1.json ... one multi-rank run: request r is rank r's (world size = their count)
//
// Linked with the package's op_host/*.cpp, its kernel and a generated shim that defines
// opkit_launch_kernel(). The request/result contract is documented in README.md next to this file;
// each step lives in a header of its own (harness_*.h, listed there).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "harness_describe.h"
#include "harness_launch.h"
#include "harness_opdef.h"
#include "harness_output.h"
#include "harness_platform.h"
#include "harness_ranks.h"
#include "harness_poison.h"
#include "harness_request.h"
#include "harness_tiling.h"

extern "C" void opkit_harness_anchor() {}

namespace opkit {
namespace host {
namespace {

// One request: everything up to the tiling, then (tiling_only: `harness tiling`) the tiling's result, or the launch.
void RunOne(const std::string& path, bool tiling_only = false) {
    opkit::host::oplog::reset();  // a failure shows what the op logged during this request only
    Request r;
    ReadRequest(path, tiling_only, &r);  // the JSON, the op it names, its registrations
    Platform pl;
    SetUpPlatform(r, &pl);  // the chip: checked against the OpDef and against the chip this harness was built for
    ReadTensors(&r, pl.soc_key);  // inputs (their files into GM) and outputs, against the OpDef's parameters
    MatchColumn(&r);
    IrContext ir;
    BuildIrContext(r, &ir);  // the node, its attributes, the input tensors of the contexts
    InferShapes(&r, ir);
    InferDataTypes(r, ir);
    Tiling t;
    RunTiling(r, pl, ir, &t);
    if (tiling_only) {
        WriteTilingResult(r, pl, t);
        FreeInputs(r);
        ResetPlatform();
        return;
    }
    KernelArgs ka;
    AllocateArgs(&r, t, &ka);
    PoisonOutputs(r);
    Launch(r, t, &ka);
    CheckUnwrittenOutputs(r);
    WriteOutputs(r);
    WriteRunResult(r, pl, t, ka);
    FreeArgs(ka);
    opkit::sim::set_trace_only(false);
    ResetPlatform();
}

int Usage() {
    std::fprintf(stderr,
                 "usage: harness describe\n"
                 "       harness run REQUEST.json [REQUEST2.json ...]\n"
                 "       harness tiling REQUEST.json [REQUEST2.json ...]\n"
                 "       harness run-ranks RANK0.json RANK1.json [...]\n"
                 "(the request and result formats: opkit/sim/host/README.md)\n");
    return 2;
}

}  // namespace
}  // namespace host
}  // namespace opkit

int main(int argc, char** argv) {
    using namespace opkit::host;
    if (argc < 2) return Usage();
    const std::string cmd = argv[1];
    LoadOps();
    if (cmd == "describe" && argc == 2) {
        Describe();
        return 0;
    }
    if (cmd == "run" && argc >= 3) {
        if (opkit_launch_kernel == nullptr)
            fail("harness run", "this harness was linked without a kernel (no opkit_launch_kernel); it can only describe");
        const char* env = std::getenv("OPKIT_SIM_TRACE");
        const std::string saved = env ? env : "";
        for (int i = 2; i < argc; ++i) {
            if (env) setenv("OPKIT_SIM_TRACE", saved.c_str(), 1);
            else unsetenv("OPKIT_SIM_TRACE");
            RunOne(argv[i]);
        }
        return 0;
    }
    if (cmd == "run-ranks" && argc >= 3) {  // one request per rank
        if (opkit_launch_kernel == nullptr)
            fail("harness run-ranks", "this harness was linked without a kernel (no opkit_launch_kernel); it can only describe");
        RunRanks(std::vector<std::string>(argv + 2, argv + argc));
        return 0;
    }
    if (cmd == "tiling" && argc >= 3) {  // host only: works in a harness linked without a kernel
        for (int i = 2; i < argc; ++i) RunOne(argv[i], /*tiling_only=*/true);
        return 0;
    }
    return Usage();
}

// Device-side HCCL on emulated ranks: `hccl_harness DIR SCENARIO R KIND DTYPE OP T CNT`.
// Every rank's kernel "computes" tile t (copies it from x into a staging buffer, the blocks sharing
// the work), then block 0 commits slice t of the collective; at the end block 0 waits for every
// slice and finalizes. Rank r's x holds ((j * 7 + r * 3) % 11 - 5) / 4 (element j, as the dtype);
// its result goes to DIR/y<r>.bin. The broken scenarios each make one mistake (marked // @name).
#include <cstring>
#include <fstream>
#include <string>

#include "kernel_operator.h"
#include "adv_api/hccl/hccl_tiling.h"
#include "lib/hccl/hccl.h"
#include "tikicpulib.h"

using namespace AscendC;

struct HcclTestTiling {
    uint32_t kind, dtype, op, T, cnt, parts, scenario, pad;
    Mc2InitTiling init;  // from Mc2CcTilingConfig::GetTiling (the cc_* scenarios)
    Mc2CcTiling cc;
};
enum Scenario : uint32_t { OK = 0, WAIT_BEFORE_COMMIT, COMMIT_BEYOND, MISSING_COMMIT, REPEAT_MISMATCH, SEQUENCE_MISMATCH,
                           RANK_SKIPS, NO_FINALIZE, SECOND_CORE_COMMITS, NOT_INITIALISED, BAD_CONTEXT, FOREIGN_BUFFER,
                           CC_OK, CC_WRONG_TASK, CC_NOT_FILLED };
static const char* kScenarios[] = {"ok", "wait_before_commit", "commit_beyond", "missing_commit", "repeat_mismatch",
                                   "sequence_mismatch", "rank_skips", "no_finalize", "second_core_commits", "not_initialised",
                                   "bad_context", "foreign_buffer", "cc_ok", "cc_wrong_task", "cc_not_filled"};
static uint8_t* g_foreign = nullptr;  // a buffer of rank 0 (foreign_buffer)

template <class H>
static HcclHandle PrepareOne(H& hccl, const HcclTestTiling& t, GM_ADDR stage, GM_ADDR y, uint8_t repeat) {
    const auto dt = HcclDataType(t.dtype);
    const uint64_t stride = uint64_t(t.T) * t.cnt;
    switch (t.kind) {
        case 0: return hccl.AllReduce(stage, y, t.cnt, dt, HcclReduceOp(t.op), repeat);  // @allreduce
        case 1: return hccl.AllGather(stage, y, t.cnt, dt, stride, repeat);  // @allgather
        case 2: return hccl.ReduceScatter(stage, y, t.cnt, dt, HcclReduceOp(t.op), stride, repeat);
        default: return hccl.AlltoAll(stage, y, t.cnt, dt, stride, repeat);
    }
}

extern "C" __global__ __aicore__ void hccl_tiles(GM_ADDR x, GM_ADDR stage, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    const HcclTestTiling& t = *reinterpret_cast<const HcclTestTiling*>(tiling);
    (void)workspace;
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    const bool cc = t.scenario >= CC_OK;
    if (t.scenario == BAD_CONTEXT) hccl.Init(x);  // @bad_context
    else if (cc) hccl.InitV2(GetHcclContext<0>(), &t.init);
    else if (t.scenario != NOT_INITIALISED) hccl.Init(GetHcclContext<0>());
    if (cc) hccl.SetCcTiling(const_cast<Mc2CcTiling*>(&t.cc));  // @set_cc_tiling
    const uint32_t rank = t.scenario == NOT_INITIALISED ? 0 : hccl.GetRankId();  // @not_initialised
    if (t.scenario == NOT_INITIALISED) hccl.GetRankDim();  // @not_initialised_call
    const bool lead = GetBlockIdx() == 0;
    const int esz = t.dtype == HCCL_DATA_TYPE_FP32 || t.dtype == HCCL_DATA_TYPE_INT32 ? 4 : 2;
    HcclHandle h = -1;
    const bool skips = t.scenario == RANK_SKIPS && rank == 1;
    if (lead && !skips) {
        uint8_t repeat = uint8_t(t.T);
        if (t.scenario == REPEAT_MISMATCH && rank == 1) repeat = uint8_t(t.T + 1);  // @repeat_mismatch
        GM_ADDR dst = t.scenario == FOREIGN_BUFFER && rank == 1 ? g_foreign : y;
        if (t.scenario == SEQUENCE_MISMATCH && rank == 1)
            h = hccl.AllGather(stage, y, t.cnt, HcclDataType(t.dtype), 0, uint8_t(t.T));  // @sequence_mismatch
        else
            h = PrepareOne(hccl, t, stage, dst, repeat);
        if (t.scenario == WAIT_BEFORE_COMMIT) hccl.Wait(h);  // @wait_before_commit
    }
    const uint64_t tile = uint64_t(t.cnt) * esz, row = uint64_t(t.T) * tile;
    for (uint32_t i = 0; i < t.T; ++i) {
        for (uint32_t p = 0; p < t.parts; ++p) {  // this tile of every destination block, cut across the cores
            const uint64_t off = p * row + i * tile;
            const uint64_t share = (tile + GetBlockNum() - 1) / GetBlockNum();
            const uint64_t b = GetBlockIdx() * share, e = b + share < tile ? b + share : tile;
            if (b < e) std::memcpy(stage + off + b, x + off + b, e - b);
        }
        SyncAll();
        if (t.scenario == SECOND_CORE_COMMITS && GetBlockIdx() == 1 && i == 0) hccl.Commit(0);  // @second_core_commits
        const bool drop = t.scenario == MISSING_COMMIT && rank == 1 && i == t.T - 1;
        if (lead && !skips && !drop) hccl.Commit(h);  // @commit
    }
    if (t.scenario == COMMIT_BEYOND && lead) hccl.Commit(h);  // @commit_beyond
    if (lead && !skips) {
        const uint32_t waits = t.scenario == MISSING_COMMIT && rank == 1 ? t.T - 1 : t.T;
        for (uint32_t i = 0; i < waits; ++i) hccl.Wait(h);  // @wait
        if (t.scenario == OK && hccl.Query(h) != int32_t(t.T)) std::abort();
        if (t.scenario != NO_FINALIZE) hccl.Finalize();  // @finalize
    }
    SyncAll();
}

int main(int argc, char** argv) {
    if (argc != 9) {
        std::fprintf(stderr, "usage: hccl_harness DIR SCENARIO R KIND DTYPE OP T CNT\n");
        return 2;
    }
    const std::string dir = argv[1], scen = argv[2];
    HcclTestTiling t{};
    t.scenario = 99;
    for (uint32_t s = 0; s < sizeof kScenarios / sizeof *kScenarios; ++s)
        if (scen == kScenarios[s]) t.scenario = s;
    if (t.scenario == 99) { std::fprintf(stderr, "unknown scenario %s\n", scen.c_str()); return 2; }
    const int R = std::atoi(argv[3]);
    t.kind = uint32_t(std::atoi(argv[4]));
    t.dtype = uint32_t(std::atoi(argv[5]));
    t.op = uint32_t(std::atoi(argv[6]));
    t.T = uint32_t(std::atoi(argv[7]));
    t.cnt = uint32_t(std::atoi(argv[8]));
    t.parts = t.kind == 0 ? 1 : uint32_t(R);
    if (t.scenario == CC_OK || t.scenario == CC_WRONG_TASK) {  // the host tiling of the task (a wrong one: AllGather)
        static const HcclCMDType types[] = {HcclCMDType::HCCL_CMD_ALLREDUCE, HcclCMDType::HCCL_CMD_ALLGATHER,
                                            HcclCMDType::HCCL_CMD_REDUCE_SCATTER, HcclCMDType::HCCL_CMD_ALLTOALL};
        const uint32_t type = uint32_t(types[t.scenario == CC_WRONG_TASK ? 1 : t.kind]);
        Mc2CcTilingConfig cfg("world", type, "AllReduce=level0:fullmesh", t.op);
        if (cfg.GetTiling(t.init) != 0 || cfg.GetTiling(t.cc) != 0) { std::fprintf(stderr, "GetTiling failed\n"); return 1; }
    }
    if (t.scenario == CC_NOT_FILLED) {
        Mc2CcTilingConfig cfg("world", uint32_t(HcclCMDType::HCCL_CMD_ALLREDUCE), "", t.op);
        cfg.GetTiling(t.init);  // the Mc2CcTiling stays zero
    }
    const int esz = opkit::sim::hccl::dtype_size(int(t.dtype));
    const uint64_t n_in = uint64_t(t.parts) * t.T * t.cnt;
    const uint64_t n_out = t.kind == 0 ? n_in : t.kind == 2 ? uint64_t(t.T) * t.cnt : uint64_t(R) * t.T * t.cnt;
    std::mutex foreign_mu;
    std::condition_variable foreign_cv;
    opkit::sim::run_ranks(R, [&](int r) {
        // Room for the broken scenarios' larger collectives (their diagnostic is not the GM check's).
        const uint64_t room = (n_in + n_out + uint64_t(R + t.T) * t.cnt) * esz;
        auto* x = static_cast<uint8_t*>(GmAlloc(room));
        auto* stage = static_cast<uint8_t*>(GmAlloc(room));
        auto* y = static_cast<uint8_t*>(GmAlloc(room));
        auto* tiling = static_cast<uint8_t*>(GmAlloc(sizeof t));
        std::memcpy(tiling, &t, sizeof t);
        for (uint64_t j = 0; j < n_in; ++j)
            opkit::sim::hccl::store(x + j * esz, int(t.dtype), double(int64_t((j * 7 + uint64_t(r) * 3) % 11) - 5) / 4.0 *
                                    (t.dtype == HCCL_DATA_TYPE_INT32 ? 4.0 : 1.0));
        if (t.scenario == FOREIGN_BUFFER) {
            std::unique_lock<std::mutex> lk(foreign_mu);
            if (r == 0) { g_foreign = y; foreign_cv.notify_all(); }
            else foreign_cv.wait(lk, [] { return g_foreign != nullptr; });
        }
        ICPU_RUN_KF(hccl_tiles, 2, x, stage, y, (uint8_t*)nullptr, tiling);
        std::ofstream(dir + "/y" + std::to_string(r) + ".bin", std::ios::binary).write(reinterpret_cast<char*>(y), std::streamsize(n_out * esz));
    });
    return 0;
}

// opkit simulator: the HCCL tiling structs host and kernel share (adv_api/hccl tiling data: Mc2InitTiling of
// 64 bytes, Mc2CcTiling of 512, as CANN sizes them). Their bytes are opkit's own layout, written by
// Mc2CcTilingConfig::GetTiling (adv_api/hccl/hccl_tiling.h) and read by Hccl::Init/InitV2/SetCcTiling.
#pragma once
#include <cstdint>

struct Mc2InitTiling {
    uint8_t reserved[64];
};
struct Mc2CcTiling {
    uint8_t reserved[512];
};

namespace opkit {
namespace sim {
namespace hccl {
constexpr uint32_t kInitMagic = 0x4f4b4931u;  // "OKI1"
constexpr uint32_t kCcMagic = 0x4f4b4331u;    // "OKC1"
struct InitTilingBytes {
    uint32_t magic, version;
    uint8_t debugMode, commEngine, pad[2];
    uint16_t queueNum, commBlockNum;
};
struct CcTilingBytes {
    uint32_t magic, opType, reduceType;
    uint8_t dstDataType, srcDataType, stepSize, skipLocalRankCopy, skipBufferWindowCopy, debugMode, commEngine, pad;
    uint16_t queueNum, commBlockNum;
    char groupName[128];
    char algConfig[128];
};
static_assert(sizeof(InitTilingBytes) <= sizeof(Mc2InitTiling) && sizeof(CcTilingBytes) <= sizeof(Mc2CcTiling), "layout");
}  // namespace hccl
}  // namespace sim
}  // namespace opkit

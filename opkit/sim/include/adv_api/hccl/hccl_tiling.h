// opkit simulator (host side): Mc2CcTilingConfig, the host tiling of the device-side HCCL API: one config per
// communication task (group name, HcclCMDType, algorithm string, reduce op) fills Mc2InitTiling and
// Mc2CcTiling (adv_api/hccl/hccl_tiling_struct.h), which the kernel hands to Hccl::InitV2 and SetCcTiling.
// Setters return 0, or non-zero (with nothing changed) for a value outside the documented ones.
#pragma once
#include <cstring>
#include <string>

#include "adv_api/hccl/hccl_common.h"
#include "adv_api/hccl/hccl_tiling_struct.h"

namespace AscendC {
class Mc2CcTilingConfig {
public:
    explicit Mc2CcTilingConfig(const std::string& groupName, uint32_t opType, const std::string& algConfig,
                               uint32_t reduceType = 0, uint8_t dstDataType = 0, uint8_t srcDataType = 0, uint8_t commEngine = 0) {
        std::memset(&cc_, 0, sizeof cc_);
        cc_.magic = opkit::sim::hccl::kCcMagic;
        ok_ = SetGroupName(groupName) == 0 && SetOpType(opType) == 0 && SetAlgConfig(algConfig) == 0 &&
              SetReduceType(reduceType, dstDataType, srcDataType) == 0 && SetCommEngine(commEngine) == 0;
    }
    virtual ~Mc2CcTilingConfig() = default;

    uint32_t GetTiling(::Mc2InitTiling& tiling) {
        if (!ok_) return 1;
        opkit::sim::hccl::InitTilingBytes b{};
        b.magic = opkit::sim::hccl::kInitMagic;
        b.version = 2;
        b.debugMode = cc_.debugMode;
        b.commEngine = cc_.commEngine;
        b.queueNum = cc_.queueNum;
        b.commBlockNum = cc_.commBlockNum;
        std::memset(&tiling, 0, sizeof tiling);
        std::memcpy(&tiling, &b, sizeof b);
        return 0;
    }
    uint32_t GetTiling(::Mc2CcTiling& tiling) {
        if (!ok_) return 1;
        std::memset(&tiling, 0, sizeof tiling);
        std::memcpy(&tiling, &cc_, sizeof cc_);
        return 0;
    }
    uint32_t SetOpType(uint32_t opType) {
        // The task types of Atlas A2/A3: AllReduce, AllGather, ReduceScatter, AlltoAll (AlltoAllV, BatchWrite: not simulated).
        const auto t = static_cast<HcclCMDType>(opType);
        if (t != HcclCMDType::HCCL_CMD_ALLREDUCE && t != HcclCMDType::HCCL_CMD_ALLGATHER &&
            t != HcclCMDType::HCCL_CMD_REDUCE_SCATTER && t != HcclCMDType::HCCL_CMD_ALLTOALL)
            return 1;
        cc_.opType = opType;
        return 0;
    }
    uint32_t SetGroupName(const std::string& groupName) {
        if (groupName.empty() || groupName.size() >= sizeof cc_.groupName) return 1;
        std::memset(cc_.groupName, 0, sizeof cc_.groupName);
        std::memcpy(cc_.groupName, groupName.data(), groupName.size());
        return 0;
    }
    uint32_t SetAlgConfig(const std::string& algConfig) {
        if (algConfig.size() >= sizeof cc_.algConfig) return 1;
        std::memset(cc_.algConfig, 0, sizeof cc_.algConfig);
        std::memcpy(cc_.algConfig, algConfig.data(), algConfig.size());
        return 0;
    }
    uint32_t SetReduceType(uint32_t reduceType, uint8_t dstDataType = 0, uint8_t srcDataType = 0) {
        if (reduceType > HCCL_REDUCE_RESERVED) return 1;
        cc_.reduceType = reduceType;
        cc_.dstDataType = dstDataType;
        cc_.srcDataType = srcDataType;
        return 0;
    }
    uint32_t SetStepSize(uint8_t stepSize) { cc_.stepSize = stepSize; return 0; }
    uint32_t SetSkipLocalRankCopy(uint8_t v) { if (v > 1) return 1; cc_.skipLocalRankCopy = v; return 0; }
    uint32_t SetSkipBufferWindowCopy(uint8_t v) { if (v > 2) return 1; cc_.skipBufferWindowCopy = v; return 0; }
    uint32_t SetDebugMode(uint8_t v) { cc_.debugMode = v; return 0; }
    uint32_t SetQueueNum(uint16_t num) { cc_.queueNum = num; return 0; }
    uint32_t SetCommBlockNum(uint16_t num) { cc_.commBlockNum = num; return 0; }
    uint32_t SetCommEngine(uint8_t commEngine) { cc_.commEngine = commEngine; return 0; }

private:
    opkit::sim::hccl::CcTilingBytes cc_{};
    bool ok_ = false;
};
}  // namespace AscendC

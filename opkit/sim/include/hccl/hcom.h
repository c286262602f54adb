// opkit simulator: the host-side HCCL queries an MC2 tiling makes of its communicator (CANN's hccl/hcom.h names
// and signatures): the world size and this rank of the group the OpDef names (MC2().HcclGroup). In a multi-rank
// run each rank's host steps run on that rank's thread, so they answer for that rank; a one-device run is a world
// of one. A null group or result pointer is HCCL_E_PARA, as on CANN.
#pragma once
#include <cstdint>

#include "kernel_launch.h"

#ifndef OPKIT_SIM_HCCL_RESULT_DEFINED
#define OPKIT_SIM_HCCL_RESULT_DEFINED
typedef enum {
    HCCL_SUCCESS = 0,
    HCCL_E_PARA = 1,
    HCCL_E_PTR = 2,
    HCCL_E_MEMORY = 3,
    HCCL_E_INTERNAL = 4,
    HCCL_E_NOT_SUPPORT = 5,
    HCCL_E_NOT_FOUND = 6,
    HCCL_E_UNAVAIL = 7,
    HCCL_E_SYSCALL = 8,
    HCCL_E_TIMEOUT = 9,
    HCCL_E_OPEN_FILE_FAILURE = 10,
    HCCL_E_TCP_CONNECT = 11,
    HCCL_E_ROCE_CONNECT = 12,
    HCCL_E_TCP_TRANSFER = 13,
    HCCL_E_ROCE_TRANSFER = 14,
    HCCL_E_RUNTIME = 15,
    HCCL_E_DRV = 16,
    HCCL_E_PROFILING = 17,
    HCCL_E_CCE = 18,
    HCCL_E_NETWORK = 19,
    HCCL_E_AGAIN = 20,
    HCCL_E_REMOTE = 21,
    HCCL_E_SUSPENDING = 22,
    HCCL_E_RESERVED
} HcclResult;
#endif

// The number of ranks in the group.
inline HcclResult HcomGetRankSize(const char* group, uint32_t* rankSize) {
    if (group == nullptr || rankSize == nullptr) return HCCL_E_PARA;
    *rankSize = static_cast<uint32_t>(opkit::sim::rank_dim());
    return HCCL_SUCCESS;
}

// This rank's id in the group (0 .. rank size - 1).
inline HcclResult HcomGetRankId(const char* group, uint32_t* rankId) {
    if (group == nullptr || rankId == nullptr) return HCCL_E_PARA;
    *rankId = static_cast<uint32_t>(opkit::sim::rank_id());
    return HCCL_SUCCESS;
}

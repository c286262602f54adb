// opkit simulator: repeat parameters of the binary vector instructions.
#pragma once
#include "basic_api/kernel_tensor.h"

namespace AscendC {

struct BinaryRepeatParams {
    uint32_t blockNumber = 8;  // DEFAULT_BLK_NUM: blocks per repeat (CANN's field; the simulator's repeats are 8 blocks)
    uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
    uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
    bool repeatStrideMode = false, strideSizeMode = false;
    BinaryRepeatParams() = default;
    BinaryRepeatParams(uint8_t db, uint8_t s0b, uint8_t s1b, uint8_t dr, uint8_t s0r, uint8_t s1r)
        : dstBlkStride(db), src0BlkStride(s0b), src1BlkStride(s1b), dstRepStride(dr), src0RepStride(s0r), src1RepStride(s1r) {}
};

}  // namespace AscendC

// opkit simulator: parameters of DataCopy, DataCopyPad and Copy.
#pragma once
#include "basic_api/kernel_tensor.h"

namespace AscendC {

struct DataCopyParams {
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;
    uint16_t srcStride = 0;
    uint16_t dstStride = 0;
    DataCopyParams() = default;
    DataCopyParams(uint16_t c, uint16_t l, uint16_t s, uint16_t d) : blockCount(c), blockLen(l), srcStride(s), dstStride(d) {}
};
struct DataCopyExtParams {
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
    DataCopyExtParams() = default;
    DataCopyExtParams(uint16_t c, uint32_t l, uint32_t s, uint32_t d, uint32_t r)
        : blockCount(c), blockLen(l), srcStride(s), dstStride(d), rsv(r) {}
};
template <class T>
struct DataCopyPadExtParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = T(0);
    DataCopyPadExtParams() = default;
    DataCopyPadExtParams(bool p, uint8_t l, uint8_t r, T v) : isPad(p), leftPadding(l), rightPadding(r), paddingValue(v) {}
};
struct DataCopyPadParams {
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
    DataCopyPadParams() = default;
    DataCopyPadParams(bool p, uint8_t l, uint8_t r, uint64_t v) : isPad(p), leftPadding(l), rightPadding(r), paddingValue(v) {}
};

}  // namespace AscendC

namespace AscendC {

struct CopyRepeatParams {
    uint16_t dstStride = 1, srcStride = 1;
    uint16_t dstRepeatSize = 8, srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t ds, uint16_t ss, uint16_t dr, uint16_t sr) : dstStride(ds), srcStride(ss), dstRepeatSize(dr), srcRepeatSize(sr) {}
};

}  // namespace AscendC

// opkit simulator: parameters of the cube instructions (Nd2Nz, LoadData, Mmad, InitConstValue).
#pragma once
#include "basic_api/kernel_tensor.h"

namespace AscendC {

struct Nd2NzParams {
    uint16_t ndNum = 0;
    uint16_t nValue = 0;
    uint16_t dValue = 0;
    uint16_t srcNdMatrixStride = 0;
    uint16_t srcDValue = 0;
    uint16_t dstNzC0Stride = 0;
    uint16_t dstNzNStride = 0;
    uint16_t dstNzMatrixStride = 0;
    Nd2NzParams() = default;
    Nd2NzParams(uint16_t nd, uint16_t n, uint16_t d, uint16_t srcMatStride, uint16_t srcD, uint16_t c0Stride, uint16_t nStride,
                uint16_t dstMatStride)
        : ndNum(nd), nValue(n), dValue(d), srcNdMatrixStride(srcMatStride), srcDValue(srcD), dstNzC0Stride(c0Stride),
          dstNzNStride(nStride), dstNzMatrixStride(dstMatStride) {}
};

struct LoadData2DParams;
using LoadData2dParams = LoadData2DParams;  // the legacy spelling
struct LoadData2DParams {
    uint16_t startIndex = 0;
    uint8_t repeatTimes = 0;
    uint16_t srcStride = 0;
    uint8_t sid = 0;
    uint16_t dstGap = 0;
    bool ifTranspose = false;
    uint8_t addrMode = 0;
    LoadData2DParams() = default;
    LoadData2DParams(uint16_t start, uint8_t repeat, uint16_t sStride, uint8_t sidIn, uint16_t gap, bool trans, uint8_t mode)
        : startIndex(start), repeatTimes(repeat), srcStride(sStride), sid(sidIn), dstGap(gap), ifTranspose(trans), addrMode(mode) {}
};

struct MmadParams {
    uint16_t m = 0;
    uint16_t n = 0;
    uint16_t k = 0;
    bool isBias = false;  // deprecated spelling of "accumulate onto L0C"
    int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;   // true: initial C from the BiasTable (C2)
    bool cmatrixInitVal = true;   // true: initial C is 0
    MmadParams() = default;
    MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, bool isBiasIn, int32_t fmOffsetIn, bool sparse, bool winoA, bool winoB)
        : m(mIn), n(nIn), k(kIn), isBias(isBiasIn), fmOffset(fmOffsetIn), enSsparse(sparse), enWinogradA(winoA), enWinogradB(winoB) {}
    MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, uint8_t unitFlagIn, bool cmatrixSourceIn, bool cmatrixInitValIn)
        : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn), cmatrixInitVal(cmatrixInitValIn) {}
};

}  // namespace AscendC

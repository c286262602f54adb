// opkit simulator: MrgSort source list and parameters.
#pragma once
#include "basic_api/kernel_tensor.h"

namespace AscendC {

template <class T>
struct MrgSortSrcList {
    LocalTensor<T> src1, src2, src3, src4;
    MrgSortSrcList() = default;
    MrgSortSrcList(const LocalTensor<T>& a, const LocalTensor<T>& b, const LocalTensor<T>& c, const LocalTensor<T>& d)
        : src1(a), src2(b), src3(c), src4(d) {}
};
struct MrgSort4Info {
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 15;
    uint16_t repeatTimes = 1;
    MrgSort4Info() = default;
    MrgSort4Info(const uint16_t len[4], bool susp, uint16_t vb, uint16_t rep) : ifExhaustedSuspension(susp), validBit(vb), repeatTimes(rep) {
        for (int i = 0; i < 4; ++i) elementLengths[i] = len[i];
    }
};

}  // namespace AscendC

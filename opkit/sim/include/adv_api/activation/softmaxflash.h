// opkit simulator: SoftmaxFlash (advanced API, adv_api/activation/softmaxflash.h; CANN deprecates it in
// favour of SoftmaxFlashV2). ND only.
#pragma once
#include "adv_api/activation/softmax_common.h"

namespace AscendC {

// ---- SoftmaxFlash: SoftMax, or with isUpdate the update from the previous block's max and sum ---
// isUpdate (a run-time argument here): max = max(inMax, rowmax), sum = exp(inMax - max) * inSum +
// rowsum(exp(x - max)), dst = exp(x - max) / sum, expMax = exp(inMax - max) * inSum / sum.
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
inline void opkit_softmax_flash(const opkit::sim::softmax::Io<T, T, T>& io, const SoftMaxTiling& tiling, bool isUpdate,
                                const SoftMaxShapeInfo& info, const opkit::sim::SrcLoc& loc) {
    opkit::sim::softmax::run(
        opkit::sim::softmax::flags_of<SOFTMAX_DEFAULT_CFG>(opkit::sim::softmax::Kind::Flash, isUpdate, isBasicBlock, false),
        io, tiling, info, loc);
}

template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
inline void SoftmaxFlash(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                         const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inSumTensor,
                         const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling, bool isUpdate = false,
                         const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &sumTensor; io.max = &maxTensor;
    io.exp_max = &expMaxTensor; io.in_sum = &inSumTensor; io.in_max = &inMaxTensor;
    opkit_softmax_flash<T, isReuseSource, isBasicBlock>(io, tiling, isUpdate, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
inline void SoftmaxFlash(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                         const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                         const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inSumTensor,
                         const LocalTensor<float>& inMaxTensor, const SoftMaxTiling& tiling, bool isUpdate = false,
                         const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<half, float, half> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &sumTensor; io.max = &maxTensor;
    io.exp_max = &expMaxTensor; io.in_sum = &inSumTensor; io.in_max = &inMaxTensor;
    opkit::sim::softmax::run(
        opkit::sim::softmax::flags_of<SOFTMAX_DEFAULT_CFG>(opkit::sim::softmax::Kind::Flash, isUpdate, isBasicBlock, false),
        io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
inline void SoftmaxFlash(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                         const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inSumTensor,
                         const LocalTensor<T>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                         const SoftMaxTiling& tiling, bool isUpdate = false, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                         OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &sumTensor; io.max = &maxTensor;
    io.exp_max = &expMaxTensor; io.in_sum = &inSumTensor; io.in_max = &inMaxTensor; io.tmp = &sharedTmpBuffer;
    opkit_softmax_flash<T, isReuseSource, isBasicBlock>(io, tiling, isUpdate, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
inline void SoftmaxFlash(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                         const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                         const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inSumTensor,
                         const LocalTensor<float>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                         const SoftMaxTiling& tiling, bool isUpdate = false, const SoftMaxShapeInfo& softmaxShapeInfo = {},
                         OPKIT_LOC) {
    opkit::sim::softmax::Io<half, float, half> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &sumTensor; io.max = &maxTensor;
    io.exp_max = &expMaxTensor; io.in_sum = &inSumTensor; io.in_max = &inMaxTensor; io.tmp = &sharedTmpBuffer;
    opkit::sim::softmax::run(
        opkit::sim::softmax::flags_of<SOFTMAX_DEFAULT_CFG>(opkit::sim::softmax::Kind::Flash, isUpdate, isBasicBlock, false),
        io, tiling, softmaxShapeInfo, loc);
}

}  // namespace AscendC

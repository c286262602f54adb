// opkit simulator: SoftmaxFlashV2 and its kernel-side tiling (advanced API, adv_api/activation/softmaxflashv2.h).
#pragma once
#include "adv_api/activation/softmax_common.h"

namespace AscendC {

// ---- kernel-side tiling (constexpr, as CANN's) ----------------------------------------------------
// localWorkSpaceSize counts floats here (CANN's SoftMaxFlashV2TilingFunc passes bytes / 4). A
// workspace of 0 plans the rows as one block (opkit: the scratch the API then uses is checked
// against the buffer it gets).
constexpr tiling::SoftMaxTiling SoftMaxFlashV2TilingFuncImpl(uint32_t srcM, uint32_t srcK, uint32_t dataTypeSize1,
                                                             uint32_t dataTypeSize2, uint32_t localWorkSpaceSize,
                                                             bool isUpdate = false, bool isBasicBlock = false,
                                                             bool isDataFormatNZ = false, bool isFlashOutputBrc = false) {
    (void)isUpdate;
    (void)isDataFormatNZ;
    const uint32_t s1 = dataTypeSize1 ? dataTypeSize1 : 4, s2 = dataTypeSize2 ? dataTypeSize2 : 4;
    return localWorkSpaceSize == 0
               ? opkit_softmax::Plan(srcM, srcK, opkit_softmax::kBlock / s2, srcM)
               : opkit_softmax::V2Plan(srcM, srcK, s1, s2, localWorkSpaceSize * opkit_softmax::kF32, isBasicBlock,
                                       isFlashOutputBrc);
}
constexpr tiling::SoftMaxTiling SoftMaxFlashV2TilingFunc(const SoftMaxShapeInfo& shapeInfo, const uint32_t dataTypeSize1,
                                                         const uint32_t dataTypeSize2, const uint32_t localWorkSpaceSize,
                                                         const bool isUpdate = false, const bool isBasicBlock = false,
                                                         const bool isDataFormatNZ = false, const bool isFlashOutputBrc = false) {
    return SoftMaxFlashV2TilingFuncImpl(shapeInfo.srcM, shapeInfo.srcK, dataTypeSize1, dataTypeSize2,
                                        localWorkSpaceSize / opkit_softmax::kF32, isUpdate, isBasicBlock, isDataFormatNZ,
                                        isFlashOutputBrc);
}

// ---- SoftmaxFlashV2 (FlashAttention-2's online softmax) ------------------------------------------
// isUpdate false: max = rowmax(x), dst = exp(x - max), expSum = rowsum(dst).
// isUpdate true:  max = max(inMax, rowmax(x)), dst = exp(x - max), expMax = exp(inMax - max),
//                 expSum = expMax * inExpSum + rowsum(dst).
// Per-row tensors: one 32-byte block per row, or (m, 1) under SOFTMAX_OUTPUT_WITHOUT_BRC (ND only).
// The half-source form keeps max/sum (and their inputs) in float and expMax in half.
#define OPKIT_V2_FLAGS \
    opkit::sim::softmax::flags_of<config>(opkit::sim::softmax::Kind::FlashV2, isUpdate, isBasicBlock, isDataFormatNZ)

template <class T, class U, class E>
inline void opkit_softmax_flash_v2_io(opkit::sim::softmax::Io<T, U, E>& io, const LocalTensor<T>& dst, const LocalTensor<U>& sum,
                                      const LocalTensor<U>& max, const LocalTensor<T>& src, const LocalTensor<E>& expMax,
                                      const LocalTensor<U>& inSum, const LocalTensor<U>& inMax) {
    io.dst = &dst; io.src = &src; io.sum = &sum; io.max = &max; io.exp_max = &expMax; io.in_sum = &inSum; io.in_max = &inMax;
}

template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor, const LocalTensor<T>& maxTensor,
                           const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                           const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    opkit_softmax_flash_v2_io(io, dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor);
    opkit::sim::softmax::run(OPKIT_V2_FLAGS, io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                           const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                           const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                           const LocalTensor<float>& inMaxTensor, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<half, float, half> io;
    opkit_softmax_flash_v2_io(io, dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor);
    opkit::sim::softmax::run(OPKIT_V2_FLAGS, io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor, const LocalTensor<T>& maxTensor,
                           const LocalTensor<T>& srcTensor, const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                           const LocalTensor<T>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                           const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    opkit_softmax_flash_v2_io(io, dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor);
    io.tmp = &sharedTmpBuffer;
    opkit::sim::softmax::run(OPKIT_V2_FLAGS, io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                           const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                           const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                           const LocalTensor<float>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                           const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<half, float, half> io;
    opkit_softmax_flash_v2_io(io, dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor, inMaxTensor);
    io.tmp = &sharedTmpBuffer;
    opkit::sim::softmax::run(OPKIT_V2_FLAGS, io, tiling, softmaxShapeInfo, loc);
}

// The form that also outputs the first row max (outReduceMax = rowmax(x), with isUpdate only). It
// runs only under SOFTMAX_OUTPUT_WITHOUT_BRC; in SOFTMAX_NORMAL it does nothing (documented).
template <typename T, bool isUpdate, const SoftmaxConfig& config>
inline void opkit_softmax_flash_v2_rmax(opkit::sim::softmax::Io<T, T, T>& io, const LocalTensor<T>& outReduceMax,
                                        const SoftMaxTiling& tiling, const SoftMaxShapeInfo& info, const opkit::sim::SrcLoc& loc) {
    if (config.mode != SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC) {
        opkit::sim::warn_at("SoftmaxFlashV2", loc, "the form with outReduceMax runs only with SoftmaxConfig mode "
                            "SOFTMAX_OUTPUT_WITHOUT_BRC; in SOFTMAX_NORMAL it computes and stores nothing (documented)");
        return;
    }
    io.reduce_max = &outReduceMax;
    opkit::sim::softmax::run(opkit::sim::softmax::flags_of<config>(opkit::sim::softmax::Kind::FlashV2, isUpdate, false, false),
                             io, tiling, info, loc);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& outReduceMax, const LocalTensor<T>& outExpSum,
                           const LocalTensor<T>& outMax, const LocalTensor<T>& srcTensor, const LocalTensor<T>& outExpMax,
                           const LocalTensor<T>& inExpSum, const LocalTensor<T>& inMax, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    opkit_softmax_flash_v2_io(io, dstTensor, outExpSum, outMax, srcTensor, outExpMax, inExpSum, inMax);
    opkit_softmax_flash_v2_rmax<T, isUpdate, config>(io, outReduceMax, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& outReduceMax, const LocalTensor<T>& outExpSum,
                           const LocalTensor<T>& outMax, const LocalTensor<T>& srcTensor, const LocalTensor<T>& outExpMax,
                           const LocalTensor<T>& inExpSum, const LocalTensor<T>& inMax, const LocalTensor<uint8_t>& sharedTmpBuffer,
                           const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    opkit_softmax_flash_v2_io(io, dstTensor, outExpSum, outMax, srcTensor, outExpMax, inExpSum, inMax);
    io.tmp = &sharedTmpBuffer;
    opkit_softmax_flash_v2_rmax<T, isUpdate, config>(io, outReduceMax, tiling, softmaxShapeInfo, loc);
}
#undef OPKIT_V2_FLAGS

}  // namespace AscendC

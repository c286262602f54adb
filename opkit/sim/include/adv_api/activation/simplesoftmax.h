// opkit simulator: SimpleSoftMax (advanced API, adv_api/activation/simplesoftmax.h).
#pragma once
#include "adv_api/activation/softmax_common.h"

namespace AscendC {

// ---- SimpleSoftMax: dst = exp(x - inMax) / inSum with the row max and sum given -----------------
// inSum/inMax: each row's value over one 32-byte block of their type. ND or NZ.
#define OPKIT_SIMPLE_FLAGS \
    opkit::sim::softmax::flags_of<config>(opkit::sim::softmax::Kind::Simple, false, isBasicBlock, isDataFormatNZ)

template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor, const LocalTensor<T>& inMaxTensor,
                          const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                          const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &inSumTensor; io.max = &inMaxTensor;
    opkit::sim::softmax::run(OPKIT_SIMPLE_FLAGS, io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor,
                          const LocalTensor<float>& inMaxTensor, const LocalTensor<half>& srcTensor, const SoftMaxTiling& tiling,
                          const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<half, float, half> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &inSumTensor; io.max = &inMaxTensor;
    opkit::sim::softmax::run(OPKIT_SIMPLE_FLAGS, io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& inSumTensor, const LocalTensor<T>& inMaxTensor,
                          const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<T, T, T> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &inSumTensor; io.max = &inMaxTensor; io.tmp = &sharedTmpBuffer;
    opkit::sim::softmax::run(OPKIT_SIMPLE_FLAGS, io, tiling, softmaxShapeInfo, loc);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
inline void SimpleSoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& inSumTensor,
                          const LocalTensor<float>& inMaxTensor, const LocalTensor<half>& srcTensor,
                          const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                          const SoftMaxShapeInfo& softmaxShapeInfo = {}, OPKIT_LOC) {
    opkit::sim::softmax::Io<half, float, half> io;
    io.dst = &dstTensor; io.src = &srcTensor; io.sum = &inSumTensor; io.max = &inMaxTensor; io.tmp = &sharedTmpBuffer;
    opkit::sim::softmax::run(OPKIT_SIMPLE_FLAGS, io, tiling, softmaxShapeInfo, loc);
}
#undef OPKIT_SIMPLE_FLAGS

}  // namespace AscendC

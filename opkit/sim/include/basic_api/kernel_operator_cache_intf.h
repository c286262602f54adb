// opkit simulator: data-cache maintenance (no-ops on the CPU: GM is coherent host memory).
#pragma once
#include "basic_api/kernel_tensor.h"

namespace AscendC {

enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
template <class T, CacheLine cl = CacheLine::SINGLE_CACHE_LINE, DcciDst d = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}

}  // namespace AscendC

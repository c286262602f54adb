// opkit simulator (host side): ops-base's shape helpers (op_common/op_host/util/shape_util.h,
// also util/shape_util.h), namespace Ops::Base. An unknown rank is the one-dimension shape [-2],
// an unknown dimension is -1.
#pragma once
#include <cstddef>
#include <cstdint>

#include "exe_graph/runtime/shape.h"
#include "op_common/log/log.h"
#include "op_common/op_host/util/opbase_export.h"

namespace Ops {
namespace Base {

// axis in [-dimNum, dimNum - 1]; for a scalar (dimNum 0) only axis 0.
template <typename T1, typename T2>
bool CheckAxisBounds(const T1 dimNum, const T2 axis) {
    const int64_t n = static_cast<int64_t>(dimNum);
    const int64_t a = static_cast<int64_t>(axis);
    if (n == 0) return a == 0;
    return a >= -n && a < n;
}

inline void SetUnknownRank(gert::Shape& shape) {
    shape.SetDimNum(0);
    shape.AppendDim(-2);
}

inline bool IsUnknownRank(const gert::Shape& shape) { return shape.GetDimNum() == 1 && shape.GetDim(0) == -2; }

// rank dimensions of -1; a negative rank logs an error and leaves the shape as it is.
inline void SetUnknownShape(int64_t rank, gert::Shape& shape) {
    OP_CHECK_IF(rank < 0, OP_LOGE("SetUnknownShape", "the rank value is invalid, return unsuccessful"), return);
    shape.SetDimNum(static_cast<size_t>(rank));
    for (size_t i = 0; i < static_cast<size_t>(rank); ++i) shape.SetDim(i, -1);
}

inline bool IsUnknownShape(const gert::Shape& shape) {
    for (size_t i = 0; i < shape.GetDimNum(); ++i)
        if (shape.GetDim(i) == -1) return true;
    return false;
}

}  // namespace Base
}  // namespace Ops

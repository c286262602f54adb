// opkit simulator (host side): ops-base's broadcast InferShape helpers
// (op_common/op_host/infershape_broadcast_util.h, also infershape_broadcast_util.h), namespace
// Ops::Base. Shapes broadcast as NumPy's do, right-aligned: equal dimensions stay, a 1 takes the
// other's size, an unknown dimension (-1) takes the known one; an unknown rank ([-2]) makes the
// result [-2]. Shapes that do not broadcast log an error and give false / ge::GRAPH_FAILED.
#pragma once
#include <cstddef>
#include <vector>

#include "exe_graph/runtime/infer_shape_context.h"
#include "op_common/log/log.h"
#include "op_common/op_host/util/shape_util.h"

namespace Ops {
namespace Base {
namespace opkit_detail {
inline bool BroadcastDim(int64_t& into, int64_t d) {
    if (into == d || d == 1) return true;
    if (into == 1 || into == -1) {
        into = d;
        return true;
    }
    if (d == -1) return true;
    OP_LOGE("BroadcastDim", "%ld and %ld cannot broadcast!", static_cast<long>(into), static_cast<long>(d));
    return false;
}

// Broadcasts `shape` into `out` in place.
inline bool BroadcastInto(const gert::Shape& shape, gert::Shape& out) {
    if (IsUnknownRank(shape) || IsUnknownRank(out)) {
        SetUnknownRank(out);
        return true;
    }
    const size_t n = shape.GetDimNum(), m = out.GetDimNum(), rank = n > m ? n : m;
    gert::Shape result;
    result.SetDimNum(rank);
    for (size_t i = 0; i < rank; ++i) {  // i counts from the right
        const bool in_out = i < m, in_shape = i < n;
        int64_t d = in_out ? out.GetDim(m - 1 - i) : shape.GetDim(n - 1 - i);
        if (in_out && in_shape && !BroadcastDim(d, shape.GetDim(n - 1 - i))) return false;
        result.SetDim(rank - 1 - i, d);
    }
    out = result;
    return true;
}
}  // namespace opkit_detail

inline bool BroadcastShape(const gert::Shape* in1Shape, const gert::Shape* in2Shape, gert::Shape* outShape) {
    *outShape = *in1Shape;
    OP_CHECK_IF(!opkit_detail::BroadcastInto(*in2Shape, *outShape),
                OP_LOGE("BroadcastShape", "shape %s and %s cannot broadcast!", ToString(*in2Shape).c_str(),
                        ToString(*in1Shape).c_str()),
                return false);
    return true;
}

inline bool BroadcastShape(const std::vector<const gert::Shape*>& inShapes, gert::Shape* outShape) {
    OP_CHECK_IF(inShapes.empty(), OP_LOGE("BroadcastShape", "inShapes is empty!"), return false);
    *outShape = *inShapes[0];
    for (size_t i = 1; i < inShapes.size(); ++i)
        OP_CHECK_IF(!opkit_detail::BroadcastInto(*inShapes[i], *outShape),
                    OP_LOGE("BroadcastShape", "input shapes %s cannot broadcast!", ToString(inShapes).c_str()),
                    return false);
    return true;
}

// Output 0 = the broadcast of inputs 0 and 1.
inline ge::graphStatus InferShape4Broadcast(gert::InferShapeContext* context) {
    const gert::Shape* a = context->GetInputShape(0);
    OP_CHECK_NULL_WITH_CONTEXT(context, a);
    const gert::Shape* b = context->GetInputShape(1);
    OP_CHECK_NULL_WITH_CONTEXT(context, b);
    gert::Shape* out = context->GetOutputShape(0);
    OP_CHECK_NULL_WITH_CONTEXT(context, out);
    OP_CHECK_IF(!BroadcastShape(a, b, out),
                OP_LOGE(context->GetNodeName(), "InferShape4Broadcast shape %s and %s cannot broadcast!",
                        ToString(*b).c_str(), ToString(*a).c_str()),
                return ge::GRAPH_FAILED);
    return ge::GRAPH_SUCCESS;
}

// Output 0 = the broadcast of the first inputNum inputs.
inline ge::graphStatus InferShape4Broadcast(gert::InferShapeContext* context, size_t inputNum) {
    if (inputNum == 0) {
        OP_LOGE(context, "InferShape4Broadcast input num:%zu is invalid!", inputNum);
        return ge::GRAPH_FAILED;
    }
    std::vector<const gert::Shape*> shapes(inputNum);
    for (size_t i = 0; i < inputNum; ++i) {
        shapes[i] = context->GetInputShape(i);
        OP_CHECK_NULL_WITH_CONTEXT(context, shapes[i]);
    }
    gert::Shape* out = context->GetOutputShape(0);
    OP_CHECK_NULL_WITH_CONTEXT(context, out);
    OP_CHECK_IF(!BroadcastShape(shapes, out), OP_LOGE(context, "BroadcastShape failed!"), return ge::GRAPH_FAILED);
    return ge::GRAPH_SUCCESS;
}

}  // namespace Base
}  // namespace Ops

// FlashAttentionScore: output shapes and dtypes.
//
// softmax_max / softmax_sum: [B, N1, S1, 8] fp32 (TND: [T1, N1, 8]); softmax_out: the placeholder
// [0, 0, 0, 0]; attention_out: the query's shape with D replaced by value's D2 (BSH/SBH: H = N1 * D2).
#include <cstdio>

#include "log/log.h"
#include "register/op_def_registry.h"
#include "flash_attention_score_shapes.h"

namespace ge {
ge::graphStatus InferShapeFlashAttentionScore(gert::InferShapeContext* context)
{
    const gert::Shape* q = context->GetInputShape(fas_host::QUERY);
    const gert::Shape* k = context->GetInputShape(fas_host::KEY);
    const gert::Shape* v = context->GetInputShape(fas_host::VALUE);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (q == nullptr || k == nullptr || v == nullptr || attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const int64_t* headNum = attrs->GetAttrPointer<int64_t>(fas_host::HEAD_NUM);
    const char* layout = attrs->GetAttrPointer<char>(fas_host::INPUT_LAYOUT);
    const fas_host::Dims d = fas_host::ReadDims(layout, headNum ? *headNum : 0, *q, *k, *v);
    if (!d.error.empty()) {
        OP_LOGE(context->GetNodeName(), "FlashAttentionScore InferShape error: %s", d.error.c_str());
        return ge::GRAPH_FAILED;
    }
    for (size_t out = 0; out < 2; ++out) {  // softmax_max, softmax_sum
        gert::Shape* s = context->GetOutputShape(out);
        if (s == nullptr) {
            return ge::GRAPH_FAILED;
        }
        if (d.layout == "TND") {
            s->SetDimNum(3);
            s->SetDim(0, d.S1);
            s->SetDim(1, d.N1);
            s->SetDim(2, 8);
        } else {
            s->SetDimNum(4);
            s->SetDim(0, d.B);
            s->SetDim(1, d.N1);
            s->SetDim(2, d.S1);
            s->SetDim(3, 8);
        }
    }
    gert::Shape* softmaxOut = context->GetOutputShape(2);
    gert::Shape* attn = context->GetOutputShape(3);
    if (softmaxOut == nullptr || attn == nullptr) {
        return ge::GRAPH_FAILED;
    }
    softmaxOut->SetDimNum(4);
    for (size_t i = 0; i < 4; ++i) {
        softmaxOut->SetDim(i, 0);
    }
    *attn = *q;
    const size_t last = q->GetDimNum() - 1;
    attn->SetDim(last, (d.layout == "BSH" || d.layout == "SBH") ? d.N1 * d.D2 : d.D2);
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataTypeFlashAttentionScore(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, ge::DT_FLOAT);
    context->SetOutputDataType(1, ge::DT_FLOAT);
    context->SetOutputDataType(2, context->GetInputDataType(0));
    context->SetOutputDataType(3, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge

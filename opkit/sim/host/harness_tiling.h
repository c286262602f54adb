// opkit simulator harness: the op's host functions in CANN's order: InferShape (the output shapes and sizes),
// InferDataType (checked against the request), TilingParse with a fresh compile-info object, and the tiling
// with its results checked (block dim, tiling-data size) and kept for the launch and the result.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness_platform.h"
#include "register/op_impl_registry.h"
#include "register/tilingdata_base.h"

namespace opkit {
namespace host {

// The output shapes InferShape gives (each checked against a shape the request gives), or the request's.
inline std::vector<gert::Shape> InferredShapes(const Request& r, IrContext& ir) {
    const ImplEntry& im = *r.op->impl;
    const std::string& op_type = r.op_type;
    std::vector<gert::Shape> out_shapes(r.out_inst.size());
    if (im.infer_shape.fn == nullptr) {
        for (size_t i = 0; i < r.out_inst.size(); ++i) {
            Tensor& t = *r.out_inst[i];
            if (!t.bytes)
                fail("registration", "%s registers no InferShape (OpDef SetInferShape or IMPL_OP(...).InferShape) and the "
                     "request gives no shape for output '%s'", op_type.c_str(), t.name.c_str());
            out_shapes[i] = t.shape.GetStorageShape();
        }
        return out_shapes;
    }
    gert::InferShapeContext ctx(&ir.node);
    for (size_t i = 0; i < ir.in_shapes.size(); ++i) {
        ctx.in_shapes_.push_back(&ir.in_shapes[i].GetStorageShape());
        ctx.in_tensors_.push_back(ir.gtensors[i].get());
    }
    for (auto& s : out_shapes) ctx.out_shapes_.push_back(&s);
    const uint32_t rc = im.infer_shape.fn(&ctx);
    auto fn = [&] { return NameOf(reinterpret_cast<const void*>(im.infer_shape.fn), "InferShape of " + op_type); };
    if (rc != ge::GRAPH_SUCCESS)
        fail(fn().c_str(), "InferShape of %s returned %u (ge::GRAPH_FAILED is %u)", op_type.c_str(), rc, ge::GRAPH_FAILED);
    for (size_t i = 0; i < r.out_inst.size(); ++i) {
        Tensor& t = *r.out_inst[i];
        if (t.bytes && t.shape.GetStorageShape() != out_shapes[i])
            fail(fn().c_str(), "output '%s': InferShape gives %s, the request says %s", t.name.c_str(),
                 ShapeStr(out_shapes[i]).c_str(), ShapeStr(t.shape.GetStorageShape()).c_str());
        if (out_shapes[i].GetShapeSize() < 0)
            fail(fn().c_str(), "output '%s': InferShape left an unknown dimension: %s", t.name.c_str(),
                 ShapeStr(out_shapes[i]).c_str());
    }
    return out_shapes;
}

// InferShape, then every output's shape and byte size (a reference-form output is its input's tensor, shape included).
inline void InferShapes(Request* r, IrContext& ir) {
    const ImplEntry& im = *r->op->impl;
    std::vector<gert::Shape> out_shapes = InferredShapes(*r, ir);
    for (size_t i = 0; i < r->out_inst.size(); ++i) {
        Tensor& t = *r->out_inst[i];
        if (t.ref < 0) continue;
        const gert::Shape& in_shape = r->pin[static_cast<size_t>(t.ref)].tensors[0].shape.GetStorageShape();
        if (im.infer_shape.fn != nullptr && out_shapes[i].GetDimNum() != 0 && out_shapes[i] != in_shape)
            fail(NameOf(reinterpret_cast<const void*>(im.infer_shape.fn), "InferShape of " + r->op_type).c_str(),
                 "output '%s' is input '%s' (GE's reference form), of shape %s, but InferShape gives %s", t.name.c_str(),
                 t.name.c_str(), ShapeStr(in_shape).c_str(), ShapeStr(out_shapes[i]).c_str());
        out_shapes[i] = in_shape;
    }
    for (size_t i = 0; i < r->out_inst.size(); ++i) {
        Tensor& t = *r->out_inst[i];
        t.shape.MutableOriginShape() = out_shapes[i];
        t.shape.MutableStorageShape() = out_shapes[i];
        t.bytes = Bytes(out_shapes[i], t.dt, "output '" + t.name + "'");
    }
}

// InferDataType (or InferOutDataTypeSameWithFirstInput): its dtypes must be the request's.
inline void InferDataTypes(const Request& r, IrContext& ir) {
    const ImplEntry& im = *r.op->impl;
    if (im.infer_dtype.fn != nullptr) {
        gert::InferDataTypeContext ctx(&ir.node);
        ctx.out_dtypes_.assign(r.out_inst.size(), ge::DT_UNDEFINED);
        const uint32_t rc = im.infer_dtype.fn(&ctx);
        const std::string fn = NameOf(reinterpret_cast<const void*>(im.infer_dtype.fn), "InferDataType of " + r.op_type);
        if (rc != ge::GRAPH_SUCCESS) fail(fn.c_str(), "InferDataType of %s returned %u", r.op_type.c_str(), rc);
        for (size_t i = 0; i < r.out_inst.size(); ++i)
            if (ctx.out_dtypes_[i] != r.out_inst[i]->dt)
                fail(fn.c_str(), "output '%s': InferDataType gives %s, the request says %s", r.out_inst[i]->name.c_str(),
                     DtypeName(ctx.out_dtypes_[i]).c_str(), DtypeName(r.out_inst[i]->dt).c_str());
    } else if (im.dtype_same_as_first_input && !r.pin.empty() && r.pin[0].present) {
        for (size_t i = 0; i < r.pout.size(); ++i)
            if (r.pout[i].dt != r.pin[0].dt)
                fail("InferOutDataTypeSameWithFirstInput", "output '%s' is %s, the first input %s", r.pout[i].name.c_str(),
                     DtypeName(r.pout[i].dt).c_str(), DtypeName(r.pin[0].dt).c_str());
    }
}

// What the tiling decided, and the objects its context points at.
struct Tiling {
    std::unique_ptr<void, void (*)(void*)> compile_info{nullptr, [](void*) {}};
    std::unique_ptr<gert::TilingData> data;
    std::vector<gert::StorageShape> out_storage;
    std::unique_ptr<gert::TilingContext> ctx;
    uint64_t ws_bytes = 0;  // the sum of the GetWorkspaceSizes entries
};

// A fresh compile-info object (TilingParse<T> registered), filled by TilingParse if the op has one.
inline void ParseCompileInfo(const Request& r, Platform& pl, IrContext& ir, Tiling* t) {
    const ImplEntry& im = *r.op->impl;
    if (!im.create_compile_info) return;
    t->compile_info = std::unique_ptr<void, void (*)(void*)>(im.create_compile_info(), im.delete_compile_info);
    if (!im.tiling_parse.fn) return;
    gert::TilingParseContext pctx(&ir.node);
    pctx.compile_info_ = t->compile_info.get();
    pctx.platform_ = &pl.infos;
    const uint32_t rc = im.tiling_parse.fn(&pctx);
    if (rc != ge::GRAPH_SUCCESS)
        fail(NameOf(reinterpret_cast<const void*>(im.tiling_parse.fn), "TilingParse of " + r.op_type).c_str(),
             "TilingParse of %s returned %u", r.op_type.c_str(), rc);
}

// The tiling's results a launch needs: success, a block dim in 1..65535, tiling data within the buffer.
inline void CheckTiling(const Request& r, const Platform& pl, uint32_t rc, size_t capacity, const Tiling& t) {
    const ImplEntry& im = *r.op->impl;
    const gert::TilingContext& tctx = *t.ctx;
    const std::string tfn = NameOf(reinterpret_cast<const void*>(im.tiling.fn), "tiling function of " + r.op_type);
    if (rc != ge::GRAPH_SUCCESS)
        fail(tfn.c_str(), "tiling of %s on %s returned %s%s%s", r.op_type.c_str(), pl.chip_name.c_str(),
             rc == ge::GRAPH_FAILED ? "ge::GRAPH_FAILED" : std::to_string(rc).c_str(),
             tctx.opkit_note_.empty() ? "" : "; ", tctx.opkit_note_.c_str());
    if (!tctx.block_dim_set_) fail(tfn.c_str(), "tiling of %s succeeded without calling SetBlockDim", r.op_type.c_str());
    if (tctx.block_dim_ == 0) fail(tfn.c_str(), "tiling of %s set a block dim of 0", r.op_type.c_str());
    if (tctx.block_dim_ > 65535)
        fail(tfn.c_str(), "tiling of %s set a block dim of %u; a launch takes at most 65535 blocks", r.op_type.c_str(),
             tctx.block_dim_);
    if (t.data->GetDataSize() > capacity)
        fail(tfn.c_str(), "tiling data size %zu exceeds the buffer capacity %zu", t.data->GetDataSize(), capacity);
}

// TilingParse, then the tiling function with a TilingContext of the request (a buffer of the registered capacity,
// filled with 0xCD by gert::TilingData as on the NPU).
inline void RunTiling(const Request& r, Platform& pl, IrContext& ir, Tiling* t) {
    const ImplEntry& im = *r.op->impl;
    if (im.tiling.fn == nullptr)
        fail("registration", "%s registers no tiling function (OpDef AICore().SetTiling or IMPL_OP_OPTILING(...).Tiling)",
             r.op_type.c_str());
    ParseCompileInfo(r, pl, ir, t);
    const size_t capacity = im.max_tiling_data_size ? im.max_tiling_data_size : 2048;
    t->data.reset(new gert::TilingData(capacity));
    t->out_storage.resize(r.out_inst.size());
    t->ctx.reset(new gert::TilingContext(&ir.node));
    gert::TilingContext& tctx = *t->ctx;
    for (size_t i = 0; i < ir.in_shapes.size(); ++i) {
        tctx.in_shapes_.push_back(&ir.in_shapes[i]);
        tctx.in_tensors_.push_back(ir.gtensors[i].get());
    }
    for (size_t i = 0; i < r.out_inst.size(); ++i) {
        t->out_storage[i] = r.out_inst[i]->shape;
        tctx.out_shapes_.push_back(&t->out_storage[i]);
    }
    tctx.platform_ = &pl.infos;
    tctx.tiling_data_ = t->data.get();
    tctx.compile_info_ = t->compile_info.get();
    const uint32_t rc = im.tiling.fn(&tctx);
    CheckTiling(r, pl, rc, capacity, *t);
    for (size_t i = 0; i < tctx.workspace_.GetSize(); ++i) t->ws_bytes += tctx.workspace_.GetData()[i];
}

}  // namespace host
}  // namespace opkit

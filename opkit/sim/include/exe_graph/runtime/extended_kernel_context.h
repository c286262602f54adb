// opkit simulator (host side): gert::ExtendedKernelContext, the part shared by the tiling,
// InferShape and InferDataType contexts (node info, tensor descriptions, attributes).
#pragma once
#include "exe_graph/runtime/compute_node_info.h"

namespace gert {
class ExtendedKernelContext {
public:
    const CompileTimeTensorDesc* GetInputDesc(size_t index) const { return node_->GetInputTdInfo(index); }
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t ir) const { return GetDynamicInputDesc(ir, 0); }
    const CompileTimeTensorDesc* GetRequiredInputDesc(size_t ir) const { return GetDynamicInputDesc(ir, 0); }
    const CompileTimeTensorDesc* GetDynamicInputDesc(size_t ir, size_t k) const {
        long i = InputInstance(ir, k);
        return i < 0 ? nullptr : node_->GetInputTdInfo(static_cast<size_t>(i));
    }
    const CompileTimeTensorDesc* GetOutputDesc(size_t index) const { return node_->GetOutputTdInfo(index); }
    const CompileTimeTensorDesc* GetDynamicOutputDesc(size_t ir, size_t k) const {
        long i = OutputInstance(ir, k);
        return i < 0 ? nullptr : node_->GetOutputTdInfo(static_cast<size_t>(i));
    }
    const AnchorInstanceInfo* GetIrInputInstanceInfo(size_t ir) const { return node_->GetInputInstanceInfo(ir); }
    const AnchorInstanceInfo* GetIrOutputInstanceInfo(size_t ir) const { return node_->GetOutputInstanceInfo(ir); }
    size_t GetComputeNodeInputNum() const { return node_->GetInputsNum(); }
    size_t GetComputeNodeOutputNum() const { return node_->GetOutputsNum(); }
    const RuntimeAttrs* GetAttrs() const { return node_->GetAttrs(); }
    const ge::char_t* GetNodeType() const { return node_->GetNodeType(); }
    const ge::char_t* GetNodeName() const { return node_->GetNodeName(); }
    const ge::char_t* GetOpType() const { return node_->GetNodeType(); }
    const ComputeNodeInfo* GetComputeNodeInfo() const { return node_; }
    const ge::char_t* GetKernelName() const { return node_->GetNodeName(); }
    const ge::char_t* GetKernelType() const { return node_->GetNodeType(); }

    // opkit
    explicit ExtendedKernelContext(const ComputeNodeInfo* node) : node_(node) {}

protected:
    long InputInstance(size_t ir, size_t k) const {
        const AnchorInstanceInfo* a = node_->GetInputInstanceInfo(ir);
        if (a == nullptr || k >= a->GetInstanceNum()) return -1;
        return static_cast<long>(a->GetInstanceStart() + k);
    }
    long OutputInstance(size_t ir, size_t k) const {
        const AnchorInstanceInfo* a = node_->GetOutputInstanceInfo(ir);
        if (a == nullptr || k >= a->GetInstanceNum()) return -1;
        return static_cast<long>(a->GetInstanceStart() + k);
    }
    const ComputeNodeInfo* node_;
};
}  // namespace gert

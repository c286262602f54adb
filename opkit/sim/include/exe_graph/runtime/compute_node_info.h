// opkit simulator (host side): gert::ComputeNodeInfo, what a context knows about the node: op type
// and name, per IR input/output the range of its instances, per instance the compile-time tensor
// description (dtype, formats), and the attributes.
//
// IR index vs instance index: an absent optional input has no instance and a dynamic (list)
// input has one instance per tensor, so after such an input the two numberings differ.
// GetInputShape(i)/GetInputDesc(i) take an instance index; GetOptionalInput*/GetDynamicInput*
// take an IR index, as in CANN.
#pragma once
#include <string>
#include <vector>

#include "exe_graph/runtime/runtime_attrs.h"
#include "exe_graph/runtime/storage_format.h"
#include "graph/types.h"

namespace gert {
class AnchorInstanceInfo {
public:
    AnchorInstanceInfo() = default;
    AnchorInstanceInfo(uint32_t start, uint32_t num) : start_(start), num_(num) {}
    size_t GetInstanceNum() const { return num_; }
    size_t GetInstanceStart() const { return start_; }
    void SetInstanceStart(uint32_t s) { start_ = s; }
    void SetInstantiationNum(uint32_t n) { num_ = n; }

private:
    uint32_t start_ = 0;
    uint32_t num_ = 0;
};

class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    const StorageFormat& GetFormat() const { return format_; }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    ExpandDimsType GetExpandDimsType() const { return format_.GetExpandDimsType(); }
    void SetDataType(ge::DataType t) { dtype_ = t; }
    void SetStorageFormat(ge::Format f) { format_.SetStorageFormat(f); }
    void SetOriginFormat(ge::Format f) { format_.SetOriginFormat(f); }
    void SetExpandDimsType(const ExpandDimsType& e) { format_.SetExpandDimsType(e); }
    void SetExist(bool e) { exist_ = e; }
    bool IsExist() const { return exist_; }

private:
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    StorageFormat format_;
    bool exist_ = true;
};

class ComputeNodeInfo {
public:
    const ge::char_t* GetNodeType() const { return type_.c_str(); }
    const ge::char_t* GetNodeName() const { return name_.c_str(); }
    size_t GetIrInputsNum() const { return ir_inputs_.size(); }
    size_t GetIrOutputsNum() const { return ir_outputs_.size(); }
    size_t GetInputsNum() const { return inputs_.size(); }
    size_t GetOutputsNum() const { return outputs_.size(); }
    const AnchorInstanceInfo* GetInputInstanceInfo(size_t ir) const { return ir < ir_inputs_.size() ? &ir_inputs_[ir] : nullptr; }
    const AnchorInstanceInfo* GetOutputInstanceInfo(size_t ir) const { return ir < ir_outputs_.size() ? &ir_outputs_[ir] : nullptr; }
    const CompileTimeTensorDesc* GetInputTdInfo(size_t i) const { return i < inputs_.size() ? &inputs_[i] : nullptr; }
    const CompileTimeTensorDesc* GetOutputTdInfo(size_t i) const { return i < outputs_.size() ? &outputs_[i] : nullptr; }
    const RuntimeAttrs* GetAttrs() const { return &attrs_; }
    void SetNodeType(const ge::char_t* t) { type_ = t ? t : ""; }
    void SetNodeName(const ge::char_t* n) { name_ = n ? n : ""; }

    // opkit: filled by the harness.
    std::string type_, name_;
    std::vector<AnchorInstanceInfo> ir_inputs_, ir_outputs_;
    std::vector<std::string> ir_input_names_, ir_output_names_;
    std::vector<CompileTimeTensorDesc> inputs_, outputs_;
    RuntimeAttrs attrs_;
};
}  // namespace gert

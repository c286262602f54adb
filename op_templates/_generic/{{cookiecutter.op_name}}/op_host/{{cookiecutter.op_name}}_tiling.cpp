{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
// {{ T }}: the tiling function, run on the host before every launch of the kernel.
//
// Tiling decides how the work is cut: how many AI cores (blocks) run the kernel, which slice of
// the tensors each core owns, and how many elements go through the core's Unified Buffer (UB) at
// a time. It reads the shapes, dtypes and attrs of this very call and the capacities of the chip it
// runs on (PlatformAscendC), and passes its decisions to the kernel in {{ T }}TilingData.
#include "register/op_def_registry.h"
#include <algorithm>
#include <cstdint>

#include "tiling/platform/platform_ascendc.h"
#include "../op_kernel/{{ cookiecutter.op_name }}_tiling_data.h"

namespace optiling {
namespace {
constexpr uint64_t MIN_ELEMS_PER_CORE = 4096;  // below this, starting a core costs more than its work

uint64_t CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}
}  // namespace

ge::graphStatus Tiling{{ T }}(gert::TilingContext* context)
{
    // 1. The chip: how many vector cores (AIV) it has and how many bytes of UB each one has.
    //    On 910B, GetCoreMemSize reports the UB minus the 256 bytes the runtime keeps for itself.
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint64_t coreNum = platform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    if (coreNum == 0 || ubSize == 0) {
        return ge::GRAPH_FAILED;
    }

    {{ T }}TilingData* tiling = context->GetTilingData<{{ T }}TilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *tiling = {{ T }}TilingData{};  // the tiling buffer is not zeroed for us

    // 2. This call: the output sizes (InferShape has run) and the attrs. Input shapes and dtypes
    //    come the same way: context->GetInputShape(i)->GetStorageShape(), context->GetInputDesc(i).
    uint64_t maxLength = 0;
{% for o in s.outputs %}
{% if o.param == "DYNAMIC" %}
    // "{{ o.name }}" is a dynamic list of tensors: size them here if the kernel needs it.
{% else %}
    const gert::StorageShape* {{ o.name }}Shape = context->GetOutputShape({{ o.index }});
    if ({{ o.name }}Shape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    tiling->{{ o.name }}Length = static_cast<uint64_t>({{ o.name }}Shape->GetStorageShape().GetShapeSize());
    maxLength = std::max(maxLength, tiling->{{ o.name }}Length);
{% endif %}
{% endfor %}
{% if s.attrs %}

    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    if (attrs == nullptr) {
        return ge::GRAPH_FAILED;
    }
{% for a in s.attrs %}
{% if a.tiling_type %}
    const {{ a.getter_type }}* {{ a.name }}Attr = attrs->GetAttrPointer<{{ a.getter_type }}>({{ a.index }});
{% if a.required %}
    if ({{ a.name }}Attr == nullptr) {
        return ge::GRAPH_FAILED;  // a required attr
    }
{% if a.type == "bool" %}
    tiling->{{ a.name }} = *{{ a.name }}Attr ? 1U : 0U;
{% else %}
    tiling->{{ a.name }} = *{{ a.name }}Attr;
{% endif %}
{% elif a.type == "bool" %}
    tiling->{{ a.name }} = ({{ a.name }}Attr != nullptr ? *{{ a.name }}Attr : {{ a.default_cpp }}) ? 1U : 0U;
{% else %}
    tiling->{{ a.name }} = ({{ a.name }}Attr != nullptr) ? *{{ a.name }}Attr : {{ a.default_cpp }};
{% endif %}
{% else %}
    // attr "{{ a.name }}" ({{ a.type }}) is not in the tiling data: read it with
{% if a.type == "string" %}
    // attrs->GetAttrPointer<char>({{ a.index }}) and pass the kernel what it needs.
{% else %}
    // attrs->GetAttrPointer<gert::ContinuousVector>({{ a.index }}) and pass the kernel what it needs.
{% endif %}
{% endif %}
{% endfor %}
{% endif %}

    // 3. Launch: one core per MIN_ELEMS_PER_CORE elements of the largest output, at most every
    //    vector core, at least one. Replace this with the split your computation needs.
    const uint64_t usedCores = std::max<uint64_t>(1, std::min(coreNum, CeilDiv(maxLength, MIN_ELEMS_PER_CORE)));
    context->SetBlockDim(static_cast<uint32_t>(usedCores));

    // 4. No workspace of our own: only the system workspace Ascend C's library functions expect.
    size_t* workspaces = context->GetWorkspaceSizes(1);
    if (workspaces == nullptr) {
        return ge::GRAPH_FAILED;
    }
    workspaces[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
{% set used = [] %}
{% for o in s.outputs if o.param != "DYNAMIC" %}
{% if o.infer.same_as is not none %}
{% if o.infer.same_as not in used %}{% set _ = used.append(o.infer.same_as) %}{% endif %}
{% else %}
{% for d in o.infer.dims if d.input is defined and d.input not in used %}{% set _ = used.append(d.input) %}{% endfor %}
{% endif %}
{% endfor %}
// {{ T }}: output shape and dtype inference.
//
// Graph compilation and the aclnn API call these before any kernel runs, to size the outputs.
// Indices are positions in the OpDef: inputs and outputs are counted separately, from 0.
#include "register/op_def_registry.h"

namespace ge {
ge::graphStatus InferShape{{ T }}(gert::InferShapeContext* context)
{
{% for i in used | sort %}
{% set src = s.inputs[i] %}
{% if src.param != "OPTIONAL" and s.inputs[:i] | rejectattr("param", "equalto", "REQUIRED") | list %}
    // Input getters count the tensors actually passed, and an optional or dynamic input comes
    // before "{{ s.inputs[i].name }}": check index {{ i }} (or use the IR-index getters of your CANN).
{% endif %}
{% if src.param == "OPTIONAL" %}
    const gert::Shape* {{ src.name }}Shape = context->GetOptionalInputShape({{ src.index }});
{% else %}
    const gert::Shape* {{ src.name }}Shape = context->GetInputShape({{ src.index }});
{% endif %}
    if ({{ src.name }}Shape == nullptr) {
        return ge::GRAPH_FAILED;
    }
{% endfor %}
{% for o in s.outputs %}
{% set inf = o.infer %}
{% if used or not loop.first %}

{% endif %}
{% if o.param == "DYNAMIC" %}
    // Output "{{ o.name }}" is a dynamic list: set the shape of each of its tensors here.
{% else %}
    gert::Shape* {{ o.name }}Shape = context->GetOutputShape({{ o.index }});
    if ({{ o.name }}Shape == nullptr) {
        return ge::GRAPH_FAILED;
    }
{% if inf.same_as is not none %}
    *{{ o.name }}Shape = *{{ s.inputs[inf.same_as].name }}Shape;  // "{{ o.name }}" has the shape of "{{ s.inputs[inf.same_as].name }}"
{% else %}
    // "{{ o.name }}" has shape [{{ o.shape | join(', ') }}], built dim by dim.
    {{ o.name }}Shape->SetDimNum({{ inf.dims | length }});
{% for d in inf.dims %}
{% if d.input is defined %}
    {{ o.name }}Shape->SetDim({{ loop.index0 }}, {{ s.inputs[d.input].name }}Shape->GetDim({{ d.dim }}));
{% else %}
    {{ o.name }}Shape->SetDim({{ loop.index0 }}, {{ d.value }});
{% endif %}
{% endfor %}
{% endif %}
{% endif %}
{% endfor %}
    return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferDataType{{ T }}(gert::InferDataTypeContext* context)
{
{% for o in s.outputs %}
{% set r = o.dtype_rule %}
{% if r.kind in ("input", "map") %}
{% if s.inputs[:r.input] | rejectattr("param", "equalto", "REQUIRED") | list %}
    // Input getters count the tensors actually passed, and an optional or dynamic input comes
    // before "{{ s.inputs[r.input].name }}": check index {{ r.input }} (or use the IR-index getters of your CANN).
{% endif %}
{% endif %}
{% if r.kind == "input" %}
    // "{{ o.name }}" has the dtype of input "{{ s.inputs[r.input].name }}" in every column.
    context->SetOutputDataType({{ o.index }}, context->GetInputDataType({{ r.input }}));
{% elif r.kind == "const" %}
    context->SetOutputDataType({{ o.index }}, {{ r.ge }});
{% elif r.kind == "map" %}
    // "{{ o.name }}" follows the dtype of input "{{ s.inputs[r.input].name }}", column by column.
    const ge::DataType {{ o.name }}InputDtype = context->GetInputDataType({{ r.input }});
{% for pair in r.pairs %}
    {{ 'if' if loop.first else '} else if' }} ({{ o.name }}InputDtype == {{ pair[0] }}) {
        context->SetOutputDataType({{ o.index }}, {{ pair[1] }});
{% endfor %}
    } else {
        return ge::GRAPH_FAILED;
    }
{% else %}
    // No single input determines the dtype of "{{ o.name }}": decide it here (column 0 shown).
    context->SetOutputDataType({{ o.index }}, {{ r.ge }});
{% endif %}
{% endfor %}
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge

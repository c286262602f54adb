{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
// {{ T }}: operator registration (the OpDef prototype).
//
// The OpDef says what the operator accepts: its inputs and outputs in kernel-parameter order,
// the dtypes and formats of each, its attributes, the functions that infer output shapes and
// dtypes, the tiling function, and the SoCs it is built for. CANN compiles this file into the
// operator's prototype library and generates the aclnn API (aclnn{{ T }}) from it.
// op.yaml is the source of truth: `opkit spec check` compares this registration with it.
#include "register/op_def_registry.h"

namespace ge {
// Defined in {{ cookiecutter.op_name }}_infershape.cpp.
ge::graphStatus InferShape{{ T }}(gert::InferShapeContext* context);
ge::graphStatus InferDataType{{ T }}(gert::InferDataTypeContext* context);
}  // namespace ge

namespace optiling {
// Defined in {{ cookiecutter.op_name }}_tiling.cpp.
ge::graphStatus Tiling{{ T }}(gert::TilingContext* context);
}  // namespace optiling

namespace ops {
class {{ T }} : public OpDef {
public:
    explicit {{ T }}(const char* name) : OpDef(name)
    {
        // DataType and Format lists are read column by column: column k of every input and output
        // together is one supported combination, and the kernel is compiled once per column.
{% for p in s.inputs %}
        this->Input("{{ p.name }}")
            .ParamType({{ p.param }})
            .DataType({{ '{' }}{{ p.ge_dtypes | join(', ') }}{{ '}' }})
            .Format({{ '{' }}{{ p.ge_formats | join(', ') }}{{ '}' }});
{% endfor %}
{% for p in s.outputs %}
        this->Output("{{ p.name }}")
            .ParamType({{ p.param }})
            .DataType({{ '{' }}{{ p.ge_dtypes | join(', ') }}{{ '}' }})
            .Format({{ '{' }}{{ p.ge_formats | join(', ') }}{{ '}' }});
{% endfor %}
{% for a in s.attrs %}
        this->Attr("{{ a.name }}"){{ a.opdef }};
{% endfor %}

        this->SetInferShape(ge::InferShape{{ T }}).SetInferDataType(ge::InferDataType{{ T }});
        this->AICore().SetTiling(optiling::Tiling{{ T }});
{% for sc in s.soc_columns %}
{% if sc.columns is none %}
        this->AICore().AddConfig("{{ sc.key }}");
{% else %}
        {
            // {{ sc.key }} supports only some of the dtype columns: its own prototype lists them.
            OpAICoreConfig config;
{% for p in s.inputs %}
            config.Input("{{ p.name }}")
                .ParamType({{ p.param }})
                .DataType({{ '{' }}{% for c in sc.columns %}{{ p.ge_dtypes[c] }}{{ ', ' if not loop.last }}{% endfor %}{{ '}' }})
                .Format({{ '{' }}{% for c in sc.columns %}{{ p.ge_formats[c] }}{{ ', ' if not loop.last }}{% endfor %}{{ '}' }});
{% endfor %}
{% for p in s.outputs %}
            config.Output("{{ p.name }}")
                .ParamType({{ p.param }})
                .DataType({{ '{' }}{% for c in sc.columns %}{{ p.ge_dtypes[c] }}{{ ', ' if not loop.last }}{% endfor %}{{ '}' }})
                .Format({{ '{' }}{% for c in sc.columns %}{{ p.ge_formats[c] }}{{ ', ' if not loop.last }}{% endfor %}{{ '}' }});
{% endfor %}
            this->AICore().AddConfig("{{ sc.key }}", config);
        }
{% endif %}
{% endfor %}
    }
};

OP_ADD({{ T }});
}  // namespace ops

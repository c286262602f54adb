{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
{% set GUARD = cookiecutter.op_name | upper ~ "_TILING_DATA_H" %}
// {{ T }}: the tiling data, a plain struct that the host fills and the kernel reads.
//
// The tiling function (op_host/{{ cookiecutter.op_name }}_tiling.cpp) writes it straight into the
// tiling buffer through context->GetTilingData<{{ T }}TilingData>(); the kernel copies it out
// with GET_TILING_DATA_WITH_STRUCT. Host and kernel compile this same header, so the byte layout
// cannot drift. Keep it a plain struct: fixed-width fields, no pointers, constructors or virtual
// functions, 8-byte fields first so that no padding holes appear.
#ifndef {{ GUARD }}
#define {{ GUARD }}

#include <cstdint>

struct {{ T }}TilingData {
{% set n4 = namespace(count=0, any=false) %}
{% for o in s.outputs if o.param != "DYNAMIC" %}
{% set n4.any = true %}
    uint64_t {{ o.name }}Length;  // elements of output "{{ o.name }}"
{% endfor %}
{% for a in s.tiling_attrs %}
{% set n4.any = true %}
{% if a.tiling_type == "int64_t" %}
    int64_t {{ a.name }};  // attr {{ a.name }}
{% else %}
{% set n4.count = n4.count + 1 %}
    {{ a.tiling_type }} {{ a.name }};  // attr {{ a.name }}{{ ' (0 or 1)' if a.type == 'bool' }}
{% endif %}
{% endfor %}
{% if n4.count % 2 == 1 or not n4.any %}
    uint32_t reserved;  // keeps the size a multiple of 8 bytes
{% endif %}
};

#endif  // {{ GUARD }}

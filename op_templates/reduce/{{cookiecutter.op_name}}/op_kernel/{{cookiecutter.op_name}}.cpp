{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
{% set params = s.inputs + s.outputs %}
// {{ T }}: the kernel entry point.
//
// Its parameters are fixed by the OpDef: the inputs, then the outputs, in declaration order, then
// the workspace and the tiling data, all as GM addresses. The build compiles this file once per
// dtype column of the OpDef and defines DTYPE_<NAME> (the C++ type of tensor NAME) for each.
#include "{{ cookiecutter.op_name }}.h"

extern "C" __global__ __aicore__ void {{ cookiecutter.op_name }}({% for p in params %}GM_ADDR {{ p.name }}, {% endfor %}GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);  // a pure vector kernel: runs on the AIV cores only
    REGISTER_TILING_DEFAULT({{ T }}TilingData);
    // Copy the tiling data the host wrote (see op_host/{{ cookiecutter.op_name }}_tiling.cpp) onto this core.
    GET_TILING_DATA_WITH_STRUCT({{ T }}TilingData, tilingData, tiling);
    (void)workspace;  // no scratch GM needed: the tiling asked only for the system workspace
    {{ T }}Kernel::{{ T }}<DTYPE_X> op;  // x, gamma and y share one dtype in every column; rstd is float
    op.Init(x, gamma, y, rstd, tilingData);
    op.Process();
}

{% set s = cookiecutter._spec %}
{% set T = cookiecutter.op_type %}
{% set GUARD = cookiecutter.op_name | upper ~ "_H" %}
{% set typed = s.inputs | rejectattr("param", "equalto", "DYNAMIC") | list + s.outputs | rejectattr("param", "equalto", "DYNAMIC") | list %}
{% set filled = s.outputs | rejectattr("param", "equalto", "DYNAMIC") | list %}
// {{ T }}: the kernel, run by every vector core.
//
// Generated from op.yaml. The computation of {{ T }} is not written yet: Process() calls a
// placeholder that fills every output with zeros, so that the package already builds and runs.
// Replace that call (the line marked below) with the real computation. The templates show the
// usual shape: a TPipe, TQue queues between CopyIn (GM -> UB), Compute (vector instructions on UB)
// and CopyOut (UB -> GM), and tiling that splits the work across cores and UB-sized tiles; the
// vector template (`opkit new NAME`) for an element-wise op, the reduce template
// (`opkit new NAME --template reduce`) for a row-wise reduction.
#ifndef {{ GUARD }}
#define {{ GUARD }}

#include "kernel_operator.h"
#include "{{ cookiecutter.op_name }}_tiling_data.h"

namespace {{ T }}Kernel {
using namespace AscendC;

constexpr uint32_t ZERO_BUF_BYTES = 16 * 1024;  // UB filled with zeros once, copied out repeatedly
constexpr uint64_t BLOCK_BYTES = 32;

{% if typed %}
// One type per tensor: the build defines them per dtype column (DTYPE_<NAME> macros).
template <{% for p in typed %}typename T_{{ p.upper }}{{ ', ' if not loop.last }}{% endfor %}>
{% endif %}
class {{ T }} {
public:
    __aicore__ inline {{ T }}() {}

    __aicore__ inline void Init({% for p in s.inputs + s.outputs %}GM_ADDR {{ p.name }}, {% endfor %}const {{ T }}TilingData& tiling)
    {
        tiling_ = tiling;
        // GlobalTensor: a typed view of global memory (GM).
{% for p in s.inputs + s.outputs %}
{% if p.param == "DYNAMIC" %}
        {{ p.name }}List_ = {{ p.name }};  // a dynamic list: read its tensors through AscendC::ListTensorDesc
{% elif p.param == "OPTIONAL" %}
        {{ p.name }}Gm_.SetGlobalBuffer((__gm__ T_{{ p.upper }}*){{ p.name }});  // optional: nullptr when absent
{% elif p in filled %}
        {{ p.name }}Gm_.SetGlobalBuffer((__gm__ T_{{ p.upper }}*){{ p.name }}, tiling.{{ p.name }}Length);
{% else %}
        {{ p.name }}Gm_.SetGlobalBuffer((__gm__ T_{{ p.upper }}*){{ p.name }});
{% endif %}
{% endfor %}
        pipe_.InitBuffer(zeroQueue_, 1, ZERO_BUF_BYTES);
    }

    __aicore__ inline void Process()
    {
        // Replace the next line with the computation of {{ T }}: write every output.
        ZeroFillOutputs();  // opkit: compute not implemented
    }

private:
    // Placeholder computation: every core writes zeros over its own slice of every output.
    __aicore__ inline void ZeroFillOutputs()
    {
        LocalTensor<int32_t> zeros = zeroQueue_.AllocTensor<int32_t>();
        Duplicate(zeros, static_cast<int32_t>(0), static_cast<int32_t>(ZERO_BUF_BYTES / sizeof(int32_t)));
        // EnQue/DeQue order the vector pipe (Duplicate) before the copies out (MTE3 pipe).
        zeroQueue_.EnQue(zeros);
        zeros = zeroQueue_.DeQue<int32_t>();
        LocalTensor<uint8_t> zeroBytes = zeros.ReinterpretCast<uint8_t>();
{% for o in s.outputs %}
{% if o.param == "DYNAMIC" %}
        // "{{ o.name }}" is a dynamic list of tensors: not filled by the placeholder.
{% else %}
        ZeroFill((__gm__ uint8_t*){{ o.name }}Gm_.GetPhyAddr(), tiling_.{{ o.name }}Length * sizeof(T_{{ o.upper }}), zeroBytes);
{% endif %}
{% endfor %}
        zeroQueue_.FreeTensor(zeros);
    }

    // Zero `bytes` bytes at `gm`: this core takes one share of whole 32-byte blocks.
    __aicore__ inline void ZeroFill(__gm__ uint8_t* gm, uint64_t bytes, const LocalTensor<uint8_t>& zeroBytes)
    {
        const uint64_t blockNum = static_cast<uint64_t>(GetBlockNum());
        const uint64_t share = (bytes + blockNum * BLOCK_BYTES - 1) / (blockNum * BLOCK_BYTES) * BLOCK_BYTES;
        const uint64_t begin = static_cast<uint64_t>(GetBlockIdx()) * share;
        if (begin >= bytes) {
            return;
        }
        const uint64_t end = (begin + share < bytes) ? begin + share : bytes;
        GlobalTensor<uint8_t> target;
        target.SetGlobalBuffer(gm + begin, end - begin);
        for (uint64_t done = 0; done < end - begin; done += ZERO_BUF_BYTES) {
            const uint64_t left = end - begin - done;
            // DataCopyPad writes exactly blockLen bytes, whatever their alignment.
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(left < ZERO_BUF_BYTES ? left : ZERO_BUF_BYTES), 0, 0, 0};
            DataCopyPad(target[done], zeroBytes, copyParams);
        }
    }

    TPipe pipe_;
    TQue<TPosition::VECOUT, 1> zeroQueue_;
{% for p in s.inputs + s.outputs %}
{% if p.param == "DYNAMIC" %}
    GM_ADDR {{ p.name }}List_ = nullptr;
{% else %}
    GlobalTensor<T_{{ p.upper }}> {{ p.name }}Gm_;
{% endif %}
{% endfor %}
    {{ T }}TilingData tiling_;
};
}  // namespace {{ T }}Kernel

#endif  // {{ GUARD }}

// InterleaveRope: the kernel entry point.
//
// Parameters are fixed by the OpDef: inputs x, cos, sin, output y, then the workspace and the
// tiling data, all GM addresses. The build compiles this file once per dtype column and defines
// DTYPE_X (half or bfloat16_t); x, cos, sin and y share that type in every column. The tiling key
// names the broadcast pattern of cos/sin and how the work is split (interleave_rope_tiling_data.h);
// each key instantiates the kernel class with those choices fixed at compile time.
#include "interleave_rope.h"

extern "C" __global__ __aicore__ void interleave_rope(GM_ADDR x, GM_ADDR cos, GM_ADDR sin, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);  // a pure vector kernel
    REGISTER_TILING_DEFAULT(InterleaveRopeTilingData);
    GET_TILING_DATA_WITH_STRUCT(InterleaveRopeTilingData, tilingData, tiling);
    if (TILING_KEY_IS(INTERLEAVE_ROPE_KEY_B1SD)) {
        InterleaveRopeKernel::Run<DTYPE_X, true, true>(x, cos, sin, y, tilingData);
    } else if (TILING_KEY_IS(INTERLEAVE_ROPE_KEY_B11D)) {
        InterleaveRopeKernel::Run<DTYPE_X, false, true>(x, cos, sin, y, tilingData);
    } else if (TILING_KEY_IS(INTERLEAVE_ROPE_KEY_11SD)) {
        InterleaveRopeKernel::Run<DTYPE_X, true, false>(x, cos, sin, y, tilingData);
    } else if (TILING_KEY_IS(INTERLEAVE_ROPE_KEY_111D)) {
        InterleaveRopeKernel::Run<DTYPE_X, false, false>(x, cos, sin, y, tilingData);
    } else if (TILING_KEY_IS(INTERLEAVE_ROPE_KEY_B1SD_HEADS)) {
        InterleaveRopeKernel::Run<DTYPE_X, true, true, true>(x, cos, sin, y, tilingData);
    } else if (TILING_KEY_IS(INTERLEAVE_ROPE_KEY_11SD_HEADS)) {
        InterleaveRopeKernel::Run<DTYPE_X, true, false, true>(x, cos, sin, y, tilingData);
    }
}

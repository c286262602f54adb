// opkit simulator (host side): the block and cube constants host tilings use as AscendC::ONE_BLK_SIZE,
// BLOCK_CUBE and CUBE_MAX_SIZE (CANN defines them in this header, guarded so the kernel-side ones and
// these coexist in a unit that includes both). The ConfusionTranspose tiling functions are not
// provided yet.
#pragma once
#include <cstdint>

namespace AscendC {
#ifndef ASCC_PARAM_BLOCK_CUBE
#define ASCC_PARAM_BLOCK_CUBE
constexpr uint32_t BLOCK_CUBE = 16;
#endif
#ifndef ASCC_PARAM_ONE_BLK_SIZE
#define ASCC_PARAM_ONE_BLK_SIZE
constexpr uint32_t ONE_BLK_SIZE = 32;
#endif
#ifndef ASCC_PARAM_CUBE_MAX_SIZE
#define ASCC_PARAM_CUBE_MAX_SIZE
constexpr int32_t CUBE_MAX_SIZE = 256;
#endif
}  // namespace AscendC

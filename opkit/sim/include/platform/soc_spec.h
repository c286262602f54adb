// opkit simulator (host side): NPU architecture numbers as PlatformAscendC::GetCurNpuArch()
// returns them (the __NPU_ARCH__ value of the kernel compiler).
#pragma once
#include <cstdint>

enum class NpuArch : uint32_t {
    DAV_1001 = 1001,
    DAV_2002 = 2002,
    DAV_2201 = 2201,
    DAV_3002 = 3002,
    DAV_3003 = 3003,
    DAV_3510 = 3510,
    DAV_5102 = 5102,
    DAV_RESV = 0xFFFFFFFFU,
};

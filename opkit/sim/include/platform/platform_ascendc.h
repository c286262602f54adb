// opkit simulator: CANN also installs PlatformAscendC under platform/ (ops-transformer's common sources include it so).
#pragma once
#include "tiling/platform/platform_ascendc.h"

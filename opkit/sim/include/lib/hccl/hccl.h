// opkit simulator: the path CANN installs the device-side HCCL API under.
#pragma once
#include "kernel_operator.h"
#include "adv_api/hccl/hccl.h"

// opkit simulator: CANN's kernel_event.h (HardEvent, TPosition, event IDs): basic_api/kernel_tensor.h, with the
// SetFlag/WaitFlag that use them.
#pragma once
#include "basic_api/kernel_tensor.h"
#include "basic_api/kernel_operator_block_sync_intf.h"

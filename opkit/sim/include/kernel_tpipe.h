// opkit simulator: CANN's installed path of basic_api/kernel_tpipe.h (with the sync and system-variable APIs it brings).
#pragma once
#include "basic_api/kernel_tpipe.h"
#include "basic_api/kernel_operator_block_sync_intf.h"
#include "basic_api/kernel_operator_sys_var_intf.h"

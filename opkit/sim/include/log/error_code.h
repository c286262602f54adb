// opkit simulator (host side): ops-base's short include path log/error_code.h; the header is op_common/log/error_code.h.
#pragma once
#include "op_common/log/error_code.h"

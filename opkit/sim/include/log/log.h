// opkit simulator (host side): ops-base's short include path log/log.h; the header is op_common/log/log.h.
#pragma once
#include "op_common/log/log.h"

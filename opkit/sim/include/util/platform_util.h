// opkit simulator (host side): ops-base's short include path util/platform_util.h; the header is op_common/op_host/util/platform_util.h.
#pragma once
#include "op_common/op_host/util/platform_util.h"

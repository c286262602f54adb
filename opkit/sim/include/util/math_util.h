// opkit simulator (host side): ops-base's short include path util/math_util.h; the header is op_common/op_host/util/math_util.h.
#pragma once
#include "op_common/op_host/util/math_util.h"

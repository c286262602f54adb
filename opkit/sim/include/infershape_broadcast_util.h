// opkit simulator (host side): ops-base's short include path infershape_broadcast_util.h; the header is op_common/op_host/infershape_broadcast_util.h.
#pragma once
#include "op_common/op_host/infershape_broadcast_util.h"

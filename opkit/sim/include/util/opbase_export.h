// opkit simulator (host side): ops-base's short include path util/opbase_export.h; the header is op_common/op_host/util/opbase_export.h.
#pragma once
#include "op_common/op_host/util/opbase_export.h"

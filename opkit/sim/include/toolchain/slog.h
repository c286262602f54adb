// opkit simulator (host side): CANN's toolchain/slog.h path of the log interface.
#pragma once
#include "base/dlog_pub.h"

// opkit simulator (host side): CANN's dlog_pub.h path of the log interface.
#pragma once
#include "base/dlog_pub.h"

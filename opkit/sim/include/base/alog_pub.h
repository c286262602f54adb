// opkit simulator (host side): alog_pub.h under its base/ path.
#pragma once
#include "alog_pub.h"

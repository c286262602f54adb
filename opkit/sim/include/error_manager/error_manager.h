// opkit simulator (host side): CANN's error_manager/error_manager.h path; the reporting macros
// operator code uses live in base/err_msg.h.
#pragma once
#include "base/err_msg.h"

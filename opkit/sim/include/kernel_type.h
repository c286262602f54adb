// opkit simulator: CANN's installed path of basic_api/kernel_type.h (the DT_* and FORMAT_* numbers).
#pragma once
#include "basic_api/kernel_type.h"

// opkit simulator: CANN's installed path of basic_api/kernel_operator_vec_cmpsel_intf.h.
#pragma once
#include "basic_api/kernel_operator_vec_cmpsel_intf.h"

// opkit simulator (host side): ops::OpDefFactory lives in register/op_def.h.
#pragma once
#include "register/op_def.h"

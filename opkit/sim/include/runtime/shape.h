// opkit simulator (host side): runtime/shape.h, the exe_graph/runtime header under the shorter path
// CANN's include/exe_graph directory gives it.
#pragma once
#include "exe_graph/runtime/shape.h"

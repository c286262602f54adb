// opkit simulator (host side): graph-level tensor types are not simulated; the exe_graph
// runtime types (exe_graph/runtime/tensor.h) are what tiling and InferShape code receives.
#pragma once
#include "exe_graph/runtime/tensor.h"
#include "graph/types.h"

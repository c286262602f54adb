// opkit simulator (host side): graph status codes.
#pragma once
#include <cstdint>

namespace ge {
using graphStatus = uint32_t;
using Status = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0U;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFFU;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649U;
constexpr graphStatus GRAPH_NOT_CHANGED = 1343242304U;
constexpr Status SUCCESS = 0U;
constexpr Status FAILED = 0xFFFFFFFFU;
constexpr Status PARAM_INVALID = 50331649U;
}  // namespace ge

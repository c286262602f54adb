// opkit simulator: Log, Log2, Log10: logarithms (advanced math API, lib/math/log.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

// Log: natural logarithm
OPKIT_ADV_UNARY(Log, float(std::log(double(x))))
OPKIT_ADV_MATH_FORMS(Log)
// Log2: base-2 logarithm
OPKIT_ADV_UNARY(Log2, float(std::log2(double(x))))
OPKIT_ADV_MATH_FORMS(Log2)
// Log10: base-10 logarithm
OPKIT_ADV_UNARY(Log10, float(std::log10(double(x))))
OPKIT_ADV_MATH_FORMS(Log10)

}  // namespace AscendC

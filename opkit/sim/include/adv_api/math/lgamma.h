// opkit simulator: Lgamma: log of |gamma(x)| (advanced math API, lib/math/lgamma.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Lgamma, float(std::lgamma(double(x))))
OPKIT_ADV_MATH_FORMS(Lgamma)

}  // namespace AscendC

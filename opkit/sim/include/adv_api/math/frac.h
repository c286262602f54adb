// opkit simulator: Frac: fractional part x - trunc(x), sign of x (advanced math API, lib/math/frac.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Frac, float((double(x) - std::trunc(double(x)))))
OPKIT_ADV_MATH_FORMS(Frac)

}  // namespace AscendC

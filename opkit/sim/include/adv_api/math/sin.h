// opkit simulator: Sin: sine (advanced math API, lib/math/sin.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Sin, float(std::sin(double(x))))
OPKIT_ADV_MATH_FORMS(Sin)

}  // namespace AscendC

// opkit simulator: Atanh: inverse hyperbolic tangent (advanced math API, lib/math/atanh.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Atanh, float(std::atanh(double(x))))
OPKIT_ADV_MATH_FORMS(Atanh)

}  // namespace AscendC

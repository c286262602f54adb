// opkit simulator: Acosh: inverse hyperbolic cosine (advanced math API, lib/math/acosh.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Acosh, float(std::acosh(double(x))))
OPKIT_ADV_MATH_FORMS(Acosh)

}  // namespace AscendC

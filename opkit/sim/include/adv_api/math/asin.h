// opkit simulator: Asin: arcsine (advanced math API, lib/math/asin.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Asin, float(std::asin(double(x))))
OPKIT_ADV_MATH_FORMS(Asin)

}  // namespace AscendC

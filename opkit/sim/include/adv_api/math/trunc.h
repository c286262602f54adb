// opkit simulator: Trunc: round toward zero (advanced math API, lib/math/trunc.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Trunc, float(std::trunc(double(x))))
OPKIT_ADV_MATH_FORMS(Trunc)

}  // namespace AscendC

// opkit simulator: Tan: tangent (advanced math API, lib/math/tan.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Tan, float(std::tan(double(x))))
OPKIT_ADV_MATH_FORMS(Tan)

}  // namespace AscendC

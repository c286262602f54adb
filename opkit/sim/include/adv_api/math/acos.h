// opkit simulator: Acos: arccosine (advanced math API, lib/math/acos.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Acos, float(std::acos(double(x))))
OPKIT_ADV_MATH_FORMS(Acos)

}  // namespace AscendC

// opkit simulator: Erfc: complementary error function (advanced math API, lib/math/erfc.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Erfc, float(std::erfc(double(x))))
OPKIT_ADV_MATH_FORMS(Erfc)

}  // namespace AscendC

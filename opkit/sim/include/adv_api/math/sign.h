// opkit simulator: Sign: sign (-1, 0, 1; NaN stays NaN, assumed) (advanced math API, lib/math/sign.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Sign, float((double(x) != double(x) ? double(x) : (double(x) > 0.0 ? 1.0 : (double(x) < 0.0 ? -1.0 : 0.0)))))
OPKIT_ADV_MATH_FORMS(Sign)

}  // namespace AscendC

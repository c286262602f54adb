// opkit simulator: Round: round to the nearest integer, ties to even (assumed) (advanced math API, lib/math/round.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Round, float(std::nearbyint(double(x))))
OPKIT_ADV_MATH_FORMS(Round)

}  // namespace AscendC

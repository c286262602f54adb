// opkit simulator: Atan: arctangent (advanced math API, lib/math/atan.h). Computed in float from the source
// element (in double, then float), one rounding to T (half, float), as every vector instruction rounds its result.
#pragma once
#include "impl/opkit/adv_unary.h"

namespace AscendC {

OPKIT_ADV_UNARY(Atan, float(std::atan(double(x))))
OPKIT_ADV_MATH_FORMS(Atan)

}  // namespace AscendC

// Prints, as key=value lines, the host tiling functions of DropOut (tiling/tiling_api.h) for
// tests/sim/test_adv_softmax.py; argv[1] "bad" calls GetDropOutMinTmpSize with a type size CANN rejects.
#include <cstdio>
#include <cstring>
#include <vector>

#include "tiling/tiling_api.h"

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "bad") == 0) {
        (void)AscendC::GetDropOutMinTmpSize(ge::Shape(std::vector<int64_t>{2, 8}), 8, false);
        return 0;
    }
    struct Case { const char* name; std::vector<int64_t> dims; uint32_t size; };
    const Case cases[] = {{"f32_2x8", {2, 8}, 4}, {"f16_16x64", {16, 64}, 2}, {"f32_3x40", {3, 40}, 4}};
    for (const Case& c : cases) {
        ge::Shape shape(c.dims);
        uint32_t mx = 0, mn = 0;
        AscendC::GetDropOutMaxMinTmpSize(shape, c.size, false, mx, mn);
        std::printf("%s.max=%u\n%s.min=%u\n", c.name, mx, c.name, mn);
        std::printf("%s.max1=%u\n%s.min1=%u\n", c.name, AscendC::GetDropOutMaxTmpSize(shape, c.size, false), c.name,
                    AscendC::GetDropOutMinTmpSize(shape, c.size, false));
    }
    return 0;
}

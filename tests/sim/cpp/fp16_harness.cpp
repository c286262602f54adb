// Converts arrays through opkit's half / bfloat16_t: DIR/f32.bin, DIR/f64.bin -> DIR/*.bin
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_fp16.h"

template <class T> static std::vector<T> rd(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    std::vector<char> b((std::istreambuf_iterator<char>(f)), {});
    std::vector<T> v(b.size() / sizeof(T));
    std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
    return v;
}
template <class T> static void wr(const std::string& p, const std::vector<T>& v) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

int main(int, char** argv) {
    std::string d = argv[1];
    auto f = rd<float>(d + "/f32.bin");
    auto g = rd<double>(d + "/f64.bin");
    std::vector<uint16_t> h(f.size()), b(f.size()), hd(g.size());
    for (size_t i = 0; i < f.size(); ++i) { h[i] = half(f[i]).bits(); b[i] = bfloat16_t(f[i]).bits(); }
    for (size_t i = 0; i < g.size(); ++i) hd[i] = half(g[i]).bits();
    std::vector<float> back(65536), bback(65536);
    for (uint32_t i = 0; i < 65536; ++i) { back[i] = float(half::from_bits(uint16_t(i))); bback[i] = float(bfloat16_t::from_bits(uint16_t(i))); }
    // arithmetic goes through float and rounds once on assignment
    std::vector<uint16_t> sum(f.size() / 2), prod(f.size() / 2);
    for (size_t i = 0; i + 1 < f.size(); i += 2) {
        half x(f[i]), y(f[i + 1]);
        half s = x + y, p = x * y;
        sum[i / 2] = s.bits();
        prod[i / 2] = p.bits();
    }
    wr(d + "/h.bin", h); wr(d + "/b.bin", b); wr(d + "/hd.bin", hd); wr(d + "/back.bin", back); wr(d + "/bback.bin", bback);
    wr(d + "/sum.bin", sum); wr(d + "/prod.bin", prod);
    return 0;
}

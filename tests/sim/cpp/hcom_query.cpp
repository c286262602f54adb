// The host-side HCCL queries (hccl/hcom.h): each rank of a multi-rank run asks its group's rank size and its own
// rank, as an MC2 tiling does on the host; outside a run the world is one device. Prints one line per query.
#include <cstdio>
#include <mutex>

#include "hccl/hcom.h"
#include "kernel_operator.h"

int main(int argc, char** argv) {
    const int R = argc > 1 ? std::atoi(argv[1]) : 2;
    uint32_t size = 99, id = 99;
    const int rs = int(HcomGetRankSize("world", &size));
    const int ri = int(HcomGetRankId("world", &id));
    std::printf("single %d %d %u %u\n", rs, ri, size, id);
    const int ns = int(HcomGetRankSize(nullptr, &size));
    const int ni = int(HcomGetRankId("world", nullptr));
    std::printf("null %d %d\n", ns, ni);
    std::mutex mu;
    opkit::sim::run_ranks(R, [&](int r) {
        uint32_t s = 0, i = 0;
        const int a = int(HcomGetRankSize("world", &s)), b = int(HcomGetRankId("world", &i));
        std::lock_guard<std::mutex> lk(mu);
        std::printf("rank %d %d %d %u %u\n", r, a, b, s, i);
    });
    return 0;
}

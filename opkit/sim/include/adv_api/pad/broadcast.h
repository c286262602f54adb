// opkit simulator: BroadCast (advanced API, dim <= 2).
#pragma once
#include "impl/opkit/adv_unary.h"
#include "impl/opkit/copy_engine.h"
#include "impl/opkit/reduce_util.h"

namespace AscendC {

// ---- BroadCast (advanced API): numpy-style broadcast of src (size 1 along `axis`) to dstShape ------------
template <class T, int32_t dim, int32_t axis>
inline void opkit_broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                            const opkit::sim::SrcLoc& loc) {
    static_assert(dim >= 1 && dim <= 2 && axis >= 0 && axis < dim, "BroadCast: dim 1 or 2, axis < dim");
    OPKIT_DTYPES("BroadCast", T, half, float, int8_t, uint8_t);
    using namespace opkit::sim;
    const char* api = "BroadCast";
    if (on_aic()) return;
    for (int i = 0; i < dim; ++i)
        if (srcShape[i] != dstShape[i] && !(i == axis && srcShape[i] == 1))
            fail_at(api, loc, "srcShape[%d] = %u cannot broadcast to dstShape[%d] = %u along axis %d", i, srcShape[i], i, dstShape[i], axis);
    // documented constraints: the broadcast dimension's partner must be 32-byte aligned
    if (dim == 2 && axis == 0 && (uint64_t(srcShape[1]) * sizeof(T)) % 32)
        fail_at(api, loc, "dim 2, axis 0: srcShape[1] = %u x %zu B must be 32-byte aligned (documented)", srcShape[1], sizeof(T));
#if __NPU_ARCH__ == 2002
    if (dim == 2 && axis == 1 && (uint64_t(srcShape[0]) * sizeof(T)) % 32)
        fail_at(api, loc, "dim 2, axis 1: srcShape[0] = %u x %zu B must be 32-byte aligned on this chip (documented)",
                srcShape[0], sizeof(T));
#endif
    uint64_t rows = dim == 2 ? dstShape[0] : 1, cols = dstShape[dim - 1];
    uint64_t scols = srcShape[dim - 1];
    Opd d = opd(dst, true, 1, 8, "destination", api, loc), s = opd(src, false, 1, 8, "source", api, loc);
    const uint64_t s_bytes = uint64_t(dim == 2 ? srcShape[0] : 1) * srcShape[dim - 1] * sizeof(T);
    const uint64_t d_bytes = uint64_t(dim == 2 ? dstShape[0] : 1) * dstShape[dim - 1] * sizeof(T);
    if (d.ub < s.ub + s_bytes && s.ub < d.ub + d_bytes)
        fail_at(api, loc, "the source (UB %llu) and the destination (UB %llu) overlap; Broadcast does not support that "
                "(documented)", (unsigned long long)s.ub, (unsigned long long)d.ub);
    uint32_t seq = issue(P_V);
    uint16_t site = core().site(api, loc);
    std::vector<T> sv;
    uint64_t sn = (dim == 2 ? srcShape[0] : 1) * scols;
    bool ok = read_src<T>(s, 0, sn, seq, site, api, loc, sv);
    std::vector<T> out(rows * cols);
    for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c) {
            uint64_t sr = (dim == 2 && srcShape[0] == 1) ? 0 : r, sc = scols == 1 ? 0 : c;
            out[r * cols + c] = sv[sr * scols + sc];
        }
    write_dst<T>(d, 0, out.data(), out.size(), ok, seq, site, api, loc);
    trace(P_V, out.size() * sizeof(T), (out.size() * sizeof(T) + 255) / 256, api, dtype_name<T>());
}
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("BroadCast", loc);  // no sharedTmpBuffer: the scratch is the reserved area (assumed)
    opkit_broadcast<T, dim, axis>(dst, src, dstShape, srcShape, loc);
}
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      LocalTensor<uint8_t>& tmp, OPKIT_LOC) {
    opkit::sim::adv_tmp_check(tmp, "BroadCast", loc);
    opkit_broadcast<T, dim, axis>(dst, src, dstShape, srcShape, loc);
}

}  // namespace AscendC

namespace AscendC {

// Broadcast: the current spelling of BroadCast (same forms).
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      LocalTensor<uint8_t>& sharedTmpBuffer, OPKIT_LOC) {
    BroadCast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, sharedTmpBuffer, loc);
}
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                      OPKIT_LOC) {
    BroadCast<T, dim, axis, isReuseSource>(dst, src, dstShape, srcShape, loc);
}

}  // namespace AscendC

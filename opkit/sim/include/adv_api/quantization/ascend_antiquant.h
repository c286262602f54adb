// opkit simulator: AscendAntiQuant (advanced API, quantization family) and AntiQuantShapeInfo, the Atlas A2/A3 forms.
//
// dst = scale * (src + offset) element by element, with int8_t or int4b_t src (two int4b_t per byte, element 2i in
// the low nibble of byte i) and half or bfloat16_t dst/offset/scale:
//   without transpose, src is [K, N] (K = the `k` argument, N = src.GetSize() / K) and offset/scale are
//     [G, N]: each group of K / G consecutive rows shares a row of them (G = 1: per channel, G > 1: per group);
//   with transpose (isTranspose = true), src is [N, K] and offset/scale are [N, G]: each group of K / G
//     consecutive columns shares a column;
//   the scalar forms (offset and scale given as values) are per tensor.
// The shapes of offset and scale come from AntiQuantShapeInfo; a zero height/width there means the tensor's
// default shape: one row of offset.GetSize() (scale.GetSize()) elements without transpose, one column with.
// Arithmetic as the chip does it: for half, src is cast to half, the offset added and the scale multiplied in
// half (each step rounded to half); for bfloat16_t the same steps in float, one RINT rounding to bfloat16_t.
// The forms without sharedTmpBuffer take their scratch from Ascend C's reserved UB area.
#pragma once
#include <type_traits>
#include "basic_api/kernel_base_types.h"
#include "impl/opkit/copy_engine.h"
#include "impl/opkit/reduce_util.h"
#include "basic_api/kernel_operator_vec_vconv_intf.h"

namespace AscendC {

struct AntiQuantShapeInfo {
    uint32_t offsetHeight{0};
    uint32_t offsetWidth{0};
    uint32_t scaleHeight{0};
    uint32_t scaleWidth{0};
};

namespace opkit_antiquant {

// The (height, width) of offset or scale: the shape info's when both given, else the tensor's default shape.
inline void shape_of(uint32_t h, uint32_t w, uint32_t size, bool transpose, uint32_t& oh, uint32_t& ow) {
    if (h && w) { oh = h; ow = w; }
    else if (transpose) { oh = size; ow = 1; }
    else { oh = 1; ow = size; }
}

// The group count along K of one parameter tensor of shape (h, w); fails unless it fits src.
inline uint32_t groups_of(const char* what, uint32_t h, uint32_t w, uint32_t K, uint32_t N, bool transpose,
                          const opkit::sim::SrcLoc& loc) {
    const uint32_t across = transpose ? h : w, along = transpose ? w : h;
    if (across != N)
        opkit::sim::fail_at("AscendAntiQuant", loc,
                            "%s is %u x %u but src is %u x %u (%s): its %s must be %u (set AntiQuantShapeInfo to its shape)",
                            what, h, w, transpose ? N : K, transpose ? K : N, transpose ? "[N, K], isTranspose" : "[K, N]",
                            transpose ? "height" : "width", N);
    if (along == 0 || K % along)
        opkit::sim::fail_at("AscendAntiQuant", loc,
                            "%s has %u %s, which does not divide K = %u into groups (per channel: 1; per group: K / groupSize)",
                            what, along, transpose ? "columns" : "rows", K);
    return along;
}

template <class SrcT, class DstT>
inline void run(const LocalTensor<DstT>& dst, const LocalTensor<SrcT>& src, const LocalTensor<DstT>* offset,
                const LocalTensor<DstT>* scale, DstT offsetValue, DstT scaleValue, uint32_t K, bool transpose,
                const AntiQuantShapeInfo& si, const opkit::sim::SrcLoc& loc) {
    static_assert(std::is_same<SrcT, int8_t>::value || (__NPU_ARCH__ != 2002 && std::is_same<SrcT, int4b_t>::value),
                  "Ascend C AscendAntiQuant: src is int8_t (or int4b_t, Atlas A2/A3) on " OPKIT_SIM_ARCH_NAME);
    static_assert(std::is_same<DstT, half>::value || std::is_same<DstT, bfloat16_t>::value,
                  "Ascend C AscendAntiQuant: dst, offset and scale are half or bfloat16_t on " OPKIT_SIM_ARCH_NAME);
    using namespace opkit::sim;
    const char* api = "AscendAntiQuant";
    if (on_aic()) return;
    constexpr bool int4 = std::is_same<SrcT, int4b_t>::value;
    // int4b_t: two per byte (element 2i in the low nibble of byte i); CANN counts a LocalTensor<int4b_t> in elements
    const uint64_t total = int4 ? uint64_t(src.GetLength()) * 2 : src.GetSize();
    if (K == 0 || total % K)
        fail_at(api, loc, "src holds %llu elements, not a multiple of k = %u", (unsigned long long)total, K);
    const uint32_t N = uint32_t(total / K);
    const uint64_t srcBytes = int4 ? total / 2 : total * sizeof(SrcT);
    if (srcBytes % 32 || (total * sizeof(DstT)) % 32)
        fail_at(api, loc, "src and dst must span whole 32-byte blocks (%llu elements do not)", (unsigned long long)total);
    if (transpose && (int4 ? uint64_t(K) / 2 : uint64_t(K) * sizeof(SrcT)) % 32)
        fail_at(api, loc, "with isTranspose, k (%u) must span whole 32-byte blocks of src", K);
    if (uint64_t(dst.GetSize()) < total)
        fail_at(api, loc, "dst holds %u elements, fewer than src's %llu", dst.GetSize(), (unsigned long long)total);
    uint32_t oh = 0, ow = 0, sh = 0, sw = 0, og = 1, sg = 1;
    if (offset) {
        opkit_antiquant::shape_of(si.offsetHeight, si.offsetWidth, offset->GetSize(), transpose, oh, ow);
        og = groups_of("offset", oh, ow, K, N, transpose, loc);
    }
    if (scale) {
        opkit_antiquant::shape_of(si.scaleHeight, si.scaleWidth, scale->GetSize(), transpose, sh, sw);
        sg = groups_of("scale", sh, sw, K, N, transpose, loc);
    }
    CoreState& c = core();
    uint32_t seq = issue(P_V);
    uint16_t site = c.site(api, loc);
    Opd s = opd(src, false, 1, 8, "src", api, loc), d = opd(dst, true, 1, 8, "dst", api, loc);
    std::vector<int8_t> sv;
    bool ok;
    if constexpr (int4) {
        std::vector<uint8_t> bytes;
        ok = read_src<uint8_t>(s, 0, srcBytes, seq, site, api, loc, bytes);
        sv.resize(total);
        for (uint64_t i = 0; i < total; ++i) sv[i] = int8_t(int(int4b_t(bytes[i / 2] >> (4 * (i & 1)))));
    } else {
        ok = read_src<int8_t>(s, 0, total, seq, site, api, loc, sv);
    }
    std::vector<DstT> ov, scv;
    if (offset) ok &= read_src<DstT>(opd(*offset, false, 1, 8, "offset", api, loc), 0, uint64_t(oh) * ow, seq, site, api, loc, ov);
    if (scale) ok &= read_src<DstT>(opd(*scale, false, 1, 8, "scale", api, loc), 0, uint64_t(sh) * sw, seq, site, api, loc, scv);
    // element (k along K, n across) -> index into a parameter of `g` groups along K
    auto param = [&](const std::vector<DstT>& v, uint32_t g, uint32_t k, uint32_t n) {
        const uint32_t grp = k / (K / g);
        return transpose ? v[uint64_t(n) * g + grp] : v[uint64_t(grp) * N + n];
    };
    std::vector<DstT> out(total);
    for (uint32_t r = 0; r < (transpose ? N : K); ++r)
        for (uint32_t col = 0; col < (transpose ? K : N); ++col) {
            const uint32_t k = transpose ? col : r, n = transpose ? r : col;
            const uint64_t i = uint64_t(r) * (transpose ? K : N) + col;
            const DstT o = offset ? param(ov, og, k, n) : offsetValue, sc = scale ? param(scv, sg, k, n) : scaleValue;
            if constexpr (std::is_same<DstT, half>::value) {
                const half x = half(float(sv[i]));            // exact: every int8 value is a half
                const half y = half(float(x) + float(o));     // the Add, rounded to half
                out[i] = half(float(y) * float(sc));          // the Mul, rounded to half
            } else {
                out[i] = cast_to_rint<DstT>((float(sv[i]) + float(o)) * float(sc));
            }
        }
    write_dst<DstT>(d, 0, out.data(), total, ok, seq, site, api, loc);
    if (!ok) warn_at(api, loc, "reads UB bytes that were never written (the result is marked unwritten too)");
    trace(P_V, total * sizeof(DstT), (total * sizeof(DstT) + 255) / 256 * 3, api, dtype_name<DstT>());
}

}  // namespace opkit_antiquant

// offset and scale tensors, with a tmp buffer
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale,
                            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {},
                            OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_antiquant::run(dst, src, &offset, &scale, OutputDataType(), OutputDataType(), k, isTranspose, shapeInfo, loc);
}
// scale tensor only (no offset), with a tmp buffer
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& scale, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}, OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_antiquant::run<InputDataType, OutputDataType>(dst, src, nullptr, &scale, OutputDataType(0.0f), OutputDataType(), k,
                                                        isTranspose, shapeInfo, loc);
}
// offset and scale tensors, scratch from the reserved UB
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src,
                            const LocalTensor<OutputDataType>& offset, const LocalTensor<OutputDataType>& scale, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("AscendAntiQuant", loc);
    opkit_antiquant::run(dst, src, &offset, &scale, OutputDataType(), OutputDataType(), k, isTranspose, shapeInfo, loc);
}
// per tensor: offset and scale values, with a tmp buffer / from the reserved UB
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src, const OutputDataType offset,
                            const OutputDataType scale, const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k,
                            const AntiQuantShapeInfo& shapeInfo = {}, OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_antiquant::run<InputDataType, OutputDataType>(dst, src, nullptr, nullptr, offset, scale, k, isTranspose, shapeInfo, loc);
}
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src, const OutputDataType offset,
                            const OutputDataType scale, const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {}, OPKIT_LOC) {
    opkit::sim::claim_reserved_ub("AscendAntiQuant", loc);
    opkit_antiquant::run<InputDataType, OutputDataType>(dst, src, nullptr, nullptr, offset, scale, k, isTranspose, shapeInfo, loc);
}
// per tensor, scale value only
template <typename InputDataType, typename OutputDataType, bool isTranspose>
inline void AscendAntiQuant(const LocalTensor<OutputDataType>& dst, const LocalTensor<InputDataType>& src, const OutputDataType scale,
                            const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t k, const AntiQuantShapeInfo& shapeInfo = {},
                            OPKIT_LOC) {
    (void)sharedTmpBuffer;
    opkit_antiquant::run<InputDataType, OutputDataType>(dst, src, nullptr, nullptr, OutputDataType(0.0f), scale, k, isTranspose,
                                                        shapeInfo, loc);
}

}  // namespace AscendC

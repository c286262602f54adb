// opkit simulator: the DataCopyPad implementation entry points of the 220 core that some kernels call
// directly with raw addresses: DataCopyPadGm2UBImpl(__ubuf__ dst, __gm__ src, params, pad) and
// DataCopyPadUB2GMImpl(__gm__ dst, __ubuf__ src, params). A __ubuf__ address is what
// LocalTensor::GetPhyAddr() returns (the UB byte offset); it must lie inside UB the kernel's TPipe
// has handed out. The copies then run, and are checked, as DataCopyPad on a tensor at that address.
#pragma once
#include "basic_api/kernel_operator_data_copy_intf.h"

namespace AscendC {
namespace opkit_detail {
template <class T>
inline LocalTensor<T> ub_view(__ubuf__ T* p, const char* api, const opkit::sim::SrcLoc& loc) {
    using namespace opkit::sim;
    const uint64_t off = uint64_t(reinterpret_cast<uintptr_t>(p));
    ArenaMem& m = core().mem(A_UB);
    if (off >= m.used)
        fail_at(api, loc, "UB address %llu is outside the UB the kernel's buffers occupy (%llu bytes); pass a LocalTensor's GetPhyAddr()",
                (unsigned long long)off, (unsigned long long)m.used);
    LocalTensor<T> t;
    t.address_.logicPos = uint8_t(TPosition::VECCALC);
    t.address_.bufferAddr = uint32_t(off);
    t.address_.absAddr = m.data + off;
    t.address_.dataLen = uint32_t(m.used - off);
    t.address_.bufEnd = uint32_t(m.used);
    return t;
}
template <class T>
inline GlobalTensor<T> gm_view(__gm__ T* p) {
    GlobalTensor<T> g;
    g.SetGlobalBuffer(p);
    return g;
}
}  // namespace opkit_detail

template <class T>
inline void DataCopyPadGm2UBImpl(__ubuf__ T* dst, __gm__ T* src, const DataCopyParams& p, const DataCopyPadParams& pad, OPKIT_LOC) {
    DataCopyPad(opkit_detail::ub_view(dst, "DataCopyPadGm2UBImpl", loc), opkit_detail::gm_view(src), p, pad, loc);
}
template <class T>
inline void DataCopyPadGm2UBImpl(__ubuf__ T* dst, __gm__ T* src, const DataCopyExtParams& p, const DataCopyPadExtParams<T>& pad,
                                 OPKIT_LOC) {
    DataCopyPad(opkit_detail::ub_view(dst, "DataCopyPadGm2UBImpl", loc), opkit_detail::gm_view(src), p, pad, loc);
}
template <class T>
inline void DataCopyPadUB2GMImpl(__gm__ T* dst, __ubuf__ T* src, const DataCopyParams& p, OPKIT_LOC) {
    DataCopyPad(opkit_detail::gm_view(dst), opkit_detail::ub_view(src, "DataCopyPadUB2GMImpl", loc), p, loc);
}
template <class T>
inline void DataCopyPadUB2GMImpl(__gm__ T* dst, __ubuf__ T* src, const DataCopyExtParams& p, OPKIT_LOC) {
    DataCopyPad(opkit_detail::gm_view(dst), opkit_detail::ub_view(src, "DataCopyPadUB2GMImpl", loc), p, loc);
}

}  // namespace AscendC

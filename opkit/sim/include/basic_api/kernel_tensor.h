// opkit simulator: enums, GlobalTensor, LocalTensor.
#pragma once
#include "opkit_sim_runtime.h"
#include "kernel_fp16.h"

#ifndef __global__
#define __global__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __inline__
#define __inline__ inline
#endif
#ifndef __BLOCK_LOCAL__
#define __BLOCK_LOCAL__ thread_local
#endif
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif

// Compiler builtins of the NPU toolchain.
enum pipe_t : int {
    PIPE_S = 0, PIPE_V = 1, PIPE_M = 2, PIPE_MTE1 = 3, PIPE_MTE2 = 4, PIPE_MTE3 = 5,
    PIPE_ALL = 6, PIPE_V2 = 7, PIPE_MTE4 = 8, PIPE_MTE5 = 9, PIPE_FIX = 10
};
enum event_t : int {
    EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7
};

namespace AscendC {

using TEventID = int8_t;
using TBufHandle = uint8_t*;

enum class TPosition : uint8_t {
    GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM,
    C2PIPE2GM, C2PIPE2LOCAL, MAX
};
using QuePosition = TPosition;

enum class HardEvent : uint8_t {
    MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
    MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S,
    MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX
};

enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD, CAST_HYBRID };
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };
enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL, CACHE_MODE_LAST, CACHE_MODE_PERSISTENT };
enum class CacheRwMode : uint8_t { READ = 1, WRITE = 2, RW = 3 };
enum KernelCoreType : int32_t { MIX = 0, AIC = 1, AIV = 2 };
enum class GatherMaskMode : uint8_t { DEFAULT = 0, V1, V2 };

constexpr uint64_t MASK_PLACEHOLDER = 0;
#ifndef ASCC_PARAM_ONE_BLK_SIZE  // CANN's guard: the host tiling headers define it too
#define ASCC_PARAM_ONE_BLK_SIZE
constexpr int32_t ONE_BLK_SIZE = 32;
#endif
constexpr int32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr int32_t MAX_REPEAT_TIMES = 255;
constexpr int32_t DEFAULT_BLK_NUM = 8;
constexpr int32_t DEFAULT_BLK_STRIDE = 1;
constexpr int32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint32_t TOTAL_UB_SIZE = (__NPU_ARCH__ == 2002) ? 256 * 1024 : 192 * 1024;
constexpr uint32_t TOTAL_L1_SIZE = (__NPU_ARCH__ == 2002) ? 1024 * 1024 : 512 * 1024 - 128;
constexpr uint32_t TOTAL_L0A_SIZE = 64 * 1024;
constexpr uint32_t TOTAL_L0B_SIZE = 64 * 1024;
constexpr uint32_t TOTAL_L0C_SIZE = (__NPU_ARCH__ == 2002) ? 256 * 1024 : 128 * 1024;
constexpr uint32_t F32_NEG_INF = 0xff800000u;
constexpr uint32_t F32_INF = 0x7f800000u;
constexpr uint32_t F32_NAN = 0x7fc00000u;

template <class A, class B> struct IsSameType { static constexpr bool value = std::is_same<A, B>::value; };
template <class T> using PrimT = T;

constexpr int kMaxShapeDim = 8;
struct ShapeInfo {
    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[kMaxShapeDim] = {};
    uint32_t originalShape[kMaxShapeDim] = {};
    DataFormat dataFormat = DataFormat::ND;
    ShapeInfo() = default;
    ShapeInfo(uint8_t dim, const uint32_t s[], DataFormat fmt = DataFormat::ND) : shapeDim(dim), originalShapeDim(dim), dataFormat(fmt) {
        for (int i = 0; i < dim && i < kMaxShapeDim; ++i) shape[i] = originalShape[i] = s[i];
    }
    ShapeInfo(uint8_t dim, const uint32_t s[], uint8_t odim, const uint32_t os[], DataFormat fmt)
        : shapeDim(dim), originalShapeDim(odim), dataFormat(fmt) {
        for (int i = 0; i < dim && i < kMaxShapeDim; ++i) shape[i] = s[i];
        for (int i = 0; i < odim && i < kMaxShapeDim; ++i) originalShape[i] = os[i];
    }
};

inline int arena_of(TPosition p) {
    using namespace opkit::sim;
    switch (p) {
        case TPosition::VECIN: case TPosition::VECOUT: case TPosition::VECCALC: return A_UB;
        case TPosition::A1: case TPosition::B1: case TPosition::C1: case TPosition::TSCM: return A_L1;
        case TPosition::A2: return A_L0A;
        case TPosition::B2: return A_L0B;
        case TPosition::CO1: return A_L0C;
        case TPosition::C2: return A_BT;
        default: return -1;
    }
}

// The buffer address record; `address_` is public on LocalTensor as in Ascend C.
struct TBuffAddr {
    uint32_t dataLen = 0;      // bytes
    uint32_t bufferAddr = 0;   // byte offset inside the core-local memory of logicPos
    TBufHandle bufferHandle = nullptr;
    uint8_t logicPos = uint8_t(TPosition::VECCALC);
    uint8_t* absAddr = nullptr;
    // opkit bookkeeping
    uint32_t bufEnd = 0;       // end (byte offset) of the owning buffer
    int32_t bufId = -1;        // owning queue block / TBuf id inside the core's TPipe
};

template <class T> class GlobalTensor;

template <class T>
class LocalTensor {
public:
    using PrimType = T;
    TBuffAddr address_;
    ShapeInfo shapeInfo_;

    LocalTensor() = default;
    // A tensor at byte `addr` of the local memory of `pos`, of `tileSize` elements, outside any TPipe buffer
    // (CANN's CreateTensor rules: not GM, a 32-byte aligned address and length, inside the memory).
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize, OPKIT_LOC) { CreateTensor(pos, addr, tileSize, loc); }
    void CreateTensor(TPosition pos, uint32_t addr, uint32_t tileSize, OPKIT_LOC) {
        const char* api = "LocalTensor(pos, addr, tileSize)";
        const int a = arena_of(pos);
        if (a < 0) opkit::sim::fail_at(api, loc, "position %d has no local memory (GM and MAX are not positions of a local tensor)", int(pos));
        const uint64_t bytes = uint64_t(tileSize) * sizeof(T);
        if (addr % 32) opkit::sim::fail_at(api, loc, "addr %u is not 32-byte aligned", addr);
        if (tileSize == 0 || bytes % 32)
            opkit::sim::fail_at(api, loc, "tileSize %u gives %llu bytes: the length must be a positive multiple of 32 bytes", tileSize,
                                (unsigned long long)bytes);
        if (addr + bytes > opkit::sim::arena_phys(a))
            opkit::sim::fail_at(api, loc, "addr %u + %llu bytes exceeds the %llu bytes of %s", addr, (unsigned long long)bytes,
                                (unsigned long long)opkit::sim::arena_phys(a), opkit::sim::arena_name(a));
        address_ = TBuffAddr{};
        address_.logicPos = uint8_t(pos);
        address_.bufferAddr = addr;
        address_.dataLen = uint32_t(bytes);
        address_.bufEnd = uint32_t(addr + bytes);
        address_.absAddr = opkit::sim::core().mem(a).data + addr;
    }

    uint32_t GetSize() const { return address_.dataLen / uint32_t(sizeof(T)); }
    uint32_t GetLength() const { return address_.dataLen; }
    void SetSize(uint32_t n, OPKIT_LOC) {
        uint64_t bytes = uint64_t(n) * sizeof(T);
        if (address_.bufferAddr + bytes > address_.bufEnd)
            opkit::sim::fail_at("LocalTensor::SetSize", loc, "size %u elements (%llu bytes) runs past the end of its buffer (%u bytes available)",
                                n, (unsigned long long)bytes, address_.bufEnd - address_.bufferAddr);
        address_.dataLen = uint32_t(bytes);
    }
    void SetBufferLen(uint32_t bytes) { address_.dataLen = bytes; }
    uint64_t GetPhyAddr() const { return address_.bufferAddr; }
    uint64_t GetPhyAddr(uint32_t off) const { return address_.bufferAddr + uint64_t(off) * sizeof(T); }
    TPosition GetPosition() const { return TPosition(address_.logicPos); }
    int32_t GetLogicPos() const { return address_.logicPos; }
    void SetAddr(const TBuffAddr& a) { address_ = a; }
    // `dst = a + b` and the other operator forms (basic_api/kernel_operator_symbol_override.h) run here.
    template <class S, class = typename S::opkit_symbol_override>
    void operator=(const S& expr) { expr.Process(*this); }
    void SetShapeInfo(const ShapeInfo& s) { shapeInfo_ = s; }
    ShapeInfo GetShapeInfo() const { return shapeInfo_; }
    void SetUserTag(int32_t t) { tag_ = t; }
    int32_t GetUserTag() const { return tag_; }
    T* data() const { return reinterpret_cast<T*>(address_.absAddr); }
    int arena() const { return arena_of(TPosition(address_.logicPos)); }

    LocalTensor operator[](uint32_t off) const {
        if (off > GetSize())
            opkit::sim::fail_at("LocalTensor::operator[]", opkit::sim::SrcLoc(nullptr, 0),
                                "offset %u is beyond the tensor's %u elements", off, GetSize());
        LocalTensor r = *this;
        uint32_t b = off * uint32_t(sizeof(T));
        r.address_.absAddr += b;
        r.address_.bufferAddr += b;
        r.address_.dataLen -= b;
        return r;
    }
    template <class U>
    LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> r;
        r.address_ = address_;
        r.shapeInfo_ = shapeInfo_;
        return r;
    }
    void SetAddrWithOffset(const LocalTensor<T>& src, uint32_t off) {
        *this = src[off];
    }

    T GetValue(uint32_t i, OPKIT_LOC) const {
        check_index(i, "LocalTensor::GetValue", loc);
        scalar_touch(i, false, "LocalTensor::GetValue", loc);
        uint64_t off = address_.bufferAddr + uint64_t(i) * sizeof(T);
        if (arena() >= 0 && !opkit::sim::all_init(arena(), off, sizeof(T)))
            opkit::sim::fail_at("LocalTensor::GetValue", loc,
                                "scalar read of element %u (%s byte offset %llu) that was never written", i,
                                opkit::sim::arena_name(arena()), (unsigned long long)off);
        T v;
        std::memcpy(&v, address_.absAddr + uint64_t(i) * sizeof(T), sizeof(T));
        return v;
    }
    template <class S>
    void SetValue(uint32_t i, S v, OPKIT_LOC) const {
        check_index(i, "LocalTensor::SetValue", loc);
        scalar_touch(i, true, "LocalTensor::SetValue", loc);
        T t = static_cast<T>(v);
        std::memcpy(address_.absAddr + uint64_t(i) * sizeof(T), &t, sizeof(T));
        if (arena() >= 0) opkit::sim::set_init(arena(), address_.bufferAddr + uint64_t(i) * sizeof(T), sizeof(T));
    }
    // Reference access: counted as a scalar write (the element becomes "written").
    T& operator()(uint32_t i) const {
        opkit::sim::SrcLoc loc(nullptr, 0);
        check_index(i, "LocalTensor::operator()", loc);
        scalar_touch(i, true, "LocalTensor::operator()", loc);
        if (arena() >= 0) opkit::sim::set_init(arena(), address_.bufferAddr + uint64_t(i) * sizeof(T), sizeof(T));
        return *reinterpret_cast<T*>(address_.absAddr + uint64_t(i) * sizeof(T));
    }

private:
    int32_t tag_ = 0;
    void check_index(uint32_t i, const char* api, const opkit::sim::SrcLoc& loc) const {
        if (!address_.absAddr) opkit::sim::fail_at(api, loc, "tensor has no buffer (not allocated / Get() not called)");
        if (i >= GetSize()) opkit::sim::fail_at(api, loc, "index %u is out of bounds of a local tensor of %u elements", i, GetSize());
    }
    void scalar_touch(uint32_t i, bool w, const char* api, const opkit::sim::SrcLoc& loc) const {
        int a = arena();
        if (a < 0) return;
        auto& c = opkit::sim::core();
        uint32_t seq = opkit::sim::issue(opkit::sim::P_S);
        opkit::sim::touch(a, address_.bufferAddr + uint64_t(i) * sizeof(T), sizeof(T), opkit::sim::P_S, w, seq,
                          c.site(api, loc), api, loc);
    }
};

template <class T>
class GlobalTensor {
public:
    using PrimType = T;
    GlobalTensor() = default;
    void SetGlobalBuffer(__gm__ T* buf, uint64_t size) { addr_ = buf; size_ = size; }
    void SetGlobalBuffer(__gm__ T* buf) { addr_ = buf; size_ = 0; }
    GlobalTensor operator[](uint64_t off) const {
        GlobalTensor r = *this;
        r.addr_ = addr_ + off;
        r.size_ = size_ > off ? size_ - off : 0;
        return r;
    }
    __gm__ T* GetPhyAddr() const { return addr_; }
    __gm__ T* GetPhyAddr(uint64_t off) const { return addr_ + off; }
    uint64_t GetSize() const { return size_; }
    T GetValue(uint64_t off, OPKIT_LOC) const {
        opkit::sim::gm_check(addr_ + off, sizeof(T), "GlobalTensor::GetValue", loc, "read");
        T v;
        std::memcpy(&v, addr_ + off, sizeof(T));
        return v;
    }
    template <class S>
    void SetValue(uint64_t off, S v, OPKIT_LOC) const {
        opkit::sim::gm_check(addr_ + off, sizeof(T), "GlobalTensor::SetValue", loc, "write");
        T t = static_cast<T>(v);
        std::memcpy(addr_ + off, &t, sizeof(T));
    }
    T& operator()(uint64_t off) const {
        opkit::sim::gm_check(addr_ + off, sizeof(T), "GlobalTensor::operator()", opkit::sim::SrcLoc(nullptr, 0), "access");
        return addr_[off];
    }
    template <class U>
    GlobalTensor<U> ReinterpretCast() const {
        GlobalTensor<U> r;
        r.SetGlobalBuffer(reinterpret_cast<__gm__ U*>(addr_), size_ * sizeof(T) / sizeof(U));
        return r;
    }
    template <CacheRwMode rw = CacheRwMode::RW>
    void SetL2CacheHint(CacheMode) {}
    void SetShapeInfo(const ShapeInfo& s) { shape_ = s; }
    ShapeInfo GetShapeInfo() const { return shape_; }
private:
    __gm__ T* addr_ = nullptr;
    uint64_t size_ = 0;
    ShapeInfo shape_;
};

}  // namespace AscendC

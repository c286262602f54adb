// opkit simulator (host side): gert::TilingData, the raw tiling buffer the tiling function fills
// (capacity fixed by the registration; SetDataSize says how many bytes the kernel receives).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "graph/ge_error_codes.h"

namespace gert {
class TilingData {
public:
    // Not zeroed: like the real buffer it starts with leftover bytes (opkit fills 0xCD), so a
    // plain-struct tiling that leaves fields unset is visible in the kernel.
    explicit TilingData(size_t capacity = 0) : buf_(capacity + 8, 0xCD), capacity_(capacity) {}
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return size_; }
    void SetDataSize(size_t n) { size_ = n; }
    void* GetData() { return buf_.data(); }
    const void* GetData() const { return buf_.data(); }
    template <typename T>
    ge::graphStatus Append(const T& v) { return Append(&v, 1); }
    template <typename T>
    ge::graphStatus Append(const T* v, size_t n) {
        void* p = Expand(sizeof(T) * n);
        if (p == nullptr) return ge::GRAPH_FAILED;
        std::memcpy(p, v, sizeof(T) * n);
        return ge::GRAPH_SUCCESS;
    }
    void* Expand(size_t n) {
        if (size_ + n > capacity_) return nullptr;
        void* p = buf_.data() + size_;
        size_ += n;
        return p;
    }

private:
    std::vector<uint8_t> buf_;
    size_t capacity_ = 0;
    size_t size_ = 0;
};
}  // namespace gert

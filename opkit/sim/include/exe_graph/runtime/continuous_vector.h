// opkit simulator (host side): gert::ContinuousVector (a sized, capacity-bounded array, used for
// list attributes and workspace sizes) and gert::ContinuousVectorVector (a list of them).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "graph/ge_error_codes.h"

namespace gert {
class ContinuousVector {
public:
    ContinuousVector() = default;
    ContinuousVector(size_t elem_size, size_t capacity) { Reset(elem_size, capacity); }
    void Reset(size_t elem_size, size_t capacity) {
        elem_size_ = elem_size;
        capacity_ = capacity;
        size_ = 0;
        buf_.assign(elem_size * capacity + 8, 0);
    }
    size_t GetSize() const { return size_; }
    size_t GetCapacity() const { return capacity_; }
    ge::graphStatus SetSize(size_t n) {
        if (n > capacity_) return ge::GRAPH_FAILED;
        size_ = n;
        return ge::GRAPH_SUCCESS;
    }
    const void* GetData() const { return buf_.data(); }
    void* MutableData() { return buf_.data(); }

protected:
    size_t elem_size_ = 1;
    size_t capacity_ = 0;
    size_t size_ = 0;
    std::vector<uint8_t> buf_ = std::vector<uint8_t>(8, 0);
};

template <typename T>
class TypedContinuousVector : public ContinuousVector {
public:
    TypedContinuousVector() : ContinuousVector(sizeof(T), 0) {}
    explicit TypedContinuousVector(size_t capacity) : ContinuousVector(sizeof(T), capacity) {}
    TypedContinuousVector(const T* data, size_t n) : ContinuousVector(sizeof(T), n) {
        if (n) std::memcpy(buf_.data(), data, n * sizeof(T));
        size_ = n;
    }
    T* MutableData() { return reinterpret_cast<T*>(buf_.data()); }
    const T* GetData() const { return reinterpret_cast<const T*>(buf_.data()); }
};

class ContinuousVectorVector {
public:
    size_t GetSize() const { return items_.size(); }
    size_t GetCapacity() const { return items_.size(); }
    const ContinuousVector* Get(size_t i) const { return i < items_.size() ? items_[i].get() : nullptr; }
    template <typename T>
    ContinuousVector* AddTyped(const std::vector<T>& v) {
        items_.emplace_back(new TypedContinuousVector<T>(v.data(), v.size()));
        return items_.back().get();
    }

private:
    std::vector<std::unique_ptr<ContinuousVector>> items_;
};
}  // namespace gert

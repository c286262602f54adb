// opkit simulator: ListTensorDesc / TensorDesc — a list of GM tensors (dynamic inputs such as
// Grouped Matmul's weight list) described by one GM block the host packs:
//   word 0: byte offset from the block start to the table of data pointers;
//   then one descriptor per tensor: a word (dim in the low 32 bits; in the first descriptor the
//   count or 0, elsewhere the tensor's index in the high 32 bits) followed by `dim` shape words
//   (a list without shapes has dim 0 and one 0xffffffff word);
//   then the table of data pointers, one uint64 per tensor.
// Every GM word read is checked against the host allocations; malformed blocks fail with one message.
#pragma once
#include "basic_api/kernel_tensor.h"
#include "impl/opkit/copy_engine.h"

namespace AscendC {

class ListTensorDesc;

template <class T>
class TensorDesc {
public:
    TensorDesc() = default;
    void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
    uint64_t GetDim() { return dim_; }
    uint64_t GetIndex() { return index_; }
    uint64_t GetShape(uint32_t offset, OPKIT_LOC) {
        if (offset >= dim_) opkit::sim::fail_at("TensorDesc::GetShape", loc, "axis %u out of range (the tensor has %u dims)", offset, dim_);
        if (!shape_) opkit::sim::fail_at("TensorDesc::GetShape", loc, "no shape buffer: call SetShapeAddr before GetDesc");
        return shape_[offset];
    }
    __gm__ T* GetDataPtr() { return ptr_; }
    GlobalTensor<T> GetDataObj() {
        uint64_t n = 1;
        for (uint32_t i = 0; i < dim_ && shape_; ++i) n *= shape_[i];
        GlobalTensor<T> g;
        g.SetGlobalBuffer(ptr_, n);
        return g;
    }
    friend class ListTensorDesc;

private:
    uint32_t dim_ = 0, index_ = 0;
    uint64_t* shape_ = nullptr;
    __gm__ T* ptr_ = nullptr;
};

class ListTensorDesc {
public:
    ListTensorDesc() = default;
    ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff, OPKIT_LOC) {
        Init(data, length, shapeSize, loc);
    }
    void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff, OPKIT_LOC) {
        const char* api = "ListTensorDesc";
        if (!data) opkit::sim::fail_at(api, loc, "the list-tensor GM address is null");
        base_ = reinterpret_cast<__gm__ uint64_t*>(data);
        const uint64_t ptrOff = word(0, loc);
        if (ptrOff < 16 || ptrOff % 8)
            opkit::sim::fail_at(api, loc, "data-pointer offset %llu (word 0) is not a multiple of 8 past the descriptors",
                                (unsigned long long)ptrOff);
        const uint64_t first = word(1, loc);
        dim_ = uint32_t(first & 0xffffffffu);
        desc_words_ = dim_ == 0 ? 2 : 1 + dim_;
        ptr_word_ = uint32_t(ptrOff / 8);
        const uint32_t hi = uint32_t(first >> 32);
        count_ = hi != 0 ? hi : uint32_t(word(ptr_word_ - desc_words_, loc) >> 32) + 1;
        const bool fits = dim_ != 0 ? uint64_t(count_) * desc_words_ * 8 == ptrOff - 8 : ptrOff == 24;
        if (!fits)
            opkit::sim::fail_at(api, loc, "malformed list tensor: %u tensors of %u dims do not end at the data-pointer offset %llu",
                                count_, dim_, (unsigned long long)ptrOff);
        if (length != 0xffffffffu && shapeSize != 0xffffffffu) {
            if (count_ != shapeSize)
                opkit::sim::fail_at(api, loc, "the list holds %u tensors, the caller expects %u", count_, shapeSize);
            if (uint64_t(length) != ptrOff + uint64_t(count_) * 8)
                opkit::sim::fail_at(api, loc, "the list block is %llu bytes, the caller says %u",
                                    (unsigned long long)(ptrOff + uint64_t(count_) * 8), length);
        }
    }
    template <class T>
    void GetDesc(TensorDesc<T>& desc, uint32_t index, OPKIT_LOC) {
        check_index(index, "ListTensorDesc::GetDesc", loc);
        if (dim_ == 0) opkit::sim::fail_at("ListTensorDesc::GetDesc", loc, "this list tensor carries no shapes (dim 0)");
        if (!desc.shape_) opkit::sim::fail_at("ListTensorDesc::GetDesc", loc, "call SetShapeAddr on the TensorDesc first");
        desc.dim_ = dim_;
        desc.index_ = index;
        desc.ptr_ = reinterpret_cast<__gm__ T*>(word(ptr_word_ + index, loc));
        const uint32_t at = 1 + index * desc_words_ + 1;
        for (uint32_t i = 0; i < dim_; ++i) desc.shape_[i] = word(at + i, loc);
    }
    template <class T>
    __gm__ T* GetDataPtr(uint32_t index, OPKIT_LOC) {
        check_index(index, "ListTensorDesc::GetDataPtr", loc);
        return reinterpret_cast<__gm__ T*>(word(ptr_word_ + index, loc));
    }
    uint32_t GetSize() { return count_; }

private:
    uint64_t word(uint32_t i, const opkit::sim::SrcLoc& loc) {
        opkit::sim::gm_check(base_ + i, sizeof(uint64_t), "ListTensorDesc", loc, "read");
        return base_[i];
    }
    void check_index(uint32_t index, const char* api, const opkit::sim::SrcLoc& loc) {
        if (!base_) opkit::sim::fail_at(api, loc, "the ListTensorDesc was not initialised (Init or the constructor with data)");
        if (index >= count_) opkit::sim::fail_at(api, loc, "index %u out of range (the list holds %u tensors)", index, count_);
    }
    __gm__ uint64_t* base_ = nullptr;
    uint32_t dim_ = 0, desc_words_ = 0, ptr_word_ = 0, count_ = 0;
};

}  // namespace AscendC

// opkit simulator (host side): macro-defined TilingData classes (namespace optiling).
//
//   BEGIN_TILING_DATA_DEF(Cls)
//     TILING_DATA_FIELD_DEF(uint32_t, n);          set_n(v) / get_n()
//     TILING_DATA_FIELD_DEF_ARR(int64_t, 4, dims); set_dims(const int64_t* p) copies 4 / get_dims() -> pointer
//     TILING_DATA_FIELD_DEF_STRUCT(Sub, sub);      sub.set_x(...)  (Sub is itself macro-defined)
//   END_TILING_DATA_DEF;
//   REGISTER_TILING_DATA_CLASS(OpType, Cls)
//
// Serialised layout (SaveToBuffer, GetDataSize), the documented alignment rule: fields in
// declaration order; a scalar or array field starts at an offset that is a multiple of its
// element size; a struct field starts at a multiple of 8; the class size is rounded up to a
// multiple of 8. Padding bytes are zero. This is the layout of the kernel-side plain struct
// under #pragma pack(8) when every nested struct is 8-byte aligned.
// Field types: int8_t..uint64_t, float and bool (one byte, as CANN's build lays it out); a compile
// error otherwise.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "graph/ascend_string.h"
#include "opkit_host/diag.h"
#include "opkit_host/registry.h"

namespace optiling {

template <class T>
struct OpkitTilingFieldType
    : std::integral_constant<bool, std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value ||
                                       std::is_same<T, int16_t>::value || std::is_same<T, uint16_t>::value ||
                                       std::is_same<T, int32_t>::value || std::is_same<T, uint32_t>::value ||
                                       std::is_same<T, int64_t>::value || std::is_same<T, uint64_t>::value ||
                                       std::is_same<T, float>::value || std::is_same<T, bool>::value ||
                                       std::is_same<T, char>::value> {};

struct FieldInfo {
    FieldInfo(const char* dtype, const char* name) : dtype_(dtype), name_(name), classType_("0") {}
    FieldInfo(const char* dtype, const char* name, size_t arr) : dtype_(dtype), name_(name), arrSize_(arr), classType_("1") {}
    FieldInfo(const char* dtype, const char* name, const char* st, size_t ss)
        : dtype_(dtype), name_(name), structType_(st), structSize_(ss), classType_("2") {}
    const char* dtype_;
    const char* name_;
    size_t arrSize_ = 0;
    const char* structType_ = nullptr;
    size_t structSize_ = 0;
    const char* classType_;
};

class TilingDef {
public:
    virtual ~TilingDef() = default;

    // Serialises the fields (nested structs included) into dst; capacity is checked.
    void SaveToBuffer(void* dst, size_t capacity) {
        if (dst == nullptr) opkit::host::fail("TilingDef::SaveToBuffer", "%s: destination is null", class_name_);
        if (size_ > capacity)
            opkit::host::fail("TilingDef::SaveToBuffer", "%s has %zu bytes, the buffer only %zu", class_name_, size_, capacity);
        Sync();
        std::memcpy(dst, Data(), size_);
    }
    size_t GetDataSize() const { return size_; }
    const char* GetTilingClassName() const { return class_name_; }
    std::vector<FieldInfo> GetFieldInfo() const { return field_info_; }
    // Makes dst (at least GetDataSize() bytes) the storage of this object, keeping the values.
    void SetDataPtr(void* dst) {
        if (dst == nullptr) return;
        Sync();
        std::memcpy(dst, Data(), size_);
        ext_ = static_cast<uint8_t*>(dst);
    }
    void CheckAlignAndGenPlaceHolder(const char*, size_t align) {
        if (align > 1 && size_ % align) size_ += align - size_ % align;
    }
    // opkit: the serialised bytes (after Sync) and the field table.
    const uint8_t* OpkitBytes() { Sync(); return Data(); }
    const opkit::host::TilingLayout& OpkitLayout() const { return layout_; }

protected:
    size_t OpkitScalar(const char* dtype, const char* name, size_t elem, size_t count) {
        CheckAlignAndGenPlaceHolder(name, elem);
        const size_t off = size_;
        size_ += elem * count;
        if (count == 1 && !array_next_) {
            field_info_.emplace_back(dtype, name);
            layout_.fields.push_back({"scalar", dtype, name, off, elem, 1, elem});
        } else {
            field_info_.emplace_back(dtype, name, count);
            layout_.fields.push_back({"array", dtype, name, off, elem, count, elem * count});
        }
        array_next_ = false;
        return off;
    }
    size_t OpkitArray(const char* dtype, const char* name, size_t elem, size_t count) {
        array_next_ = true;
        return OpkitScalar(dtype, name, elem, count);
    }
    size_t OpkitStruct(const char* type, const char* name, TilingDef* sub) {
        CheckAlignAndGenPlaceHolder(name, 8);
        const size_t off = size_;
        size_ += sub->size_;
        field_info_.emplace_back("struct", name, type, sub->size_);
        layout_.fields.push_back({"struct", type, name, off, sub->size_, 1, sub->size_});
        subs_.push_back({reinterpret_cast<char*>(sub) - reinterpret_cast<char*>(this), off});
        return off;
    }
    void OpkitFinish(const char* cls) {
        class_name_ = cls;
        CheckAlignAndGenPlaceHolder(cls, 8);
        own_.assign(size_ + 8, 0);
        layout_.cls = cls;
        layout_.size = size_;
        opkit::host::RecordTilingLayout(layout_);
    }
    uint8_t* Data() { return ext_ ? ext_ : own_.data(); }
    const uint8_t* Data() const { return ext_ ? ext_ : own_.data(); }
    template <class T>
    void OpkitSet(size_t off, T v) { std::memcpy(Data() + off, &v, sizeof(T)); }
    template <class T>
    T OpkitGet(size_t off) const {
        T v;
        std::memcpy(&v, Data() + off, sizeof(T));
        return v;
    }
    void Sync() {
        for (const auto& s : subs_) {
            TilingDef* sub = reinterpret_cast<TilingDef*>(reinterpret_cast<char*>(this) + s.first);
            sub->Sync();
            std::memcpy(Data() + s.second, sub->Data(), sub->size_);
        }
    }

    const char* class_name_ = "";
    size_t size_ = 0;
    std::vector<FieldInfo> field_info_;

private:
    std::vector<uint8_t> own_;
    uint8_t* ext_ = nullptr;
    bool array_next_ = false;
    std::vector<std::pair<std::ptrdiff_t, size_t>> subs_;  // (object offset in this, byte offset)
    opkit::host::TilingLayout layout_;
};

using TilingDataConstructor = std::shared_ptr<TilingDef> (*)();

class CTilingDataClassFactory {
public:
    static CTilingDataClassFactory& GetInstance() {
        static CTilingDataClassFactory f;
        return f;
    }
    void RegisterTilingData(const char* op_type, TilingDataConstructor c) { ctors_[op_type] = c; }
    std::shared_ptr<TilingDef> CreateTilingDataInstance(const char* op_type) {
        auto it = ctors_.find(op_type);
        return it == ctors_.end() ? nullptr : it->second();
    }

private:
    std::map<std::string, TilingDataConstructor> ctors_;
};

}  // namespace optiling

#define BEGIN_TILING_DATA_DEF(class_name)                          \
    class class_name : public ::optiling::TilingDef {              \
    public:                                                        \
        class_name() { OpkitFinish(#class_name); }                 \
        explicit class_name(void* p) {                             \
            OpkitFinish(#class_name);                              \
            if (p != nullptr) SetDataPtr(p);                       \
        }

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                                                    \
    static_assert(::optiling::OpkitTilingFieldType<data_type>::value,                                                  \
                  "TILING_DATA_FIELD_DEF: field '" #field_name "' has type " #data_type                                \
                  "; only int8_t..uint64_t, float, bool and char are allowed");                                                    \
                                                                                                                        \
public:                                                                                                                 \
    void set_##field_name(data_type v) { OpkitSet<data_type>(field_name##_opkit_off_, v); }                            \
    data_type get_##field_name() const { return OpkitGet<data_type>(field_name##_opkit_off_); }                        \
                                                                                                                        \
private:                                                                                                                \
    size_t field_name##_opkit_off_ = OpkitScalar(#data_type, #field_name, sizeof(data_type), 1);

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                                      \
    static_assert(::optiling::OpkitTilingFieldType<arr_type>::value,                                                   \
                  "TILING_DATA_FIELD_DEF_ARR: field '" #field_name "' has type " #arr_type                             \
                  "; only int8_t..uint64_t, float, bool and char are allowed");                                                    \
                                                                                                                        \
public:                                                                                                                 \
    void set_##field_name(const arr_type* p) {                                                                          \
        if (reinterpret_cast<const uint8_t*>(p) != Data() + field_name##_opkit_off_)                                    \
            std::memcpy(Data() + field_name##_opkit_off_, p, sizeof(arr_type) * (arr_size));                            \
    }                                                                                                                   \
    arr_type* get_##field_name() { return reinterpret_cast<arr_type*>(Data() + field_name##_opkit_off_); }             \
                                                                                                                        \
private:                                                                                                                \
    size_t field_name##_opkit_off_ = OpkitArray(#arr_type, #field_name, sizeof(arr_type), (arr_size));

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                                          \
public:                                                                                                                 \
    struct_type field_name;                                                                                             \
                                                                                                                        \
private:                                                                                                                \
    size_t field_name##_opkit_off_ = OpkitStruct(#struct_type, #field_name, &field_name);

#define END_TILING_DATA_DEF \
    }                       \
    ;

#define OPKIT_TILING_CAT2(a, b) a##b
#define OPKIT_TILING_CAT(a, b) OPKIT_TILING_CAT2(a, b)

// Binds Cls as the TilingData class of OpType (OpType_<key> binds a tiling key; <Struct>Op
// registers a nested struct). Usable at namespace scope, also more than once per file.
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                                   \
    namespace {                                                                                           \
    struct OPKIT_TILING_CAT(OpkitTilingReg_, OPKIT_TILING_CAT(op_type, class_name)) {                     \
        OPKIT_TILING_CAT(OpkitTilingReg_, OPKIT_TILING_CAT(op_type, class_name))() {                      \
            class_name probe;                                                                             \
            ::opkit::host::TilingClassOfOp()[#op_type] = #class_name;                                     \
            ::optiling::CTilingDataClassFactory::GetInstance().RegisterTilingData(                        \
                #op_type, []() -> std::shared_ptr<::optiling::TilingDef> { return std::make_shared<class_name>(); }); \
        }                                                                                                 \
    } OPKIT_TILING_CAT(g_opkit_tiling_reg_, OPKIT_TILING_CAT(op_type, class_name));                       \
    }

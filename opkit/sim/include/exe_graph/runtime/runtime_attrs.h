// opkit simulator (host side): gert::RuntimeAttrs, the operator's attribute values by index
// (the order of Attr(...) in the OpDef), with the request's value or the OpDef default.
//
// Reading an attribute as a type it cannot hold (a float attribute through GetAttrPointer<int64_t>,
// an int through GetFloat, a string as a number, ...) ends the run with a diagnostic: on the NPU
// it would reinterpret the bytes and give a silently wrong tiling.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "exe_graph/runtime/continuous_vector.h"
#include "exe_graph/runtime/tensor.h"
#include "opkit_host/diag.h"

namespace gert {
class RuntimeAttrs {
public:
    enum class Kind { kBool, kInt, kFloat, kString, kListBool, kListInt, kListFloat, kListListInt, kListListFloat, kListString };

    static const char* KindName(Kind k) {
        switch (k) {
            case Kind::kBool: return "bool";
            case Kind::kInt: return "int";
            case Kind::kFloat: return "float";
            case Kind::kString: return "string";
            case Kind::kListBool: return "list_bool";
            case Kind::kListInt: return "list_int";
            case Kind::kListFloat: return "list_float";
            case Kind::kListListInt: return "list_list_int";
            case Kind::kListListFloat: return "list_list_float";
            case Kind::kListString: return "list_string";
        }
        return "?";
    }

    template <class T>
    const T* GetAttrPointer(size_t index) const {
        const Item* it = Find(index);
        if (it == nullptr) return nullptr;
        using U = typename std::remove_cv<T>::type;
        if constexpr (std::is_same<U, char>::value) {
            Expect(*it, index, it->kind == Kind::kString, "char (a string attribute)");
            return it->str.c_str();
        } else if constexpr (std::is_same<U, ContinuousVectorVector>::value) {
            Expect(*it, index, it->kind == Kind::kListListInt || it->kind == Kind::kListListFloat,
                   "gert::ContinuousVectorVector (a list of lists)");
            return it->lists.get();
        } else if constexpr (std::is_base_of<ContinuousVector, U>::value) {
            Expect(*it, index, it->list != nullptr, "a gert::ContinuousVector (a list attribute)");
            CheckListElem<U>(*it, index);
            return static_cast<const T*>(it->list.get());
        } else if constexpr (std::is_same<U, bool>::value) {
            Expect(*it, index, it->kind == Kind::kBool, "bool");
            return reinterpret_cast<const T*>(it->scalar);
        } else if constexpr (std::is_floating_point<U>::value) {
            Expect(*it, index, it->kind == Kind::kFloat && sizeof(U) == sizeof(float), "float");
            return reinterpret_cast<const T*>(it->scalar);
        } else if constexpr (std::is_integral<U>::value) {
            // Narrower integer reads (int32_t, uint32_t, uint8_t of an int64 attribute) read the low
            // bytes on a little-endian host, as they do in CANN.
            Expect(*it, index, it->kind == Kind::kInt, "an integer type (an int attribute)");
            return reinterpret_cast<const T*>(it->scalar);
        } else {
            static_assert(std::is_integral<U>::value || std::is_floating_point<U>::value,
                          "opkit: RuntimeAttrs::GetAttrPointer<T> supports bool, integers, float, char (string), "
                          "gert::ContinuousVector/TypedContinuousVector<T> and gert::ContinuousVectorVector");
            return nullptr;
        }
    }
    const int64_t* GetInt(size_t i) const { return GetAttrPointer<int64_t>(i); }
    const float* GetFloat(size_t i) const { return GetAttrPointer<float>(i); }
    const bool* GetBool(size_t i) const { return GetAttrPointer<bool>(i); }
    const char* GetStr(size_t i) const { return GetAttrPointer<char>(i); }
    const TypedContinuousVector<int64_t>* GetListInt(size_t i) const { return GetAttrPointer<TypedContinuousVector<int64_t>>(i); }
    const TypedContinuousVector<float>* GetListFloat(size_t i) const { return GetAttrPointer<TypedContinuousVector<float>>(i); }
    const TypedContinuousVector<bool>* GetListBool(size_t i) const { return GetAttrPointer<TypedContinuousVector<bool>>(i); }
    const ContinuousVectorVector* GetListListInt(size_t i) const { return GetAttrPointer<ContinuousVectorVector>(i); }
    const ContinuousVectorVector* GetListListFloat(size_t i) const { return GetAttrPointer<ContinuousVectorVector>(i); }
    const Tensor* GetTensor(size_t i) const {
        const Item* it = Find(i);
        if (it) opkit::host::fail("RuntimeAttrs::GetTensor", "attribute %zu ('%s') is %s; tensor attributes are not supported by opkit",
                                  i, it->name.c_str(), KindName(it->kind));
        return nullptr;
    }
    size_t GetAttrNum() const { return items_.size(); }
    const void* GetPointerByIndex(size_t i) const {
        const Item* it = Find(i);
        if (!it) return nullptr;
        if (it->kind == Kind::kString) return it->str.c_str();
        if (it->list) return it->list.get();
        if (it->lists) return it->lists.get();
        return it->scalar;
    }

    // opkit: filled by the harness, in OpDef attribute order.
    const char* OpkitName(size_t i) const { return i < items_.size() ? items_[i].name.c_str() : ""; }
    Kind OpkitKind(size_t i) const { return items_[i].kind; }
    void OpkitAddBool(const std::string& n, bool v) { Item& it = Add(n, Kind::kBool); *reinterpret_cast<bool*>(it.scalar) = v; }
    void OpkitAddInt(const std::string& n, int64_t v) { Item& it = Add(n, Kind::kInt); std::memcpy(it.scalar, &v, 8); }
    void OpkitAddFloat(const std::string& n, float v) { Item& it = Add(n, Kind::kFloat); std::memcpy(it.scalar, &v, 4); }
    void OpkitAddString(const std::string& n, const std::string& v) { Add(n, Kind::kString).str = v; }
    void OpkitAddListBool(const std::string& n, const std::vector<bool>& v) {
        std::vector<uint8_t> b(v.begin(), v.end());
        Add(n, Kind::kListBool).list.reset(new TypedContinuousVector<bool>(reinterpret_cast<const bool*>(b.data()), b.size()));
    }
    void OpkitAddListInt(const std::string& n, const std::vector<int64_t>& v) {
        Add(n, Kind::kListInt).list.reset(new TypedContinuousVector<int64_t>(v.data(), v.size()));
    }
    void OpkitAddListFloat(const std::string& n, const std::vector<float>& v) {
        Add(n, Kind::kListFloat).list.reset(new TypedContinuousVector<float>(v.data(), v.size()));
    }
    void OpkitAddListListInt(const std::string& n, const std::vector<std::vector<int64_t>>& v) {
        Item& it = Add(n, Kind::kListListInt);
        it.lists.reset(new ContinuousVectorVector());
        for (const auto& x : v) it.lists->AddTyped<int64_t>(x);
    }

private:
    struct Item {
        std::string name;
        Kind kind = Kind::kInt;
        alignas(8) unsigned char scalar[8] = {};
        std::string str;
        std::unique_ptr<ContinuousVector> list;
        std::unique_ptr<ContinuousVectorVector> lists;
    };
    Item& Add(const std::string& n, Kind k) {
        items_.emplace_back();
        items_.back().name = n;
        items_.back().kind = k;
        return items_.back();
    }
    const Item* Find(size_t i) const { return i < items_.size() ? &items_[i] : nullptr; }
    static void Expect(const Item& it, size_t i, bool ok, const char* wanted) {
        if (!ok)
            opkit::host::fail("RuntimeAttrs::GetAttrPointer", "attribute %zu ('%s') is %s and is read as %s", i,
                              it.name.c_str(), KindName(it.kind), wanted);
    }
    template <class U>
    static void CheckListElem(const Item& it, size_t i) {
        if constexpr (std::is_same<U, TypedContinuousVector<int64_t>>::value) {
            Expect(it, i, it.kind == Kind::kListInt, "TypedContinuousVector<int64_t> (list_int)");
        } else if constexpr (std::is_same<U, TypedContinuousVector<float>>::value) {
            Expect(it, i, it.kind == Kind::kListFloat, "TypedContinuousVector<float> (list_float)");
        } else if constexpr (std::is_same<U, TypedContinuousVector<bool>>::value) {
            Expect(it, i, it.kind == Kind::kListBool, "TypedContinuousVector<bool> (list_bool)");
        } else if constexpr (!std::is_same<U, ContinuousVector>::value) {
            Expect(it, i, false, "a TypedContinuousVector of another element type");
        }
    }
    std::vector<Item> items_;
};
}  // namespace gert

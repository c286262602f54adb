// opkit simulator (host side): gert::StorageFormat (origin and storage format of a tensor).
#pragma once
#include "graph/types.h"

namespace gert {
struct ExpandDimsType {
    ExpandDimsType() = default;
};

struct StorageFormat {
    StorageFormat() = default;
    StorageFormat(ge::Format origin, ge::Format storage) : origin_(origin), storage_(storage) {}
    ge::Format GetOriginFormat() const { return origin_; }
    void SetOriginFormat(ge::Format f) { origin_ = f; }
    ge::Format GetStorageFormat() const { return storage_; }
    void SetStorageFormat(ge::Format f) { storage_ = f; }
    ExpandDimsType GetExpandDimsType() const { return expand_; }
    void SetExpandDimsType(const ExpandDimsType& e) { expand_ = e; }
    ExpandDimsType& MutableExpandDimsType() { return expand_; }
    bool operator==(const StorageFormat& o) const { return origin_ == o.origin_ && storage_ == o.storage_; }
    bool operator!=(const StorageFormat& o) const { return !(*this == o); }

private:
    ge::Format origin_ = ge::FORMAT_ND;
    ge::Format storage_ = ge::FORMAT_ND;
    ExpandDimsType expand_;
};
}  // namespace gert

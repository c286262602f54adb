// opkit simulator (host side): ge::TypeUtils, names of dtypes and formats for messages.
#pragma once
#include <cstdint>
#include <string>

#include "graph/ascend_string.h"
#include "graph/types.h"

namespace ge {
class TypeUtils {
public:
    static std::string DataTypeToSerialString(DataType t) {
        switch (t) {
#define OPKIT_DT(x) case x: return #x;
            OPKIT_DT(DT_FLOAT) OPKIT_DT(DT_FLOAT16) OPKIT_DT(DT_INT8) OPKIT_DT(DT_INT32) OPKIT_DT(DT_UINT8)
            OPKIT_DT(DT_INT16) OPKIT_DT(DT_UINT16) OPKIT_DT(DT_UINT32) OPKIT_DT(DT_INT64) OPKIT_DT(DT_UINT64)
            OPKIT_DT(DT_DOUBLE) OPKIT_DT(DT_BOOL) OPKIT_DT(DT_STRING) OPKIT_DT(DT_COMPLEX64) OPKIT_DT(DT_COMPLEX128)
            OPKIT_DT(DT_BF16) OPKIT_DT(DT_UNDEFINED) OPKIT_DT(DT_INT4) OPKIT_DT(DT_HIFLOAT8)
            OPKIT_DT(DT_FLOAT8_E5M2) OPKIT_DT(DT_FLOAT8_E4M3FN) OPKIT_DT(DT_FLOAT8_E8M0)
#undef OPKIT_DT
            default: return "DT_" + std::to_string(static_cast<int>(t));
        }
    }
    static AscendString DataTypeToAscendString(DataType t) { return AscendString(DataTypeToSerialString(t).c_str()); }
    static std::string FormatToSerialString(Format f) {
        switch (GetPrimaryFormat(f)) {
#define OPKIT_FMT(x) case FORMAT_##x: return #x;
            OPKIT_FMT(NCHW) OPKIT_FMT(NHWC) OPKIT_FMT(ND) OPKIT_FMT(NC1HWC0) OPKIT_FMT(FRACTAL_Z) OPKIT_FMT(HWCN)
            OPKIT_FMT(NDHWC) OPKIT_FMT(FRACTAL_ZZ) OPKIT_FMT(FRACTAL_NZ) OPKIT_FMT(NCDHW) OPKIT_FMT(NDC1HWC0)
            OPKIT_FMT(FRACTAL_Z_3D) OPKIT_FMT(NC) OPKIT_FMT(NCL) OPKIT_FMT(ND_RNN_BIAS) OPKIT_FMT(FRACTAL_ZN_RNN)
#undef OPKIT_FMT
            default: return "FORMAT_" + std::to_string(static_cast<int>(f));
        }
    }
    // The byte size of one element: true and `length` for whole-byte types, false (length untouched)
    // for sub-byte types (DT_INT4, ...) and types without a size.
    static bool GetDataTypeLength(const DataType data_type, uint32_t& length) {
        const int size = GetSizeByDataType(data_type);
        if (size <= 0 || size > 16) return false;
        length = static_cast<uint32_t>(size);
        return true;
    }
    static AscendString FormatToAscendString(Format f) { return AscendString(FormatToSerialString(f).c_str()); }
};
}  // namespace ge

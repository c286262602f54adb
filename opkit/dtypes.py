"""The data types an operator may declare: one table for spec, scaffolding, build and data files."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    name: str  # the spec's name (NumPy style)
    ge: str  # ge::DataType enumerator used in OpDef
    ge_value: int  # its numeric value (ORIG_DTYPE_<ARG> macros)
    cpp: str  # the C++ type in Ascend C kernels
    size: int  # bytes per element (of the NumPy value; see ``bits`` for what the device stores)
    kind: str  # "float" | "int" | "uint" | "bool" | "complex"
    numpy: str  # NumPy dtype used for host-side data ("bfloat16" travels as uint16 bits in .npz)
    bits: int = 0  # bits per element on the device when that is less than a byte (packed), else 0

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def packed(self) -> bool:
        """Several elements share a byte in device memory (int4: two, the even element in the low nibble)."""
        return 0 < self.bits < 8

    @property
    def value_range(self) -> tuple[int, int] | None:
        """The values a packed integer type holds ((-8, 7) for int4); None for the others."""
        if not self.packed:
            return None
        if self.kind == "int":
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1


_TABLE = [
    DType("float16", "DT_FLOAT16", 1, "half", 2, "float", "float16"),
    DType("bfloat16", "DT_BF16", 27, "bfloat16_t", 2, "float", "bfloat16"),
    DType("float32", "DT_FLOAT", 0, "float", 4, "float", "float32"),
    DType("float64", "DT_DOUBLE", 11, "double", 8, "float", "float64"),
    DType("int8", "DT_INT8", 2, "int8_t", 1, "int", "int8"),
    # CANN's DT_INT4: two values per byte on the device (element 2i in the low nibble, 2i+1 in the high one,
    # as LocalTensor<int4b_t>::SetValue stores them); in NumPy each value is an int8 in [-8, 7].
    DType("int4", "DT_INT4", 29, "int4b_t", 1, "int", "int8", bits=4),
    DType("uint8", "DT_UINT8", 4, "uint8_t", 1, "uint", "uint8"),
    DType("int16", "DT_INT16", 6, "int16_t", 2, "int", "int16"),
    DType("uint16", "DT_UINT16", 7, "uint16_t", 2, "uint", "uint16"),
    DType("int32", "DT_INT32", 3, "int32_t", 4, "int", "int32"),
    DType("uint32", "DT_UINT32", 8, "uint32_t", 4, "uint", "uint32"),
    DType("int64", "DT_INT64", 9, "int64_t", 8, "int", "int64"),
    DType("uint64", "DT_UINT64", 10, "uint64_t", 8, "uint", "uint64"),
    DType("bool", "DT_BOOL", 12, "bool", 1, "bool", "bool"),
    # Interleaved (real, imaginary) float32 pairs, as CANN stores them; compared part by part.
    DType("complex64", "DT_COMPLEX64", 16, "complex64", 8, "complex", "complex64"),
]

DTYPES: dict[str, DType] = {d.name: d for d in _TABLE}
DTYPE_NAMES: list[str] = [d.name for d in _TABLE]

# Spellings msOpGen's prototype JSON accepts for each concrete type (peers.md §1.2).
MSOPGEN_ALIASES: dict[str, str] = {
    "float16": "float16", "fp16": "float16", "half": "float16",
    "float": "float32", "float32": "float32", "fp32": "float32",
    "bf16": "bfloat16", "bfloat16": "bfloat16",
    "double": "float64", "float64": "float64", "fp64": "float64",
    "int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16",
    "int32": "int32", "uint32": "uint32", "int64": "int64", "uint64": "uint64",
    "bool": "bool",
}
# msOpGen's spelling when exporting (its own examples use these).
MSOPGEN_EXPORT: dict[str, str] = {
    "float16": "fp16", "bfloat16": "bf16", "float32": "float", "float64": "double",
}
# Type-group names msOpGen accepts; opkit asks for concrete columns instead.
MSOPGEN_GROUPS = {"numbertype", "realnumbertype", "quantizedtype", "basictype", "indexnumbertype", "all"}

FORMATS: list[str] = ["ND", "NCHW", "NHWC", "HWCN", "NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ", "NCDHW", "NDHWC"]
# ge::Format's numbers (the kernel's FORMAT_<ARG> macros, compared with FORMAT_ND & co. as CANN's build does).
FORMAT_VALUES: dict[str, int] = {"ND": 2, "NCHW": 0, "NHWC": 1, "HWCN": 16, "NC1HWC0": 3, "FRACTAL_Z": 4,
                                 "FRACTAL_NZ": 29, "NCDHW": 30, "NDHWC": 27}

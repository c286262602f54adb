// AddCustom tiling data: written by op_host/add_custom_tiling.cpp, read by the kernel.
#ifndef ADD_CUSTOM_TILING_DATA_H
#define ADD_CUSTOM_TILING_DATA_H

#include <cstdint>

struct AddCustomTilingData {
    uint32_t totalM;        // rows of x, y and z
    uint32_t totalN;        // columns (elements per row)
    uint32_t splitM;        // cores the rows are split over
    uint32_t dataCopyLen;   // elements per DataCopy and per Add
    uint32_t doubleBuffer;  // 0: one buffer set (serial), 1: ping-pong sets
    uint32_t reserved;
};

#endif  // ADD_CUSTOM_TILING_DATA_H

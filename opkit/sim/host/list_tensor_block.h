// The GM block of a dynamic (list) tensor, as CANN lays it out for a kernel and AscendC::ListTensorDesc
// (kernel_operator_list_tensor_intf.h) decodes it: 64-bit words,
//   word 0: the byte offset from the block's start to the table of data pointers;
//   then one descriptor per tensor: a word holding the tensor's dim count in the low 32 bits and its index
//   in the high 32 bits, followed by its dims (every tensor of a list has the same rank);
//   then the table of data pointers, one word per tensor.
// A list of rank-0 tensors carries no shapes: one descriptor (dim 0, the tensor count in the high 32 bits),
// one 0xffffffff word, then the pointers (the data-pointer offset is 24).
// Self-contained (the standard library only): the simulator's harness and the cann-cpu launcher both use it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace opkit {
namespace list_tensor {

// The block's words for tensors of `shapes` at `ptrs`; empty with *error set when the tensors' ranks differ.
inline std::vector<uint64_t> Block(const std::vector<std::vector<int64_t>>& shapes, const std::vector<uint64_t>& ptrs,
                                   std::string* error) {
    std::vector<uint64_t> w;
    const size_t n = shapes.size();
    const size_t dims = n ? shapes[0].size() : 0;
    for (const auto& s : shapes)
        if (s.size() != dims) {
            if (error) *error = "the tensors of a dynamic input must have one rank (ListTensorDesc)";
            return w;
        }
    w.push_back(0);
    if (n && dims == 0) {
        w.push_back(static_cast<uint64_t>(n) << 32);
        w.push_back(0xffffffffull);
    } else {
        for (size_t k = 0; k < n; ++k) {
            w.push_back(static_cast<uint64_t>(dims) | (static_cast<uint64_t>(k) << 32));
            for (size_t d = 0; d < dims; ++d) w.push_back(static_cast<uint64_t>(shapes[k][d]));
        }
    }
    w[0] = w.size() * sizeof(uint64_t);
    for (size_t k = 0; k < n; ++k) w.push_back(k < ptrs.size() ? ptrs[k] : 0);
    return w;
}

}  // namespace list_tensor
}  // namespace opkit

#pragma once
// The scratch convention of the kernels: device memory comes from the caller (only the runtime
// allocates GPU memory), and a kernel that needs several arrays carves them from one request at
// 256-byte boundaries (what CUB and vectorised loads want). nvcc-safe.
#include <cstddef>
#include <functional>

namespace gp {

// Device scratch for a GPU call: returns `bytes` of device memory on the call's stream, valid
// until the caller releases it after the call returns. A call may ask several times; sizes may
// depend on data seen so far (e.g. after counting).
using ScratchAllocator = std::function<void*(std::size_t bytes)>;

// `bytes` rounded up to the next 256-byte boundary: the offset of the next array carved from
// one scratch request.
constexpr std::size_t scratch_aligned(std::size_t bytes) { return (bytes + 255) & ~std::size_t(255); }

}  // namespace gp

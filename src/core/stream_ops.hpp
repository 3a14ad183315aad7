#pragma once
// The runtime's stream operations for kernel wrappers (the runtime is the one door to the CUDA
// memory and stream API): fills and copies queued on the caller's stream, and read-backs that
// bring device values to the host, which wait for the stream (a wrapper that calls one says in
// its header that it synchronises). Every call is checked; `what` names the caller's operation
// and sizes for the error. nvcc-safe: no host libraries.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "cuda/common/cuda_check.hpp"

namespace gp::stream_ops {

// `count` elements at `device` set to the byte `value` (0 and 0xff give 0 and all ones), queued.
template <class T>
void fill(T* device, int value, std::size_t count, cudaStream_t stream, const std::string& what) {
  if (count > 0) GP_CUDA_CHECK(cudaMemsetAsync(device, value, count * sizeof(T), stream), what);
}

// `count` elements from `src` to `dst` (device or pinned host memory, either way), queued.
template <class T>
void copy(T* dst, const T* src, std::size_t count, cudaStream_t stream, const std::string& what) {
  if (count > 0) GP_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDefault, stream), what);
}

// Returns when the stream's work so far is done.
inline void wait(cudaStream_t stream, const std::string& what) { GP_CUDA_CHECK(cudaStreamSynchronize(stream), what); }

// `count` elements from the device into host memory, after the stream's earlier work; waits.
template <class T>
void read_back(T* host, const T* device, std::size_t count, cudaStream_t stream, const std::string& what) {
  copy(host, device, count, stream, what);
  wait(stream, what);
}

// One value from the device, after the stream's earlier work; waits.
template <class T>
T read_back(const T* device, cudaStream_t stream, const std::string& what) {
  T host{};
  read_back(&host, device, 1, stream, what);
  return host;
}

}  // namespace gp::stream_ops

#pragma once
// Host <-> device copies through pinned chunks (StagingBuffer), for pageable or file-backed data.
#include <cstddef>
#include <functional>
#include <vector>

#include "core/gpu_runtime.hpp"

namespace gp {

// Copies between pageable host memory and the device through two pinned chunks: the CPU copies
// one chunk while the DMA engine moves the other. Per-item buffers can then stay pageable, which
// matters because pinning memory (cudaHostAlloc) costs about as much as decoding it. One per
// stream; both calls return when the host side of the copy is done.
class StagingBuffer {
 public:
  StagingBuffer() = default;
  StagingBuffer(Runtime& runtime, std::size_t chunk_bytes);
  void upload(const Stream& stream, void* device_dst, const void* host_src, std::size_t bytes);
  void download(const Stream& stream, void* host_dst, const void* device_src, std::size_t bytes);
  // The same with the host side given by callbacks, for data that is not in host memory (a file):
  // fill(chunk, offset, n) puts bytes [offset, offset + n) of the transfer into a pinned chunk;
  // drain(chunk, offset, n) takes them out. Chunks hold whole multiples of `unit` bytes (a
  // slice), at least one.
  using Fill = std::function<void(void* chunk, std::size_t offset, std::size_t bytes)>;
  using Drain = std::function<void(const void* chunk, std::size_t offset, std::size_t bytes)>;
  void upload_from(const Stream& stream, void* device_dst, std::size_t bytes, std::size_t unit, const Fill& fill);
  void download_to(const Stream& stream, const void* device_src, std::size_t bytes, std::size_t unit, const Drain& drain);

 private:
  std::size_t chunk_for(std::size_t unit) const { return unit >= chunk_ ? unit : chunk_ / unit * unit; }
  void grow(std::size_t bytes);  // chunks of at least `bytes`

  Runtime* runtime_ = nullptr;
  std::size_t chunk_ = 0;
  std::vector<PinnedBuffer> chunks_;
  std::vector<Event> done_;  // chunk k's DMA finished
};

}  // namespace gp

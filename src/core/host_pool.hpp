#pragma once
// Large pageable host buffers kept for reuse. A fresh buffer costs a page fault per 4 KiB on
// first touch, and freeing it an unmap that interrupts every core running one of our threads;
// decoded frames are tens of MB each, one after another, so reusing them is cheaper than either.
#include <cstddef>
#include <mutex>

#include "core/block_cache.hpp"

namespace gp {

class HostPool;

class HostBuffer {
 public:
  HostBuffer() = default;
  ~HostBuffer() { reset(); }
  HostBuffer(HostBuffer&& o) noexcept { *this = std::move(o); }
  HostBuffer& operator=(HostBuffer&& o) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  unsigned char* get() const { return ptr_; }
  std::size_t size() const { return bytes_; }
  void reset();  // back to the pool

 private:
  friend class HostPool;
  HostPool* owner_ = nullptr;
  unsigned char* ptr_ = nullptr;
  std::size_t bytes_ = 0, capacity_ = 0;
};

class HostPool {
 public:
  explicit HostPool(std::size_t cache_limit = std::size_t(4) << 30) : free_(cache_limit) {}
  ~HostPool();
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;

  // Not zeroed. Throws gp::Error when memory runs out.
  HostBuffer alloc(std::size_t bytes);

 private:
  friend class HostBuffer;
  void release(unsigned char* ptr, std::size_t capacity);
  std::mutex mutex_;
  BlockCache free_;
};

}  // namespace gp

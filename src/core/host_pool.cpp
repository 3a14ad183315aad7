#include "core/host_pool.hpp"

#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace gp {

HostBuffer& HostBuffer::operator=(HostBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    owner_ = o.owner_, ptr_ = o.ptr_, bytes_ = o.bytes_, capacity_ = o.capacity_;
    o.owner_ = nullptr, o.ptr_ = nullptr, o.bytes_ = o.capacity_ = 0;
  }
  return *this;
}

void HostBuffer::reset() {
  if (ptr_ && owner_) owner_->release(ptr_, capacity_);
  owner_ = nullptr, ptr_ = nullptr, bytes_ = capacity_ = 0;
}

HostPool::~HostPool() {
  for (auto& [capacity, ptr] : free_) std::free(ptr);
}

HostBuffer HostPool::alloc(std::size_t bytes) {
  HostBuffer b;
  b.owner_ = this;
  b.bytes_ = bytes;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Best fit among cached blocks, as long as it wastes no more than half of itself.
    auto it = free_.lower_bound(bytes);
    if (it != free_.end() && it->first <= 2 * bytes + 4096) {
      b.capacity_ = it->first, b.ptr_ = it->second;
      cached_ -= it->first;
      free_.erase(it);
      return b;
    }
  }
  b.capacity_ = bytes ? bytes : 1;
  b.ptr_ = static_cast<unsigned char*>(std::malloc(b.capacity_));
  if (!b.ptr_) throw Error("out of host memory allocating " + std::to_string(bytes >> 20) + " MiB");
  return b;
}

void HostPool::release(unsigned char* ptr, std::size_t capacity) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cached_ + capacity <= cache_limit_) {
    free_.emplace(capacity, ptr);
    cached_ += capacity;
  } else {
    std::free(ptr);
  }
}

}  // namespace gp

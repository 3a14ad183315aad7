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

HostPool::~HostPool() { free_.clear(std::free); }

HostBuffer HostPool::alloc(std::size_t bytes) {
  HostBuffer b;
  b.owner_ = this;
  b.bytes_ = bytes;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto [ptr, capacity] = free_.take(bytes);
    if (ptr) {
      b.ptr_ = static_cast<unsigned char*>(ptr), b.capacity_ = capacity;
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
  if (!free_.keep(ptr, capacity)) std::free(ptr);
}

}  // namespace gp

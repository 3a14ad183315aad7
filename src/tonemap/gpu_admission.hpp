#pragma once
// How many images may hold GPU working memory at once. Starts at the configured batch; an
// out-of-memory halves it (down to 1) and the image is retried, so a job that does not fit
// slows down instead of failing.
#include <condition_variable>
#include <mutex>

namespace gp::tonemap {

class GpuAdmission {
 public:
  explicit GpuAdmission(int limit) : limit_(limit < 1 ? 1 : limit) {}

  void acquire() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return in_use_ < limit_; });
    ++in_use_;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    --in_use_;
    cv_.notify_all();
  }
  // Called by a holder that ran out of memory. Returns false when already at 1 (nothing left
  // to shrink: the image does not fit on its own).
  bool shrink() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (limit_ == 1) return false;
    limit_ = limit_ / 2;
    return true;
  }
  // Waits, holding no slot, until no one holds one: every image admitted before the limit
  // shrank has finished. Holders must release first: two of them waiting for each other to
  // leave would wait forever.
  void wait_idle() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return in_use_ == 0; });
  }
  int limit() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return limit_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  int limit_;
  int in_use_ = 0;
};

}  // namespace gp::tonemap

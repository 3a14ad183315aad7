#pragma once
// The host-memory budget of a job (--host-memory-limit), kept like the GPU budget is: work that
// holds large host buffers (whole volumes) reserves them here first and, when the budget is
// spent, keeps its data elsewhere (segment-pnm's scratch files) instead of growing the process.
#include <atomic>
#include <cstdint>
#include <string>

namespace gp {

// Physical memory, or the cgroup's memory.max when lower (Slurm and containers cap jobs so).
std::uint64_t host_memory_available();

// The default budget: three quarters of host_memory_available().
std::uint64_t default_host_memory_limit();

// The process's resident set now, from /proc/self/statm (0 where unknown).
std::uint64_t current_rss_bytes();

class HostMemoryBudget {
 public:
  explicit HostMemoryBudget(std::uint64_t limit_bytes) : limit_(limit_bytes) {}
  HostMemoryBudget(const HostMemoryBudget&) = delete;
  HostMemoryBudget& operator=(const HostMemoryBudget&) = delete;

  // Takes `bytes` from the budget when that many are left; false (nothing taken) otherwise.
  bool try_reserve(std::uint64_t bytes);
  void release(std::uint64_t bytes);

  std::uint64_t limit() const { return limit_; }
  std::uint64_t reserved() const { return reserved_.load(); }
  std::uint64_t available() const {
    const std::uint64_t r = reserved_.load();
    return r < limit_ ? limit_ - r : 0;
  }
  std::uint64_t peak_reserved() const { return peak_.load(); }

 private:
  std::uint64_t limit_;
  std::atomic<std::uint64_t> reserved_{0}, peak_{0};
};

// A reservation already made (try_reserve), released when it goes out of scope (0 bytes: none).
class HostReservation {
 public:
  HostReservation() = default;
  HostReservation(HostMemoryBudget& budget, std::uint64_t bytes) : budget_(&budget), bytes_(bytes) {}
  HostReservation(HostReservation&& o) noexcept : budget_(o.budget_), bytes_(o.bytes_) { o.bytes_ = 0; }
  HostReservation& operator=(HostReservation&& o) noexcept {
    if (this != &o) {
      reset();
      budget_ = o.budget_, bytes_ = o.bytes_;
      o.bytes_ = 0;
    }
    return *this;
  }
  ~HostReservation() { reset(); }
  void reset() {
    if (budget_ && bytes_) budget_->release(bytes_);
    bytes_ = 0;
  }
  std::uint64_t bytes() const { return bytes_; }

 private:
  HostMemoryBudget* budget_ = nullptr;
  std::uint64_t bytes_ = 0;
};

}  // namespace gp

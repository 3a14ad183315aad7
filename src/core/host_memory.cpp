#include "core/host_memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace gp {

std::uint64_t host_memory_available() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_bytes = ::sysconf(_SC_PAGESIZE);
  std::uint64_t memory = pages > 0 && page_bytes > 0 ? std::uint64_t(pages) * std::uint64_t(page_bytes) : 0;
  // cgroup v2 ("max" = none) and v1.
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max") continue;
    try {
      const std::uint64_t cap = std::stoull(text);
      if (cap > 0 && (memory == 0 || cap < memory)) memory = cap;
    } catch (...) {
    }
  }
  return memory;
}

std::uint64_t default_host_memory_limit() { return host_memory_available() / 4 * 3; }

std::uint64_t current_rss_bytes() {
  std::ifstream in("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  const long page_bytes = ::sysconf(_SC_PAGESIZE);
  return resident * std::uint64_t(std::max(page_bytes, 1l));
}

bool HostMemoryBudget::try_reserve(std::uint64_t bytes) {
  std::uint64_t now = reserved_.load();
  do {
    if (bytes > limit_ || now > limit_ - bytes) return false;
  } while (!reserved_.compare_exchange_weak(now, now + bytes));
  std::uint64_t peak = peak_.load();
  while (now + bytes > peak && !peak_.compare_exchange_weak(peak, now + bytes)) {
  }
  return true;
}

void HostMemoryBudget::release(std::uint64_t bytes) { reserved_.fetch_sub(std::min(bytes, reserved_.load())); }

}  // namespace gp

#include "core/thread_priority.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace gp {
namespace {

// PRIO_PROCESS with a thread id addresses that one thread on Linux (each thread is a task).
id_t this_thread_id() { return id_t(syscall(SYS_gettid)); }

}  // namespace

int thread_nice_value() {
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, this_thread_id());
  return errno == 0 ? nice : 0;
}

bool lower_thread_priority(int steps) {
  const int target = std::min(19, thread_nice_value() + std::max(0, steps));
  return setpriority(PRIO_PROCESS, this_thread_id(), target) == 0;
}

}  // namespace gp

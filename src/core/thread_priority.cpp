#include "core/thread_priority.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>

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

namespace {
double clock_seconds(clockid_t clock) {
  timespec t{};
  return clock_gettime(clock, &t) == 0 ? double(t.tv_sec) + double(t.tv_nsec) * 1e-9 : 0.0;
}
}  // namespace

double thread_cpu_seconds() { return clock_seconds(CLOCK_THREAD_CPUTIME_ID); }
double process_cpu_seconds() { return clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }

}  // namespace gp

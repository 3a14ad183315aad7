#pragma once
// A small fork-join loop for the CPU path: splits [0, n) into contiguous chunks over the
// hardware threads. Header-only so CPU references next to kernels can use it.
#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace gp {

// Number of threads the CPU path uses; 0 = all hardware threads. Set once from --threads.
inline unsigned& cpu_threads_setting() {
  static unsigned n = 0;
  return n;
}

inline unsigned cpu_thread_count() {
  unsigned n = cpu_threads_setting();
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

// Calls body(begin, end) on disjoint ranges covering [0, n). Exceptions are rethrown (first wins).
template <class Body>
void parallel_for(long n, Body&& body, long min_chunk = 16) {
  if (n <= 0) return;
  long threads = std::min<long>(cpu_thread_count(), (n + min_chunk - 1) / min_chunk);
  if (threads <= 1) {
    body(0L, n);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  long chunk = (n + threads - 1) / threads;
  for (long t = 0; t < threads; ++t) {
    long b = t * chunk, e = std::min(n, b + chunk);
    if (b >= e) break;
    pool.emplace_back([&, t, b, e] {
      try {
        body(b, e);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Row loop of the CPU references of the per-pixel kernels: rows spread over threads, in chunks of
// at least ~16k pixels so that small images (thumbnails, small MIP levels) don't pay for threads.
template <class Body>
void for_each_row(int width, int height, Body&& body) {
  const long min_rows = std::max(1L, 16384L / std::max(width, 1));
  parallel_for(height, [&](long begin, long end) {
    for (long y = begin; y < end; ++y) body(int(y));
  }, min_rows);
}

}  // namespace gp

#pragma once
// Items of uneven cost (files to parse, slices to encode) over a few threads, handed out one at a
// time in index order.
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gp::io {

// Calls fn(i) for every i in [0, count) on up to `threads` threads. After an exception no new items
// start; once all threads stop, the exception of the lowest failed index is rethrown.
template <class Fn>
void for_each_item(int count, int threads, Fn&& fn) {
  threads = std::max(1, std::min(threads, count));
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  int failed_index = count;
  std::exception_ptr error;
  auto work = [&] {
    for (int i; !failed && (i = next++) < count;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (i < failed_index) failed_index = i, error = std::current_exception();
        failed = true;
      }
    }
  };
  if (threads == 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace gp::io

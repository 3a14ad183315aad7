#pragma once
// A blocking multi-producer/multi-consumer queue with a capacity: producers wait when it is full,
// which is what keeps memory bounded on 10,000-file batches.
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

namespace gp {

template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity ? capacity : 1) {}

  // Blocks while full; returns false when the queue was closed.
  bool push(T value) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(value));
    not_empty_.notify_one();
    return true;
  }

  // Never blocks: false when the queue is full or closed (the caller drops the value).
  bool try_push(T value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_ || items_.size() >= capacity_) return false;
    items_.push_back(std::move(value));
    not_empty_.notify_one();
    return true;
  }

  // Never blocks: the front value, or nullopt (then `closed` says whether more can come).
  std::optional<T> try_pop(bool& closed) {
    std::lock_guard<std::mutex> lock(mutex_);
    closed = closed_ && items_.empty();
    if (items_.empty()) return std::nullopt;
    T value = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return value;
  }

  // Never blocks: the front value if `take(front)` says so (it may also update the value), else
  // nullopt (then `closed` says whether more can come).
  template <class Take>
  std::optional<T> try_pop_if(Take&& take, bool& closed) {
    std::lock_guard<std::mutex> lock(mutex_);
    closed = closed_ && items_.empty();
    if (items_.empty() || !take(items_.front())) return std::nullopt;
    T value = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return value;
  }

  // Blocks while empty; nullopt once closed and drained.
  std::optional<T> pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T value = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return value;
  }

  // Blocks while empty, then takes what is there, up to `max` values (at least one); empty once
  // closed and drained. Lets a consumer batch whatever has piled up without waiting for more.
  std::vector<T> pop_up_to(std::size_t max) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    std::vector<T> values;
    while (!items_.empty() && values.size() < std::max<std::size_t>(1, max)) {
      values.push_back(std::move(items_.front()));
      items_.pop_front();
    }
    not_full_.notify_all();
    return values;
  }

  // No more pushes; consumers drain what is left.
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return items_.size();
  }

 private:
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable not_empty_, not_full_;
  std::deque<T> items_;
  bool closed_ = false;
};

// Counting semaphore (C++17 has none).
class Semaphore {
 public:
  explicit Semaphore(int count) : count_(count) {}
  void acquire() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return count_ > 0; });
    --count_;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++count_;
    cv_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int count_;
};

}  // namespace gp

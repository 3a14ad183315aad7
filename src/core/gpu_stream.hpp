#pragma once
// CUDA streams and events (RAII). Copies go through the Stream so only the runtime's files call
// the CUDA memory API.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace gp {

// RAII CUDA stream. Copies go through here so only the runtime calls the memory API.
class Stream {
 public:
  Stream() = default;  // null: CPU mode
  explicit Stream(int device);
  ~Stream();
  Stream(Stream&& o) noexcept;
  Stream& operator=(Stream&& o) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  explicit operator bool() const { return stream_ != nullptr; }
  void synchronize(const std::string& context = {}) const;
  void copy_to_device(void* dst, const void* src, std::size_t bytes) const;
  void copy_to_host(void* dst, const void* src, std::size_t bytes) const;
  void copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
               std::size_t row_bytes, std::size_t rows) const;  // any direction
  void memset(void* dst, int value, std::size_t bytes) const;

 private:
  cudaStream_t stream_ = nullptr;
};

// RAII CUDA event with timing.
class Event {
 public:
  Event();
  ~Event();
  Event(Event&& o) noexcept;
  Event& operator=(Event&& o) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(const Stream& s);
  void synchronize() const;
  float elapsed_ms_since(const Event& start) const;  // both recorded and complete
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace gp

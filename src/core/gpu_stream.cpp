#include "core/gpu_stream.hpp"

#include <fmt/format.h>

#include <string>

#include "core/text.hpp"
#include "cuda/common/cuda_check.hpp"

namespace gp {

// ---- stream and event -----------------------------------------------------------------------

Stream::Stream(int device) {
  GP_CUDA_CHECK(cudaSetDevice(device), "select GPU " + std::to_string(device));
  GP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "create stream");
}

Stream::~Stream() {
  if (stream_) cudaStreamDestroy(stream_);
}

Stream::Stream(Stream&& o) noexcept : stream_(o.stream_) { o.stream_ = nullptr; }

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (stream_) cudaStreamDestroy(stream_);
    stream_ = o.stream_;
    o.stream_ = nullptr;
  }
  return *this;
}

void Stream::synchronize(const std::string& context) const {
  if (stream_) GP_CUDA_CHECK(cudaStreamSynchronize(stream_), context.empty() ? "stream synchronize" : context);
}

void Stream::copy_to_device(void* dst, const void* src, std::size_t bytes) const {
  GP_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_), "upload " + mib_text(bytes));
}

void Stream::copy_to_host(void* dst, const void* src, std::size_t bytes) const {
  GP_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "download " + mib_text(bytes));
}

void Stream::copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                     std::size_t row_bytes, std::size_t rows) const {
  GP_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, rows, cudaMemcpyDefault, stream_),
                fmt::format("2-D copy of {} rows x {} bytes", rows, row_bytes));
}

void Stream::memset(void* dst, int value, std::size_t bytes) const {
  GP_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, stream_), "memset " + mib_text(bytes));
}

Event::Event() { GP_CUDA_CHECK(cudaEventCreate(&event_), "create event"); }
Event::~Event() {
  if (event_) cudaEventDestroy(event_);
}
Event::Event(Event&& o) noexcept : event_(o.event_) { o.event_ = nullptr; }
Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    if (event_) cudaEventDestroy(event_);
    event_ = o.event_;
    o.event_ = nullptr;
  }
  return *this;
}
void Event::record(const Stream& s) { GP_CUDA_CHECK(cudaEventRecord(event_, s.get()), "record event"); }
void Event::synchronize() const { GP_CUDA_CHECK(cudaEventSynchronize(event_), "event synchronize"); }
float Event::elapsed_ms_since(const Event& start) const {
  float ms = 0;
  GP_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_), "event elapsed time");
  return ms;
}

}  // namespace gp

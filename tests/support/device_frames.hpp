#pragma once
// A GPU test bench for the kernels that read video frames (segment-body, track-faces): one runtime
// and stream, device buffers kept alive for the test, and host frames uploaded with a padded pitch
// unlike the host's, so kernels that confuse the two pitches fail.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "support/test_frames.hpp"

namespace gp::test {

inline std::size_t padded_pitch(std::size_t row_bytes) { return (row_bytes + 64 + 255) / 256 * 256; }

class DeviceFrameBench {
 public:
  explicit DeviceFrameBench(const char* what) : what_(what), rt_(RuntimeOptions{}), stream_(rt_.make_stream()) {}
  cudaStream_t stream() const { return stream_.get(); }
  void sync() { stream_.synchronize(what_); }

  void* alloc(std::size_t bytes) {
    keep_.push_back(rt_.device_alloc(std::max<std::size_t>(bytes, 1), stream_, "test"));
    return keep_.back().get();
  }
  const std::uint8_t* upload_plane(const std::vector<std::uint8_t>& host, std::size_t host_pitch, int row_bytes,
                                   int rows, std::size_t& pitch) {
    pitch = padded_pitch(std::size_t(row_bytes));
    void* d = alloc(pitch * std::size_t(rows));
    stream_.copy_2d(d, pitch, host.data(), host_pitch, std::size_t(row_bytes), std::size_t(rows));
    return static_cast<const std::uint8_t*>(d);
  }
  frames::FrameSource upload(const HostYuvFrame& f) {
    frames::FrameSource d = f.frame();
    const int cw = frames::chroma_size(f.width), ch = frames::chroma_size(f.height);
    d.planes[0] = upload_plane(f.planes[0], f.pitch[0], f.width, f.height, d.pitches[0]);
    d.planes[1] = upload_plane(f.planes[1], f.pitch[1], cw, ch, d.pitches[1]);
    d.planes[2] = upload_plane(f.planes[2], f.pitch[2], cw, ch, d.pitches[2]);
    return d;
  }
  frames::FrameSource upload(const HostPackedFrame& f) {
    frames::FrameSource d = f.frame();
    d.planes[0] = upload_plane(f.data, f.pitch, f.width * f.channels, f.height, d.pitches[0]);
    return d;
  }
  template <class T>
  T* upload_vector(const std::vector<T>& host) {
    void* d = alloc(host.size() * sizeof(T));
    stream_.copy_to_device(d, host.data(), host.size() * sizeof(T));
    return static_cast<T*>(d);
  }
  template <class T>
  std::vector<T> download_vector(const void* d, std::size_t count) {
    std::vector<T> host(count);
    stream_.copy_to_host(host.data(), d, count * sizeof(T));
    sync();
    return host;
  }
  // Best of 5 timed runs (after a warm-up), in ms.
  template <class Run>
  double best_ms(Run&& run) {
    run();
    sync();
    double best = 1e30;
    for (int i = 0; i < 5; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      run();
      sync();
      best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
  }

 protected:
  Stream& raw_stream() { return stream_; }

 private:
  const char* what_;
  Runtime rt_;
  Stream stream_;
  std::vector<DeviceBuffer> keep_;
};

}  // namespace gp::test

#pragma once
// The one place that talks to the CUDA memory and stream API (with its neighbours: device
// choice in gpu_devices.hpp, streams and events in gpu_stream.hpp, staging in staging_buffer.hpp,
// graphs in cuda_graph.hpp). Stages get views and a Stream; buffers come from pools owned here so
// allocation cost and VRAM use are tracked in one place.
#include <cuda_runtime_api.h>

#include <atomic>
#include <functional>
#include <future>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/block_cache.hpp"
#include "core/error.hpp"
#include "core/gpu_devices.hpp"
#include "core/gpu_stream.hpp"

namespace gp {

class Runtime;

// Device memory from the stream-ordered pool; freed on the stream it was allocated on.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  std::size_t size() const { return bytes_; }
  void reset();

 private:
  friend class Runtime;
  Runtime* owner_ = nullptr;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;
};

// Page-locked host memory from the pinned pool (plain heap memory in CPU mode). Returned to the
// pool, not freed, when it goes out of scope: cudaHostAlloc is slow.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() { reset(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept { *this = std::move(o); }
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  std::size_t size() const { return bytes_; }  // usable size (at least what was asked)
  void reset();

 private:
  friend class Runtime;
  Runtime* owner_ = nullptr;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t capacity_ = 0;
};

struct MemoryStats {
  std::size_t device_in_use = 0, device_peak = 0, device_limit = 0;
  std::size_t device_total = 0, device_free = 0;  // from the driver, whole GPU
  std::size_t device_reserved = 0;  // held by the runtime's pool: in use, and freed but kept for reuse
  std::size_t pinned_in_use = 0, pinned_peak = 0, pinned_cached = 0;
  std::size_t oom_retries = 0;
};

// How a host thread waits for the GPU (stream and event synchronisation). CUDA's default with one
// context per process spins on a core until the GPU is done; a job whose cores are needed by other
// threads meanwhile (track-faces' video decoders) blocks instead, at a few microseconds per wait.
enum class GpuWait { spin, block };

struct RuntimeOptions {
  DeviceChoice device;
  GpuWait wait = GpuWait::spin;
  std::size_t gpu_memory_limit = 0;     // bytes; 0 = what the GPU has. Allocations past it fail
                                        // as out-of-memory (used to test the fallbacks).
  std::size_t pinned_cache_limit = std::size_t(4) << 30;  // pinned bytes kept for reuse
};

class Runtime {
 public:
  // Resolves the device choice: auto picks GPU 0 when one exists, else the CPU path.
  // cuda:N without such a GPU is a fatal error, thrown by gpu()/device() and what needs the GPU.
  // Asking the driver (0.1 s) and creating the context (a few tenths more) happen on a background
  // thread, so work that needs no GPU, such as decoding the first inputs, starts at once; every
  // call below waits for what it needs and rethrows a failure to get it.
  explicit Runtime(const RuntimeOptions& options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  bool gpu() const { return device() >= 0; }
  int device() const;  // -1 = the CPU path
  // A guess that never waits, for sizing worker pools before the driver has answered: the
  // device choice, and for auto whether the NVIDIA kernel driver lists a GPU. A wrong guess
  // costs speed, not correctness.
  bool gpu_expected() const;
  // Whether the GPU's context exists already (never waits): false while the driver is still
  // starting, on the CPU path, and when starting it failed.
  bool gpu_ready() const noexcept;
  std::string device_name() const;  // "cpu" or "cuda:0 (NVIDIA H100 80GB HBM3)"
  std::optional<GpuInfo> gpu_info() const;

  // Makes this runtime's device current on the calling thread (worker threads call it once;
  // the runtime's own CUDA calls below do it too, so one thread may serve several runtimes).
  void bind_thread() const;
  Stream make_stream() const;

  // Stream-ordered device allocation; throws GpuOutOfMemory when the pool or the limit is exhausted.
  DeviceBuffer device_alloc(std::size_t bytes, const Stream& stream, const std::string& what = {});
  PinnedBuffer pinned_alloc(std::size_t bytes);

  MemoryStats memory_stats() const;
  void note_oom_retry() { oom_retries_++; }
  void trim();  // return cached pool memory to the driver (after an out-of-memory)
  // Device memory a job can still take: what the driver reports free once the pool has given
  // its cached memory back, and no more than --gpu-memory-limit leaves (0 on the CPU path).
  std::size_t device_bytes_available();

 private:
  friend class DeviceBuffer;
  friend class PinnedBuffer;
  void device_free(void* ptr, std::size_t bytes, cudaStream_t stream);
  void wait_ready() const;  // the context exists (GPU mode); rethrows its creation's failure
  int device_or_cpu() const noexcept;  // device(), or -1 when choosing it failed (reports, teardown)
  void select_device() const noexcept;  // bind_thread without waiting or throwing (GPU chosen and ready)
  void pinned_release(void* ptr, std::size_t capacity);

  RuntimeOptions options_;
  std::shared_future<int> device_decided_;  // the device index, -1 = CPU
  cudaMemPool_t pool_ = nullptr;
  std::shared_future<void> ready_;
  std::atomic<std::size_t> device_in_use_{0}, device_peak_{0}, oom_retries_{0};
  mutable std::mutex pinned_mutex_;
  BlockCache pinned_free_;
  std::size_t pinned_in_use_ = 0, pinned_peak_ = 0;
};

}  // namespace gp

#pragma once
// The one place that talks to the CUDA memory and stream API. Stages get views and a Stream;
// buffers come from pools owned here so allocation cost and VRAM use are tracked in one place.
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

namespace gp {

class Runtime;

// What --device asked for: auto (GPU when present), cpu, or cuda:N.
struct DeviceChoice {
  enum class Kind { automatic, cpu, cuda } kind = Kind::automatic;
  int index = 0;
  static DeviceChoice parse(const std::string& text);  // throws UsageError
  std::string str() const;
};

// --device of the batch subcommands: one DeviceChoice as above, or several GPUs whose compute
// workers share the job's queue: "cuda:0,1" (cuda:N entries or bare indices after "cuda:"; an
// index may repeat, which gives one GPU two runtimes, as the tests do), or "cuda:all" / "all"
// (every GPU the driver lists). "auto" stays one GPU.
struct DeviceSelection {
  std::vector<DeviceChoice> devices;  // as written; empty only when all_gpus
  bool all_gpus = false;
  static DeviceSelection parse(const std::string& text);  // throws UsageError naming --device
  // The devices to run on; all_gpus: cuda:0 .. cuda:gpu_count-1 (GpuError when there is none).
  std::vector<DeviceChoice> resolve(int gpu_count) const;
};

struct GpuInfo {
  int index = -1;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::size_t total_bytes = 0, free_bytes = 0;
  int driver_version = 0, runtime_version = 0;
};

// Number of usable CUDA devices (0 without a driver or GPU; never throws).
int cuda_device_count();
std::vector<GpuInfo> list_gpus();

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

// Copies between pageable host memory and the device through two pinned chunks: the CPU copies
// one chunk while the DMA engine moves the other. Per-item buffers can then stay pageable, which
// matters because pinning memory (cudaHostAlloc) costs about as much as decoding it. One per
// stream; both calls return when the host side of the copy is done.
class StagingBuffer {
 public:
  StagingBuffer() = default;
  StagingBuffer(Runtime& runtime, std::size_t chunk_bytes);
  void upload(const Stream& stream, void* device_dst, const void* host_src, std::size_t bytes);
  void download(const Stream& stream, void* host_dst, const void* device_src, std::size_t bytes);
  // The same with the host side given by callbacks, for data that is not in host memory (a file):
  // fill(chunk, offset, n) puts bytes [offset, offset + n) of the transfer into a pinned chunk;
  // drain(chunk, offset, n) takes them out. Chunks hold whole multiples of `unit` bytes (a
  // slice), at least one.
  using Fill = std::function<void(void* chunk, std::size_t offset, std::size_t bytes)>;
  using Drain = std::function<void(const void* chunk, std::size_t offset, std::size_t bytes)>;
  void upload_from(const Stream& stream, void* device_dst, std::size_t bytes, std::size_t unit, const Fill& fill);
  void download_to(const Stream& stream, const void* device_src, std::size_t bytes, std::size_t unit, const Drain& drain);

 private:
  std::size_t chunk_for(std::size_t unit) const { return unit >= chunk_ ? unit : chunk_ / unit * unit; }
  void grow(std::size_t bytes);  // chunks of at least `bytes`

  Runtime* runtime_ = nullptr;
  std::size_t chunk_ = 0;
  std::vector<PinnedBuffer> chunks_;
  std::vector<Event> done_;  // chunk k's DMA finished
};

struct MemoryStats {
  std::size_t device_in_use = 0, device_peak = 0, device_limit = 0;
  std::size_t device_total = 0, device_free = 0;  // from the driver, whole GPU
  std::size_t pinned_in_use = 0, pinned_peak = 0, pinned_cached = 0;
  std::size_t oom_retries = 0;
};

struct RuntimeOptions {
  DeviceChoice device;
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

// A CUDA graph captured from the work one Stream enqueues, instantiated once and launched as often
// as needed (on any stream of the same device): kernel launch overhead then costs one launch per
// call instead of one per kernel. The captured work keeps the pointers it was recorded with, so
// whatever it reads and writes must stay where it was. Capture uses the thread-local mode, so
// other threads may allocate while one thread captures. Errors are GpuError with context.
class CudaGraph {
 public:
  CudaGraph() = default;  // empty: nothing to launch
  ~CudaGraph();
  CudaGraph(CudaGraph&& o) noexcept;
  CudaGraph& operator=(CudaGraph&& o) noexcept;
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  // Runs `enqueue` with `stream` in capture mode (it must only enqueue work on that stream:
  // kernel launches, async copies, no synchronisation), then instantiates the graph. If enqueue
  // throws, the capture is ended and discarded and the exception goes on; a capture CUDA
  // invalidated or cannot instantiate throws GpuError. `stream` is usable again either way.
  static CudaGraph capture(const Stream& stream, const std::function<void()>& enqueue, const std::string& what);

  // Enqueues the whole graph on `stream`.
  void launch(const Stream& stream) const;
  explicit operator bool() const { return exec_ != nullptr; }
  std::size_t node_count() const { return nodes_; }

 private:
  void reset() noexcept;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::size_t nodes_ = 0;
  std::string what_;
};

}  // namespace gp

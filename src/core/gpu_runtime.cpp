#include "core/gpu_runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <tuple>
#include <limits>

#include "core/text.hpp"
#include "core/trace.hpp"
#include "cuda/common/cuda_check.hpp"

namespace gp {
namespace {

void update_peak(std::atomic<std::size_t>& peak, std::size_t value) {
  std::size_t seen = peak.load();
  while (value > seen && !peak.compare_exchange_weak(seen, value)) {
  }
}

}  // namespace

// ---- buffers --------------------------------------------------------------------------------

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    owner_ = o.owner_;
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    stream_ = o.stream_;
    o.owner_ = nullptr;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

void DeviceBuffer::reset() {
  if (ptr_ && owner_) owner_->device_free(ptr_, bytes_, stream_);
  owner_ = nullptr;
  ptr_ = nullptr;
  bytes_ = 0;
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    owner_ = o.owner_;
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    capacity_ = o.capacity_;
    o.owner_ = nullptr;
    o.ptr_ = nullptr;
    o.bytes_ = o.capacity_ = 0;
  }
  return *this;
}

void PinnedBuffer::reset() {
  if (ptr_ && owner_) owner_->pinned_release(ptr_, capacity_);
  owner_ = nullptr;
  ptr_ = nullptr;
  bytes_ = capacity_ = 0;
}

// ---- runtime --------------------------------------------------------------------------------

namespace {

// The device a choice resolves to (-1 = the CPU path), given how many GPUs the driver sees.
int choose_device(const DeviceChoice& choice, int count) {
  switch (choice.kind) {
    case DeviceChoice::Kind::cpu: return -1;
    case DeviceChoice::Kind::automatic: return count > 0 ? 0 : -1;
    case DeviceChoice::Kind::cuda:
      if (choice.index >= count)
        throw GpuError(fmt::format("--device {}: {} CUDA device(s) available{}", choice.str(), count,
                                   count == 0 ? " (no GPU or no driver; use --device cpu)" : ""));
      return choice.index;
  }
  return -1;
}

}  // namespace

Runtime::Runtime(const RuntimeOptions& options) : options_(options), pinned_free_(options.pinned_cache_limit) {
  auto decided = std::make_shared<std::promise<int>>();
  device_decided_ = decided->get_future().share();
  if (options.device.kind == DeviceChoice::Kind::cpu) {
    decided->set_value(-1);
    return;
  }
  ready_ = std::async(std::launch::async, [this, decided] {
             int device = -1;
             try {
               ScopedStage timed("driver init");
               device = choose_device(options_.device, cuda_device_count());
             } catch (...) {
               decided->set_exception(std::current_exception());
               throw;
             }
             decided->set_value(device);
             if (device < 0) return;
             ScopedStage timed("gpu context");
             GP_CUDA_CHECK(cudaSetDevice(device), "select GPU " + std::to_string(device));  // creates the context
             if (options_.wait == GpuWait::block)  // replaces the context's flags (CUDA 12+: also once it exists)
               GP_CUDA_CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync), "make GPU waits block");
             GP_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool_, device), "get default memory pool");
             // Keep freed blocks in the pool: batches reuse the same sizes, and returning memory to
             // the driver between items would cost a synchronising cudaFree each time.
             std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
             GP_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep),
                           "configure memory pool");
           }).share();
}

int Runtime::device() const { return device_decided_.get(); }

bool Runtime::gpu_ready() const noexcept {
  const auto now = [](const auto& future) { return future.wait_for(std::chrono::seconds(0)) == std::future_status::ready; };
  try {
    if (!now(device_decided_) || device_decided_.get() < 0) return false;
    if (ready_.valid()) {
      if (!now(ready_)) return false;
      ready_.get();  // (rethrows a failure)
    }
    return true;
  } catch (...) {
    return false;
  }
}

int Runtime::device_or_cpu() const noexcept {
  try {
    return device();
  } catch (...) {  // the choice failed; whoever needed the GPU has reported it
    return -1;
  }
}

bool Runtime::gpu_expected() const {
  switch (options_.device.kind) {
    case DeviceChoice::Kind::cpu: return false;
    case DeviceChoice::Kind::cuda: return true;
    case DeviceChoice::Kind::automatic: break;
  }
  // The NVIDIA kernel driver lists its GPUs here; reading it takes microseconds, not cuInit's 0.1 s.
  std::error_code ec;
  return std::filesystem::exists("/proc/driver/nvidia/gpus", ec) &&
         !std::filesystem::is_empty("/proc/driver/nvidia/gpus", ec);
}

void Runtime::wait_ready() const {
  if (ready_.valid()) ready_.get();
}

void Runtime::select_device() const noexcept {
  const int device = device_or_cpu();
  if (device < 0) return;
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == device) return;
  if (cudaSetDevice(device) != cudaSuccess) cudaGetLastError();  // the call that needs it reports the error
}

Runtime::~Runtime() {
  if (ready_.valid()) ready_.wait();
  const bool used_gpu = device_or_cpu() >= 0;
  if (used_gpu) select_device();  // the job's other runtimes may have left theirs current
  if (used_gpu) cudaDeviceSynchronize();
  std::lock_guard<std::mutex> lock(pinned_mutex_);
  pinned_free_.clear([&](void* ptr) {
    if (used_gpu)
      cudaFreeHost(ptr);
    else
      std::free(ptr);
  });
}

std::string Runtime::device_name() const {
  if (device_or_cpu() < 0) return "cpu";
  auto info = gpu_info();
  return fmt::format("cuda:{} ({})", device_or_cpu(), info ? info->name : "?");
}

std::optional<GpuInfo> Runtime::gpu_info() const {
  if (device_or_cpu() < 0) return std::nullopt;
  for (auto& g : list_gpus())
    if (g.index == device_or_cpu()) return g;
  return std::nullopt;
}

void Runtime::bind_thread() const {
  if (!gpu()) return;
  wait_ready();
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == device()) return;  // cheap: no driver call
  GP_CUDA_CHECK(cudaSetDevice(device()), "select GPU " + std::to_string(device()));
}

Stream Runtime::make_stream() const {
  if (!gpu()) return Stream();
  wait_ready();
  return Stream(device());
}

DeviceBuffer Runtime::device_alloc(std::size_t bytes, const Stream& stream, const std::string& what) {
  if (!gpu()) throw GpuError("device_alloc on the CPU path (" + what + ")");
  bind_thread();
  const std::size_t in_use = device_in_use_.fetch_add(bytes) + bytes;
  if (options_.gpu_memory_limit && in_use > options_.gpu_memory_limit) {
    device_in_use_ -= bytes;
    throw GpuOutOfMemory(fmt::format("GPU memory limit reached allocating {} for {} ({} in use of --gpu-memory-limit {})",
                                     mib_text(bytes), what.empty() ? "a buffer" : what, mib_text(in_use - bytes),
                                     mib_text(options_.gpu_memory_limit)),
                         bytes);
  }
  void* ptr = nullptr;
  cudaError_t err = cudaMallocFromPoolAsync(&ptr, bytes, pool_, stream.get());
  if (err != cudaSuccess) {
    device_in_use_ -= bytes;
    cudaGetLastError();
    if (err == cudaErrorMemoryAllocation)
      throw GpuOutOfMemory(fmt::format("out of GPU memory allocating {} for {} ({} in use by this job)", mib_text(bytes),
                                       what.empty() ? "a buffer" : what, mib_text(in_use - bytes)),
                           bytes);
    throw_cuda_error(err, "cudaMallocFromPoolAsync", __FILE__, __LINE__, what);
  }
  update_peak(device_peak_, in_use);
  DeviceBuffer b;
  b.owner_ = this;
  b.ptr_ = ptr;
  b.bytes_ = bytes;
  b.stream_ = stream.get();
  return b;
}

void Runtime::device_free(void* ptr, std::size_t bytes, cudaStream_t stream) {
  // Stream-ordered: the block becomes reusable once the stream's queued work has finished with it.
  select_device();  // freed from save threads, which serve every device of the job
  cudaFreeAsync(ptr, stream);
  device_in_use_ -= bytes;
}

PinnedBuffer Runtime::pinned_alloc(std::size_t bytes) {
  PinnedBuffer b;
  b.owner_ = this;
  b.bytes_ = bytes;
  {
    std::lock_guard<std::mutex> lock(pinned_mutex_);
    std::tie(b.ptr_, b.capacity_) = pinned_free_.take(bytes);
  }
  if (!b.ptr_) {
    b.capacity_ = bytes;
    if (gpu()) {
      bind_thread();  // else a thread that never chose a GPU would create a context on GPU 0
      ScopedStage timed("pinned alloc");  // pinning pages is slow: worth seeing in the report
      cudaError_t err = cudaHostAlloc(&b.ptr_, bytes, cudaHostAllocPortable);
      if (err != cudaSuccess) {
        cudaGetLastError();
        b.ptr_ = nullptr;
        throw GpuError(fmt::format("could not allocate {} of pinned host memory: {}", mib_text(bytes), cudaGetErrorString(err)));
      }
    } else {
      b.ptr_ = std::malloc(bytes ? bytes : 1);
      if (!b.ptr_) throw Error(fmt::format("out of host memory allocating {}", mib_text(bytes)));
    }
  }
  std::lock_guard<std::mutex> lock(pinned_mutex_);
  pinned_in_use_ += b.capacity_;
  pinned_peak_ = std::max(pinned_peak_, pinned_in_use_);
  return b;
}

void Runtime::pinned_release(void* ptr, std::size_t capacity) {
  std::lock_guard<std::mutex> lock(pinned_mutex_);
  pinned_in_use_ -= capacity;
  if (pinned_free_.keep(ptr, capacity)) return;
  if (gpu()) {
    select_device();
    cudaFreeHost(ptr);
  } else {
    std::free(ptr);
  }
}

MemoryStats Runtime::memory_stats() const {
  MemoryStats s;
  s.device_in_use = device_in_use_;
  s.device_peak = device_peak_;
  s.device_limit = options_.gpu_memory_limit;
  s.oom_retries = oom_retries_;
  if (device_or_cpu() >= 0 && ready_.valid() && ready_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    select_device();
    if (cudaMemGetInfo(&s.device_free, &s.device_total) != cudaSuccess) cudaGetLastError();
    std::uint64_t reserved = 0;
    if (cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess)
      s.device_reserved = std::size_t(reserved);
    else
      cudaGetLastError();
  }
  std::lock_guard<std::mutex> lock(pinned_mutex_);
  s.pinned_in_use = pinned_in_use_;
  s.pinned_peak = pinned_peak_;
  s.pinned_cached = pinned_free_.cached_bytes();
  return s;
}

void Runtime::trim() {
  if (!gpu()) return;
  bind_thread();
  // Waits for queued frees, then hands unused pool memory back to the driver.
  GP_CUDA_CHECK(cudaDeviceSynchronize(), "synchronize before trimming the memory pool");
  GP_CUDA_CHECK(cudaMemPoolTrimTo(pool_, 0), "trim memory pool");
}

std::size_t Runtime::device_bytes_available() {
  if (!gpu()) return 0;
  trim();
  const MemoryStats m = memory_stats();
  std::size_t available = m.device_free;
  if (options_.gpu_memory_limit)
    available = std::min(available, options_.gpu_memory_limit - std::min(options_.gpu_memory_limit, m.device_in_use));
  return available;
}

}  // namespace gp

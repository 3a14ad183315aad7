#include "core/gpu_runtime.hpp"

#include "core/parallel_for.hpp"

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

#include "core/parallel_for.hpp"
#include "core/trace.hpp"
#include "cuda/common/cuda_check.hpp"

namespace gp {
namespace {

std::string mib(std::size_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

void update_peak(std::atomic<std::size_t>& peak, std::size_t value) {
  std::size_t seen = peak.load();
  while (value > seen && !peak.compare_exchange_weak(seen, value)) {
  }
}

}  // namespace

// ---- device choice --------------------------------------------------------------------------

DeviceChoice DeviceChoice::parse(const std::string& text) {
  DeviceChoice c;
  if (text == "auto" || text.empty()) return c;
  if (text == "cpu") {
    c.kind = Kind::cpu;
    return c;
  }
  if (text == "cuda" || text == "gpu") {
    c.kind = Kind::cuda;
    return c;
  }
  if (text.rfind("cuda:", 0) == 0) {
    const std::string n = text.substr(5);
    char* end = nullptr;
    long v = std::strtol(n.c_str(), &end, 10);
    if (!n.empty() && end && *end == '\0' && v >= 0 && v < 1024) {
      c.kind = Kind::cuda;
      c.index = int(v);
      return c;
    }
  }
  throw UsageError("--device: expected auto, cpu or cuda:N, got \"" + text + "\"");
}

std::string DeviceChoice::str() const {
  switch (kind) {
    case Kind::automatic: return "auto";
    case Kind::cpu: return "cpu";
    case Kind::cuda: return "cuda:" + std::to_string(index);
  }
  return "auto";
}

DeviceSelection DeviceSelection::parse(const std::string& text) {
  auto bad = [&] {
    return UsageError("--device: expected auto, cpu, cuda:N, a list of GPUs such as cuda:0,1, or all, got \"" + text + "\"");
  };
  DeviceSelection selection;
  if (text == "all" || text == "cuda:all") {
    selection.all_gpus = true;
    return selection;
  }
  if (text.find(',') == std::string::npos) {
    try {
      selection.devices.push_back(DeviceChoice::parse(text));
    } catch (const UsageError&) {
      throw bad();
    }
    return selection;
  }
  // A list: "cuda:" then indices, each bare or as cuda:N ("cuda:0,1", "cuda:0,cuda:1").
  if (text.rfind("cuda:", 0) != 0) throw bad();
  const std::string list = text.substr(5);
  for (std::size_t begin = 0;;) {
    const std::size_t comma = list.find(',', begin);
    std::string entry = list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    if (entry.rfind("cuda:", 0) != 0) entry = "cuda:" + entry;
    try {
      selection.devices.push_back(DeviceChoice::parse(entry));  // "cuda:" alone (an empty entry) fails
    } catch (const UsageError&) {
      throw bad();
    }
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return selection;
}

std::vector<DeviceChoice> DeviceSelection::resolve(int gpu_count) const {
  if (!all_gpus) return devices;
  if (gpu_count <= 0) throw GpuError("--device all: no CUDA device (no GPU or no driver; use --device cpu)");
  std::vector<DeviceChoice> out;
  for (int i = 0; i < gpu_count; ++i) {
    DeviceChoice gpu;
    gpu.kind = DeviceChoice::Kind::cuda;
    gpu.index = i;
    out.push_back(gpu);
  }
  return out;
}

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error so later queries start clean
    return 0;
  }
  return n;
}

std::vector<GpuInfo> list_gpus() {
  std::vector<GpuInfo> gpus;
  int count = cuda_device_count();
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    GP_CUDA_CHECK(cudaGetDeviceProperties(&prop, i), "query GPU " + std::to_string(i));
    GpuInfo g;
    g.index = i;
    g.name = prop.name;
    g.cc_major = prop.major;
    g.cc_minor = prop.minor;
    g.sm_count = prop.multiProcessorCount;
    g.total_bytes = prop.totalGlobalMem;
    g.driver_version = driver;
    g.runtime_version = runtime;
    int previous = 0;
    cudaGetDevice(&previous);
    if (cudaSetDevice(i) == cudaSuccess) {
      std::size_t free_b = 0, total_b = 0;
      if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) g.free_bytes = free_b;
      cudaSetDevice(previous);
    }
    gpus.push_back(g);
  }
  return gpus;
}

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
  GP_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_), "upload " + mib(bytes));
}

void Stream::copy_to_host(void* dst, const void* src, std::size_t bytes) const {
  GP_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "download " + mib(bytes));
}

void Stream::copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                     std::size_t row_bytes, std::size_t rows) const {
  GP_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, rows, cudaMemcpyDefault, stream_),
                fmt::format("2-D copy of {} rows x {} bytes", rows, row_bytes));
}

void Stream::memset(void* dst, int value, std::size_t bytes) const {
  GP_CUDA_CHECK(cudaMemsetAsync(dst, value, bytes, stream_), "memset " + mib(bytes));
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
             GP_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool_, device), "get default memory pool");
             // Keep freed blocks in the pool: batches reuse the same sizes, and returning memory to
             // the driver between items would cost a synchronising cudaFree each time.
             std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
             GP_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep),
                           "configure memory pool");
           }).share();
}

int Runtime::device() const { return device_decided_.get(); }

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
                                     mib(bytes), what.empty() ? "a buffer" : what, mib(in_use - bytes),
                                     mib(options_.gpu_memory_limit)),
                         bytes);
  }
  void* ptr = nullptr;
  cudaError_t err = cudaMallocFromPoolAsync(&ptr, bytes, pool_, stream.get());
  if (err != cudaSuccess) {
    device_in_use_ -= bytes;
    cudaGetLastError();
    if (err == cudaErrorMemoryAllocation)
      throw GpuOutOfMemory(fmt::format("out of GPU memory allocating {} for {} ({} in use by this job)", mib(bytes),
                                       what.empty() ? "a buffer" : what, mib(in_use - bytes)),
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
        throw GpuError(fmt::format("could not allocate {} of pinned host memory: {}", mib(bytes), cudaGetErrorString(err)));
      }
    } else {
      b.ptr_ = std::malloc(bytes ? bytes : 1);
      if (!b.ptr_) throw Error(fmt::format("out of host memory allocating {}", mib(bytes)));
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

namespace {

// Host copies into and out of the pinned chunks, on several cores for large chunks: one core
// copies (and faults in fresh pages) at a few GB/s, well below what the DMA engine moves.
void copy_host(void* dst, const void* src, std::size_t bytes) {
  constexpr long piece = long(4) << 20;
  parallel_for((long(bytes) + piece - 1) / piece, [&](long p0, long p1) {
    const std::size_t begin = std::size_t(p0) * piece, end = std::min(bytes, std::size_t(p1) * piece);
    std::memcpy(static_cast<unsigned char*>(dst) + begin, static_cast<const unsigned char*>(src) + begin, end - begin);
  }, 1);
}

}  // namespace

StagingBuffer::StagingBuffer(Runtime& runtime, std::size_t chunk_bytes) : runtime_(&runtime), chunk_(chunk_bytes) {
  for (int k = 0; k < 2; ++k) {
    chunks_.push_back(runtime.pinned_alloc(chunk_bytes));
    done_.emplace_back();
  }
}

void StagingBuffer::grow(std::size_t bytes) {
  if (bytes <= chunk_) return;
  for (int k = 0; k < 2; ++k) {
    done_[k].synchronize();
    chunks_[k] = runtime_->pinned_alloc(bytes);
  }
  chunk_ = bytes;
}

void StagingBuffer::upload(const Stream& stream, void* device_dst, const void* host_src, std::size_t bytes) {
  const auto* src = static_cast<const unsigned char*>(host_src);
  upload_from(stream, device_dst, bytes, 1,
              [&](void* chunk, std::size_t at, std::size_t n) { copy_host(chunk, src + at, n); });
}

void StagingBuffer::download(const Stream& stream, void* host_dst, const void* device_src, std::size_t bytes) {
  auto* dst = static_cast<unsigned char*>(host_dst);
  download_to(stream, device_src, bytes, 1,
              [&](const void* chunk, std::size_t at, std::size_t n) { copy_host(dst + at, chunk, n); });
}

void StagingBuffer::upload_from(const Stream& stream, void* device_dst, std::size_t bytes, std::size_t unit,
                                const Fill& fill) {
  grow(unit);
  const std::size_t chunk = chunk_for(std::max<std::size_t>(unit, 1));
  auto* dst = static_cast<unsigned char*>(device_dst);
  for (std::size_t at = 0, k = 0; at < bytes; at += chunk, ++k) {
    const std::size_t n = std::min(chunk, bytes - at);
    Event& free_again = done_[k % 2];
    free_again.synchronize();  // this chunk's previous DMA has read it
    fill(chunks_[k % 2].get(), at, n);
    stream.copy_to_device(dst + at, chunks_[k % 2].get(), n);
    free_again.record(stream);
  }
}

void StagingBuffer::download_to(const Stream& stream, const void* device_src, std::size_t bytes, std::size_t unit,
                                const Drain& drain) {
  grow(unit);
  const std::size_t chunk = chunk_for(std::max<std::size_t>(unit, 1));
  const auto* src = static_cast<const unsigned char*>(device_src);
  // Chunk k's DMA is queued before chunk k-1 is drained, so the two overlap.
  std::size_t pending_at = 0, pending_n = 0, k = 0;
  auto drain_slot = [&](std::size_t slot) {
    done_[slot].synchronize();
    drain(chunks_[slot].get(), pending_at, pending_n);
  };
  for (std::size_t at = 0; at < bytes; at += chunk, ++k) {
    const std::size_t n = std::min(chunk, bytes - at);
    done_[k % 2].synchronize();  // not still being filled for an earlier chunk
    stream.copy_to_host(chunks_[k % 2].get(), src + at, n);
    done_[k % 2].record(stream);
    if (k > 0) drain_slot((k - 1) % 2);
    pending_at = at, pending_n = n;
  }
  if (k > 0) drain_slot((k - 1) % 2);
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

// ---- CUDA graph -----------------------------------------------------------------------------

CudaGraph::~CudaGraph() { reset(); }

CudaGraph::CudaGraph(CudaGraph&& o) noexcept { *this = std::move(o); }

CudaGraph& CudaGraph::operator=(CudaGraph&& o) noexcept {
  if (this != &o) {
    reset();
    graph_ = o.graph_;
    exec_ = o.exec_;
    nodes_ = o.nodes_;
    what_ = std::move(o.what_);
    o.graph_ = nullptr;
    o.exec_ = nullptr;
    o.nodes_ = 0;
  }
  return *this;
}

void CudaGraph::reset() noexcept {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (graph_) cudaGraphDestroy(graph_);
  exec_ = nullptr;
  graph_ = nullptr;
  nodes_ = 0;
}

CudaGraph CudaGraph::capture(const Stream& stream, const std::function<void()>& enqueue, const std::string& what) {
  if (!stream) throw GpuError("CUDA graph capture of " + what + " needs a GPU stream");
  GP_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal), "begin capture of " + what);
  CudaGraph out;
  out.what_ = what;
  try {
    enqueue();
  } catch (...) {
    // End the capture so the stream is usable again; the partial graph is discarded.
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream.get(), &partial);
    if (partial) cudaGraphDestroy(partial);
    cudaGetLastError();  // an invalidated capture leaves its error behind
    throw;
  }
  // A failed capture (an unsupported call invalidates it) leaves its error as the last error;
  // cleared here so that the caller's next launch check does not report it again.
  auto check = [&](cudaError_t err, const char* call, const std::string& context) {
    if (err == cudaSuccess) return;
    cudaGetLastError();
    throw_cuda_error(err, call, __FILE__, __LINE__, context);
  };
  check(cudaStreamEndCapture(stream.get(), &out.graph_), "cudaStreamEndCapture", "end capture of " + what);
  check(cudaGraphGetNodes(out.graph_, nullptr, &out.nodes_), "cudaGraphGetNodes", "count nodes of " + what);
  check(cudaGraphInstantiate(&out.exec_, out.graph_, 0), "cudaGraphInstantiate", "instantiate graph of " + what);
  return out;
}

void CudaGraph::launch(const Stream& stream) const {
  if (!exec_) throw GpuError("launch of an empty CUDA graph");
  GP_CUDA_CHECK(cudaGraphLaunch(exec_, stream.get()), "launch graph of " + what_);
}

}  // namespace gp

#pragma once
// Out-of-core building blocks: a volume's slices moved to the GPU one Z-slab at a time, each with
// the halo slices its stage reads, within a device-memory budget. The whole volumes stay in
// VolumeStores (host memory or scratch files). Copies go through pinned staging chunks. Two
// lanes (stream, staging, buffers) per GPU let a stage prepare slab k + 1 (host copies in,
// kernels queued) before it collects slab k, so the GPU computes one slab while the host moves
// another's data; each lane synchronises only its own stream, once per slab. With several GPUs
// each takes a contiguous run of a stage's slabs on a host thread of its own.
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/gpu_runtime.hpp"
#include "core/staging_buffer.hpp"
#include "cuda/pnm/volume_view.hpp"
#include "io/volume.hpp"
#include "pnm/volume_store.hpp"

namespace gp::pnm {

struct SlabRange {
  int begin = 0, end = 0;  // slices [begin, end)
  int index = 0;           // in its plan: stages keep per-slab results by it (GPUs finish out of order)
  int depth() const { return end - begin; }
};

// [begin - halo, end + halo) clipped to the volume's nz slices (the same index).
SlabRange with_halo(SlabRange r, int halo, int nz);

// Slabs covering [0, nz), how many may be on one GPU at once (1 or 2), and which GPU takes which:
// slabs [first_of_gpu[g], first_of_gpu[g + 1]) run on GPU g.
struct SlabPlan {
  std::vector<SlabRange> slabs;
  int in_flight = 1;
  std::vector<std::size_t> first_of_gpu;

  struct Indices {
    std::size_t begin, end;  // slab indices [begin, end)
  };
  Indices slabs_of(int gpu) const { return {first_of_gpu[std::size_t(gpu)], first_of_gpu[std::size_t(gpu) + 1]}; }
  // Voxels of GPU `gpu`'s slabs with `halo` slices each side (clipped to nz slices of `plane`
  // voxels): all of them together, and the deepest one's (what budgets of kept slabs weigh).
  struct HeldVoxels {
    double total = 0, deepest = 0;
  };
  HeldVoxels held_voxels(int gpu, int halo, int nz, std::size_t plane) const;
};

// A stream with its staging buffer and the device buffers of the slab it works on.
class SlabLane {
 public:
  SlabLane(Runtime& runtime, const io::Dims3& dims, const std::string& stage);

  // Uninitialised slabs of slices `held`; they live until release().
  template <class T>
  VolumeView<T> allocate(SlabRange held, const char* what) {
    auto* data = static_cast<T*>(allocate_bytes(voxels_of(held) * sizeof(T), what));
    return {data, dims_.nx, dims_.ny, dims_.nz, held.begin, held.depth()};
  }
  // Slices `range` of a device view into the host volume (returns when they are there).
  template <class T>
  void download(T* host_volume, VolumeView<const T> view, SlabRange range) {
    copy_down(host_volume + offset_of(range.begin), view.data + view.offset(0, 0, range.begin),
              voxels_of(range) * sizeof(T));
  }
  // Slabs from and to a volume store (host memory, scratch file or input file), through the
  // pinned staging chunks a few slices at a time; an uploaded slab lives until release().
  template <class T>
  VolumeView<T> upload(const VolumeStore<T>& store, SlabRange held, const char* what) {
    VolumeView<T> view = allocate<T>(held, what);
    upload_into(store, view);
    return view;
  }
  // Slices view.z_first .. of a store into a device view already allocated (part of a larger one).
  template <class T>
  void upload_into(const VolumeStore<T>& store, VolumeView<T> view) {
    const std::size_t first = offset_of(view.z_first), bytes = view.held_voxels() * sizeof(T);
    if (const T* data = store.resident()) return copy_up(view.data, data + first, bytes);
    staging_.upload_from(stream_, view.data, bytes, slice_bytes<T>(), [&](void* chunk, std::size_t at, std::size_t n) {
      store.read(first + at / sizeof(T), n / sizeof(T), static_cast<T*>(chunk));
    });
  }
  template <class T>
  void download(VolumeStore<T>& store, VolumeView<const T> view, SlabRange range) {
    if (T* data = store.resident()) return download<T>(data, view, range);
    const std::size_t first = offset_of(range.begin);
    staging_.download_to(stream_, view.data + view.offset(0, 0, range.begin), voxels_of(range) * sizeof(T),
                         slice_bytes<T>(), [&](const void* chunk, std::size_t at, std::size_t bytes) {
                           store.write(first + at / sizeof(T), bytes / sizeof(T), static_cast<const T*>(chunk));
                         });
  }
  // Plain byte copies for buffers of another shape (slabs along y).
  void copy_up(void* device, const void* host, std::size_t bytes) { staging_.upload(stream_, device, host, bytes); }
  void copy_down(void* host, const void* device, std::size_t bytes) { staging_.download(stream_, host, device, bytes); }
  void* allocate_bytes(std::size_t bytes, const char* what);

  ScratchAllocator scratch();
  // Waits for the stream, then frees every slab and scratch buffer.
  void release();
  // Waits for the stream (before another lane uses a buffer allocated here, stream-ordered).
  void synchronize();
  cudaStream_t stream() const { return stream_.get(); }

 private:
  std::size_t offset_of(int z) const { return std::size_t(z) * dims_.nx * dims_.ny; }
  template <class T>
  std::size_t slice_bytes() const {
    return dims_.slice_voxels() * sizeof(T);
  }
  std::size_t voxels_of(SlabRange r) const { return std::size_t(r.depth()) * dims_.nx * dims_.ny; }

  Runtime& runtime_;
  io::Dims3 dims_;
  const std::string& stage_;
  Stream stream_;
  StagingBuffer staging_;
  std::vector<DeviceBuffer> buffers_;
};

// Told where a long out-of-core run is ("watershed: run 7, slab 3 of 6"), for the progress.
using StepReporter = std::function<void(const std::string&)>;

class SlabDevice {
 public:
  // One GPU per runtime (a runtime may repeat: one GPU, two shares, as the tests do); the budget
  // is each GPU's.
  SlabDevice(const std::vector<Runtime*>& runtimes, const io::Dims3& dims, std::size_t budget_bytes);
  ~SlabDevice();                           // each GPU's lanes go with that GPU current
  SlabDevice(const SlabDevice&) = delete;  // the lanes refer to stage_
  SlabDevice& operator=(const SlabDevice&) = delete;

  int gpus() const { return int(gpus_.size()); }

  // [0, nz) in slabs as deep as fit in the budget with `bytes_per_voxel` of device memory for
  // every held voxel, halo slices included: two at a time for pipelined() where they fit, else
  // one (in_flight 1 also when `pipelining` is false). With several GPUs at least one slab each,
  // in contiguous runs of as many slices. Throws GpuOutOfMemory naming the stage when not even
  // one slice with its halo fits.
  // `set_aside` bytes of the budget are left out (held by the stage for longer than a slab).
  SlabPlan plan(double bytes_per_voxel, int halo, bool pipelining = true, std::size_t set_aside = 0) const;
  // The budget in whole units of `unit_bytes` (for slabs along y: columns of nz voxels).
  std::size_t units_in_budget(double unit_bytes) const;
  // The running stage's budget.
  std::size_t budget_bytes() const { return budget_; }
  // Progress: each slab pipelined() finishes is reported as "<stage>: slab k of n".
  void set_step_reporter(StepReporter reporter) { report_ = std::move(reporter); }
  void report(const std::string& text) {
    std::lock_guard<std::mutex> lock(report_mutex_);
    if (report_) report_(text);
  }

  // The lanes of GPU `gpu`: the first for stages that take one slab at a time, a second for work
  // beside it.
  SlabLane& lane(int k = 0, int gpu = 0) { return gpus_[std::size_t(gpu)]->lanes[k]; }

  // body(gpu) for every GPU at once, each on a host thread of its own with its GPU current (one
  // GPU: on this thread). Every body finishes before the first exception is rethrown; a body
  // should check stopping() between slabs to end early when another failed.
  template <class Body>
  void on_each_gpu(Body&& body) {
    if (gpus_.size() == 1) return body(0);
    stop_ = false;
    std::vector<std::exception_ptr> errors(gpus_.size());
    std::vector<std::thread> threads;
    for (std::size_t g = 0; g < gpus_.size(); ++g)
      threads.emplace_back([&, g] {
        try {
          name_gpu_thread(int(g));
          body(int(g));
        } catch (...) {
          errors[g] = std::current_exception();
          stop_ = true;
        }
      });
    for (std::thread& t : threads) t.join();
    bind(0);
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }
  bool stopping() const { return stop_; }

  // prepare(lane, slab) uploads a slab and queues its kernels, returning what finish(lane, slab,
  // prepared) needs to collect the results. With two slabs in flight, slab k + 1 is prepared on
  // the other lane before slab k is finished. With several GPUs each runs its own slabs, so the
  // callbacks run on several threads at once and must keep per-slab results by SlabRange::index.
  template <class Prepare, class Finish>
  void pipelined(const SlabPlan& plan, Prepare&& prepare, Finish&& finish) {
    using Prepared = decltype(prepare(lane(0), SlabRange{}));
    std::atomic<std::size_t> done{0};
    on_each_gpu([&](int g) {
      const std::size_t first = plan.slabs_of(g).begin, last = plan.slabs_of(g).end;
      const std::size_t lanes = plan.in_flight > 1 ? 2 : 1;
      std::optional<Prepared> prepared[2];
      for (std::size_t k = first; k < last && !stop_; ++k) {
        const std::size_t at = (k - first) % lanes, next = (k - first + 1) % lanes;
        if (k == first || lanes == 1) prepared[at].emplace(prepare(lane(int(at), g), plan.slabs[k]));
        if (lanes == 2 && k + 1 < last) prepared[next].emplace(prepare(lane(int(next), g), plan.slabs[k + 1]));
        finish(lane(int(at), g), plan.slabs[k], *prepared[at]);
        lane(int(at), g).release();
        report(stage_ + ": slab " + std::to_string(++done) + " of " + std::to_string(plan.slabs.size()));
        prepared[at].reset();
      }
    });
  }

  // Runs a stage; when the GPU runs out of memory anyway (the per-voxel figures are estimates),
  // frees the stage's buffers and runs it again in slabs half as deep, down to one slice.
  // `body` must start from its inputs each time.
  template <class Body>
  void run_stage(const char* stage, Body&& body) {
    stage_ = stage;
    budget_ = full_budget_;
    for (int halvings = 0;; ++halvings) {
      try {
        body();
        return;
      } catch (const GpuOutOfMemory& e) {
        release_all();
        if (halvings == max_halvings) throw;
        retries_.push_back(stage_ + ": " + e.what());
        budget_ /= 2;
      }
    }
  }
  // What the stages that ran out anyway ran out on.
  const std::vector<std::string>& retries() const { return retries_; }

 private:
  struct Gpu {
    Runtime& runtime;
    SlabLane lanes[2];
  };
  void bind(int gpu) const { gpus_[std::size_t(gpu)]->runtime.bind_thread(); }
  void name_gpu_thread(int gpu) const;  // binds it too
  void release_all();

  io::Dims3 dims_;
  std::size_t budget_;  // of the running stage, per GPU
  std::size_t full_budget_;
  std::string stage_;
  std::vector<std::unique_ptr<Gpu>> gpus_;
  std::vector<std::string> retries_;
  StepReporter report_;
  std::mutex report_mutex_;
  std::atomic<bool> stop_{false};
  static constexpr int max_halvings = 6;
};

}  // namespace gp::pnm

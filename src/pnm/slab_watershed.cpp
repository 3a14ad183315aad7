// The watershed over Z-slabs (slab_stages.hpp). Between runs each slab's boundary slices of the
// flooding state (key and label) are kept on the host, and, where they fit, every slab's mask and
// flooded map on the device, and where those leave room, its whole flooding state too ("warm").
// A slab runs from its initial state (or, warm, from its latest state) with its neighbours'
// latest boundary slices as a fixed halo. When a slab's first or last slice changes, the neighbour
// across it runs again. Relaxation only ever lowers keys towards the unique fixed point of
// watershed.hpp, and a halo only ever lowers them too, so the order of the runs and the state a run
// starts from do not matter and the result equals the in-core one.
#include <algorithm>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/trace.hpp"
#include "cuda/pnm/watershed.hpp"
#include "pnm/slab_stages.hpp"

namespace gp::pnm {
namespace {

// One slice of flooding state.
struct SliceState {
  std::vector<std::uint64_t> key;
  std::vector<std::uint32_t> label;
  bool operator==(const SliceState& o) const { return key == o.key && label == o.label; }
  bool operator!=(const SliceState& o) const { return !(*this == o); }
};

SliceState download_slice(SlabLane& lane, const VolumeView<std::uint64_t>& key, const VolumeView<std::uint32_t>& label,
                          int z) {
  SliceState s;
  const std::size_t plane = key.slice_voxels();
  s.key.resize(plane);
  s.label.resize(plane);
  lane.copy_down(s.key.data(), key.data + key.offset(0, 0, z), plane * sizeof(std::uint64_t));
  lane.copy_down(s.label.data(), label.data + label.offset(0, 0, z), plane * sizeof(std::uint32_t));
  return s;
}

void upload_slice(SlabLane& lane, const SliceState& s, const VolumeView<std::uint64_t>& key,
                  const VolumeView<std::uint32_t>& label, int z) {
  lane.copy_up(key.data + key.offset(0, 0, z), s.key.data(), s.key.size() * sizeof(std::uint64_t));
  lane.copy_up(label.data + label.offset(0, 0, z), s.label.data(), s.label.size() * sizeof(std::uint32_t));
}

// The marker volume of slices `held` on the device, from the sorted marker list.
void place_slab_markers(SlabLane& lane, const Markers& markers, SlabRange held, const VolumeView<std::uint32_t>& slab,
                        std::size_t plane) {
  const std::uint64_t first = std::uint64_t(held.begin) * plane, last = std::uint64_t(held.end) * plane;
  const auto lo = std::lower_bound(markers.voxels.begin(), markers.voxels.end(), first);
  const auto hi = std::lower_bound(lo, markers.voxels.end(), last);
  std::vector<std::uint64_t> voxels(lo, hi);
  for (auto& v : voxels) v -= first;
  const std::size_t at = std::size_t(lo - markers.voxels.begin());
  std::vector<std::uint32_t> labels(markers.labels.begin() + std::ptrdiff_t(at),
                                    markers.labels.begin() + std::ptrdiff_t(at + voxels.size()));
  place_markers_gpu(voxels, labels, whole_volume(slab.data, slab.nx, slab.ny, held.depth()), lane.scratch(),
                    lane.stream());
}

}  // namespace

int watershed_slabs(SlabDevice& device, const VolumeStore<std::uint8_t>& mask, const FloodedMap& flooded,
                    const Markers& markers, VolumeStore<std::uint32_t>& labels) {
  const io::Dims3& dims = mask.dims();
  const int nz = dims.nz;
  const std::size_t plane = dims.slice_voxels();
  // Per held voxel: the inputs (mask and flooded map), what smoothing the map takes, and a run's
  // state (markers, key and label, the relaxation's tile flags). One slab at a time on each GPU:
  // a slab's halo is its neighbours' state.
  const double input_bytes = 1 + 4, smoothing_bytes = flooded.working_bytes_per_voxel(), state_bytes = 4 + 8 + 4 + 1;
  const int halo = 1 + flooded.halo();
  SlabPlan plan = device.plan(input_bytes + smoothing_bytes + state_bytes, halo, false);
  // Every slab's inputs stay on its GPU between runs (held by the second lane) when each GPU's
  // share fits beside one slab's state without more than one more slab: a run is then its
  // relaxation only, where it would upload its slab's mask and distance and smooth them again.
  const std::size_t share_slices = std::size_t(nz + device.gpus() - 1) / std::size_t(device.gpus());
  const std::size_t cache_bytes = std::size_t(input_bytes * double(share_slices * plane) * 1.05);
  bool cached = false;
  if (cache_bytes < device.budget_bytes()) {
    try {
      SlabPlan thinner = device.plan(std::max(state_bytes, smoothing_bytes), halo, false, cache_bytes);
      bool fits = thinner.slabs.size() <= plan.slabs.size() + std::size_t(device.gpus());
      for (int g = 0; g < device.gpus(); ++g)
        fits = fits && input_bytes * thinner.held_voxels(g, 1, nz, plane).total <= double(cache_bytes);
      if (fits) {
        plan = std::move(thinner);
        cached = true;
      }
    } catch (const GpuOutOfMemory&) {  // not even one slice beside the inputs: not cached
    }
  }
  const std::vector<SlabRange>& slabs = plan.slabs;
  const std::size_t n = slabs.size();
  // With the inputs kept, each slab's flooding state (markers, key, label) stays on its GPU too
  // when every GPU's slabs have room for theirs beside the inputs and one relaxation's scratch: a
  // slab then reruns from its latest state with its neighbours' new boundary slices, a few passes
  // (the halo only ever lowers keys, so the fixed point is the same), instead of flooding the whole
  // slab again from the initial state.
  const double kept_state_bytes = 4 + 8 + 4, relax_scratch_bytes = 1;
  bool warm = cached;
  for (int g = 0; warm && g < device.gpus(); ++g) {
    const SlabPlan::HeldVoxels held = plan.held_voxels(g, 1, nz, plane);
    warm = held.total * (input_bytes + kept_state_bytes) * 1.02 +
               held.deepest * (relax_scratch_bytes + smoothing_bytes) <=
           double(device.budget_bytes());
  }
  struct SlabInputs {
    VolumeView<std::uint8_t> mask;
    VolumeView<float> map;
  };
  struct SlabState {  // warm: kept from run to run
    VolumeView<std::uint32_t> markers, label;
    VolumeView<std::uint64_t> key;
    bool initialised = false;
  };
  std::vector<SlabInputs> inputs(n);
  std::vector<SlabState> states(n);
  if (cached)
    device.on_each_gpu([&](int g) {
      SlabLane& lane = device.lane(0, g);
      SlabLane& holder = device.lane(1, g);
      const SlabPlan::Indices own = plan.slabs_of(g);
      for (std::size_t s = own.begin; s < own.end; ++s) {
        const SlabRange held = with_halo(slabs[s], 1, nz);
        inputs[s] = {holder.allocate<std::uint8_t>(held, "segment-pnm mask slab (kept)"),
                     holder.allocate<float>(held, "segment-pnm flooded map slab (kept)")};
        if (warm)
          states[s] = {holder.allocate<std::uint32_t>(held, "segment-pnm markers slab (kept)"),
                       holder.allocate<std::uint32_t>(held, "segment-pnm labels slab (kept)"),
                       holder.allocate<std::uint64_t>(held, "segment-pnm flooding keys slab (kept)")};
      }
      holder.synchronize();  // allocated in the holder's stream order; filled on the lane's
      for (std::size_t s = own.begin; s < own.end; ++s) {
        lane.upload_into(mask, inputs[s].mask);
        flooded.fill(lane, inputs[s].map);
        lane.release();
      }
    });

  // What the runs share, under `mutex`: which slabs wait to run, run, have their labels written,
  // and each slab's boundary slices (replaced whole, so a run reads its halo without copying).
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<bool> pending(n, true), running(n, false), labels_current(n, false);
  std::vector<std::shared_ptr<const SliceState>> first_slice(n), last_slice(n);
  bool failed = false;
  int runs = 0;
  auto none_pending = [&] { return std::find(pending.begin(), pending.end(), true) == pending.end(); };
  auto busy = [&](std::size_t s) { return pending[s] || running[s]; };

  // One run of slab s on GPU g (marked running, under the lock) from its initial state with its
  // neighbours' latest boundary slices as halo. Its labels are written on a final run or when no
  // neighbour waits to run or runs (the halo it saw is then likely final), which saves writing
  // the labels of runs that a neighbour's change makes stale.
  auto run = [&](int g, std::size_t s, bool final_run, std::unique_lock<std::mutex>& lock) {
    const int run_number = ++runs;
    const bool write_labels = final_run || (!(s > 0 && busy(s - 1)) && !(s + 1 < n && busy(s + 1)));
    const std::shared_ptr<const SliceState> below = s > 0 ? last_slice[s - 1] : nullptr;
    const std::shared_ptr<const SliceState> above = s + 1 < n ? first_slice[s + 1] : nullptr;
    const std::shared_ptr<const SliceState> own_first = first_slice[s], own_last = last_slice[s];
    lock.unlock();
    device.report("watershed: run " + std::to_string(run_number) + ", slab " + std::to_string(s + 1) + " of " +
                  std::to_string(n));
    SlabLane& lane = device.lane(0, g);
    const SlabRange r = slabs[s], held = with_halo(r, 1, nz);
    // Spans for the report's stage table: where a run's time goes.
    std::optional<ScopedStage> span(std::in_place, "watershed.init");
    const auto m = cached ? inputs[s].mask : lane.upload(mask, held, "segment-pnm mask slab");
    const auto d = cached ? inputs[s].map : flooded.upload(lane, held, "segment-pnm flooded map slab");
    SlabState& state = states[s];
    const auto mk = warm ? state.markers : lane.allocate<std::uint32_t>(held, "segment-pnm markers slab");
    const auto key = warm ? state.key : lane.allocate<std::uint64_t>(held, "segment-pnm flooding keys slab");
    const auto label = warm ? state.label : lane.allocate<std::uint32_t>(held, "segment-pnm labels slab");
    if (!state.initialised) {
      place_slab_markers(lane, markers, held, mk, plane);
      watershed_init_gpu(m, d, mk, key, label, lane.stream());
      state.initialised = warm;
    }
    // Before its first run a slab's boundary is its initial state (what init gives a neighbour's
    // halo too).
    auto initial_first = own_first, initial_last = own_last;
    if (!own_first) {
      initial_first = std::make_shared<SliceState>(download_slice(lane, key, label, r.begin));
      initial_last = std::make_shared<SliceState>(download_slice(lane, key, label, r.end - 1));
    }
    if (below) upload_slice(lane, *below, key, label, r.begin - 1);
    if (above) upload_slice(lane, *above, key, label, r.end);
    lane.synchronize();
    span.emplace("watershed.relax");
    watershed_relax_gpu(m, d, mk, key, label, r.begin, r.end, lane.scratch(), lane.stream());
    lane.synchronize();
    if (write_labels) {
      span.emplace("watershed.labels");
      lane.download<std::uint32_t>(labels, label, r);
    }
    span.emplace("watershed.boundaries");
    auto first = std::make_shared<const SliceState>(download_slice(lane, key, label, r.begin));
    auto last = std::make_shared<const SliceState>(download_slice(lane, key, label, r.end - 1));
    lane.release();
    span.reset();
    lock.lock();
    running[s] = false;
    labels_current[s] = write_labels;
    if (s > 0 && *first != *initial_first) pending[s - 1] = true;
    if (s + 1 < n && *last != *initial_last) pending[s + 1] = true;
    first_slice[s] = std::move(first);
    last_slice[s] = std::move(last);
    changed.notify_all();
  };
  // GPU g's slabs until no slab of any GPU waits or runs. Sweeps alternate direction so a basin
  // crossing many slabs propagates in few sweeps.
  auto relax = [&](int g) {
    const std::size_t first = plan.slabs_of(g).begin, last = plan.slabs_of(g).end;
    auto own_pending = [&] {
      for (std::size_t s = first; s < last; ++s)
        if (pending[s]) return true;
      return false;
    };
    auto quiet = [&] { return none_pending() && std::find(running.begin(), running.end(), true) == running.end(); };
    std::unique_lock<std::mutex> lock(mutex);
    for (bool forward = true;; forward = !forward) {
      bool ran = false;
      for (std::size_t k = first; k < last && !failed; ++k) {
        const std::size_t s = forward ? k : last - 1 - (k - first);
        if (!pending[s]) continue;
        pending[s] = false;
        running[s] = true;
        run(g, s, false, lock);
        ran = true;
      }
      if (failed) return;
      if (!ran) {
        changed.wait(lock, [&] { return failed || own_pending() || quiet(); });
        if (failed || !own_pending()) return;
      }
    }
  };
  // A failed GPU wakes the others, which stop.
  auto guarded = [&](const std::function<void(int)>& body) {
    device.on_each_gpu([&](int g) {
      try {
        body(g);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        failed = true;
        changed.notify_all();
        throw;
      }
    });
  };
  do {
    guarded(relax);
    // Every slab's latest run saw its neighbours' final boundaries (a change would have made it
    // run again), so running again the slabs whose labels were not written gives their final
    // ones (and the same boundaries: nothing becomes pending).
    guarded([&](int g) {
      std::unique_lock<std::mutex> lock(mutex);
      const SlabPlan::Indices own = plan.slabs_of(g);
      for (std::size_t s = own.begin; s < own.end && !failed; ++s)
        if (!labels_current[s]) {
          running[s] = true;
          run(g, s, true, lock);
        }
    });
  } while (!none_pending());
  for (int g = 0; g < device.gpus(); ++g) device.lane(1, g).release();
  return runs;
}

}  // namespace gp::pnm

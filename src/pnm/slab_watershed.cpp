// The watershed over Z-slabs (slab_stages.hpp). Between runs only each slab's boundary slices of
// the flooding state (key and label) are kept, and, where they fit, every slab's mask and flooded
// map on the device. A slab runs from its initial state with its neighbours' latest boundary
// slices as a fixed halo. When a slab's first or last slice changes, the neighbour across it runs
// again. Relaxation only ever lowers keys towards the unique fixed point of watershed.hpp, so the
// order of the runs does not matter and the result equals the in-core one.
#include <algorithm>
#include <vector>

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

// A slab's first and last slices after its latest run (or as initialised, before it ran).
struct Boundary {
  SliceState first, last;
  bool known = false;
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
  // state (markers, key and label, the relaxation's tile flags). One slab at a time: a slab's
  // halo is its neighbours' state.
  const double input_bytes = 1 + 4, smoothing_bytes = flooded.working_bytes_per_voxel(), state_bytes = 4 + 8 + 4 + 1;
  const int halo = 1 + flooded.halo();
  std::vector<SlabRange> slabs = device.plan(input_bytes + smoothing_bytes + state_bytes, halo, false).slabs;
  // Every slab's inputs stay on the device between runs (held by the second lane) when they fit
  // beside one slab's state without more than one more slab: a run is then its relaxation only,
  // where it would upload its slab's mask and distance and smooth them again.
  const std::size_t cache_bytes = std::size_t(input_bytes * double(dims.voxels()) * 1.05);
  bool cached = false;
  if (cache_bytes < device.budget_bytes()) {
    try {
      auto thinner = device.plan(std::max(state_bytes, smoothing_bytes), halo, false, cache_bytes).slabs;
      double held_bytes = 0;
      for (const SlabRange& r : thinner) held_bytes += input_bytes * double(with_halo(r, 1, nz).depth()) * double(plane);
      if (held_bytes <= double(cache_bytes) && thinner.size() <= slabs.size() + 1) {
        slabs = std::move(thinner);
        cached = true;
      }
    } catch (const GpuOutOfMemory&) {  // not even one slice beside the inputs: not cached
    }
  }
  SlabLane& lane = device.lane(0);
  SlabLane& holder = device.lane(1);
  struct SlabInputs {
    VolumeView<std::uint8_t> mask;
    VolumeView<float> map;
  };
  std::vector<SlabInputs> inputs(slabs.size());
  if (cached) {
    for (std::size_t s = 0; s < slabs.size(); ++s) {
      const SlabRange held = with_halo(slabs[s], 1, nz);
      inputs[s] = {holder.allocate<std::uint8_t>(held, "segment-pnm mask slab (kept)"),
                   holder.allocate<float>(held, "segment-pnm flooded map slab (kept)")};
    }
    holder.synchronize();  // allocated in the holder's stream order; filled on the lane's
    for (std::size_t s = 0; s < slabs.size(); ++s) {
      lane.upload_into(mask, inputs[s].mask);
      flooded.fill(lane, inputs[s].map);
      lane.release();
    }
  }

  std::vector<bool> pending(slabs.size(), true), labels_current(slabs.size(), false);
  std::vector<Boundary> boundary(slabs.size());
  int runs = 0;
  // One run of slab s from its initial state with its neighbours' latest boundary slices as halo.
  // Its labels are written only when asked (its neighbours then wait for no run: the halo it saw
  // is likely final), which saves writing the labels of runs that a neighbour's change makes stale.
  auto run = [&](std::size_t s, bool write_labels) {
    ++runs;
    device.report("watershed: run " + std::to_string(runs) + ", slab " + std::to_string(s + 1) + " of " +
                  std::to_string(slabs.size()));
    const SlabRange r = slabs[s], held = with_halo(r, 1, nz);
    const auto m = cached ? inputs[s].mask : lane.upload(mask, held, "segment-pnm mask slab");
    const auto d = cached ? inputs[s].map : flooded.upload(lane, held, "segment-pnm flooded map slab");
    const auto mk = lane.allocate<std::uint32_t>(held, "segment-pnm markers slab");
    place_slab_markers(lane, markers, held, mk, plane);
    const auto key = lane.allocate<std::uint64_t>(held, "segment-pnm flooding keys slab");
    const auto label = lane.allocate<std::uint32_t>(held, "segment-pnm labels slab");
    watershed_init_gpu(m, d, mk, key, label, lane.stream());
    Boundary& own = boundary[s];
    if (!own.known) {
      own.first = download_slice(lane, key, label, r.begin);
      own.last = download_slice(lane, key, label, r.end - 1);
      own.known = true;
    }
    // The halo: the neighbours' latest boundary slices (their initial state until they ran,
    // which is what init gave them here).
    if (s > 0 && boundary[s - 1].known) upload_slice(lane, boundary[s - 1].last, key, label, r.begin - 1);
    if (s + 1 < slabs.size() && boundary[s + 1].known) upload_slice(lane, boundary[s + 1].first, key, label, r.end);
    watershed_relax_gpu(m, d, mk, key, label, r.begin, r.end, lane.scratch(), lane.stream());
    if (write_labels) lane.download<std::uint32_t>(labels, label, r);
    labels_current[s] = write_labels;
    SliceState first = download_slice(lane, key, label, r.begin), last = download_slice(lane, key, label, r.end - 1);
    lane.release();
    if (s > 0 && first != own.first) pending[s - 1] = true;
    if (s + 1 < slabs.size() && last != own.last) pending[s + 1] = true;
    own.first = std::move(first);
    own.last = std::move(last);
  };
  auto any_pending = [&] { return std::find(pending.begin(), pending.end(), true) != pending.end(); };
  do {
    // Sweeps alternate direction so a basin crossing many slabs propagates in few sweeps.
    for (bool forward = true; any_pending(); forward = !forward) {
      for (std::size_t k = 0; k < slabs.size(); ++k) {
        const std::size_t s = forward ? k : slabs.size() - 1 - k;
        if (!pending[s]) continue;
        pending[s] = false;
        run(s, !(s > 0 && pending[s - 1]) && !(s + 1 < slabs.size() && pending[s + 1]));
      }
    }
    // Every slab's latest run saw its neighbours' final boundaries (a change would have made it
    // run again), so running again the slabs whose labels were not written gives their final
    // ones (and the same boundaries: nothing becomes pending).
    for (std::size_t s = 0; s < slabs.size(); ++s)
      if (!labels_current[s]) run(s, true);
  } while (any_pending());
  holder.release();
  return runs;
}

}  // namespace gp::pnm

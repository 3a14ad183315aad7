// The watershed over Z-slabs (slab_stages.hpp). Between runs only each slab's boundary slices of
// the flooding state (key and label) are kept; a slab runs from its initial state with its
// neighbours' latest boundary slices as a fixed halo. When a slab's first or last slice changes,
// the neighbour across it runs again. Relaxation only ever lowers keys towards the unique fixed
// point of watershed.hpp, so the order of the runs does not matter and the result equals the
// in-core one.
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
  const int nz = mask.dims().nz;
  const std::size_t plane = mask.dims().slice_voxels();
  // Mask, flooded map (and what smoothing it takes), markers, key and label, and the relaxation's
  // tile flags. One slab at a time: a slab's halo is its neighbours' state.
  const auto slabs =
      device.plan(1 + 4 + flooded.working_bytes_per_voxel() + 4 + 8 + 4 + 1, 1 + flooded.halo(), false).slabs;
  SlabLane& lane = device.lane();
  std::vector<bool> pending(slabs.size(), true);
  std::vector<Boundary> boundary(slabs.size());
  int runs = 0;
  // Sweeps alternate direction so a basin crossing many slabs propagates in few sweeps.
  for (bool forward = true; std::find(pending.begin(), pending.end(), true) != pending.end(); forward = !forward) {
    for (std::size_t k = 0; k < slabs.size(); ++k) {
      const std::size_t s = forward ? k : slabs.size() - 1 - k;
      if (!pending[s]) continue;
      pending[s] = false;
      ++runs;
      device.report("watershed: run " + std::to_string(runs) + ", slab " + std::to_string(s + 1) + " of " +
                    std::to_string(slabs.size()));
      const SlabRange r = slabs[s], held = with_halo(r, 1, nz);
      const auto m = lane.upload(mask, held, "segment-pnm mask slab");
      const auto d = flooded.upload(lane, held, "segment-pnm flooded map slab");
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
      lane.download<std::uint32_t>(labels, label, r);
      SliceState first = download_slice(lane, key, label, r.begin), last = download_slice(lane, key, label, r.end - 1);
      lane.release();
      if (s > 0 && first != own.first) pending[s - 1] = true;
      if (s + 1 < slabs.size() && last != own.last) pending[s + 1] = true;
      own.first = std::move(first);
      own.last = std::move(last);
    }
  }
  return runs;
}

}  // namespace gp::pnm

// The watershed over Z-slabs (slab_stages.hpp). The flooding state (key and label per voxel)
// lives on the host; a slab is relaxed on the GPU with its neighbours' boundary slices as a fixed
// halo. When a slab's first or last slice changes, the neighbour across it runs again. Relaxation
// only ever lowers keys towards the unique fixed point of watershed.hpp, so the order of the
// runs does not matter and the result equals the in-core one.
#include <algorithm>
#include <cstring>
#include <vector>

#include "cuda/pnm/watershed.hpp"
#include "pnm/slab_stages.hpp"

namespace gp::pnm {
namespace {

template <class T>
bool slice_changed(const T* before, const T* after, std::size_t voxels) {
  return std::memcmp(before, after, voxels * sizeof(T)) != 0;
}

}  // namespace

int watershed_slabs(SlabDevice& device, VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                    VolumeView<const std::uint32_t> markers, VolumeView<std::uint32_t> labels) {
  const int nz = mask.nz;
  const std::size_t plane = mask.slice_voxels();
  HostVolume<std::uint64_t> key(mask.held_voxels());
  const auto key_view = whole_volume(key.data(), mask.nx, mask.ny, nz);
  watershed_init_cpu(mask, distance, markers, key_view, labels);

  // Mask, distance, markers, key and label, and the relaxation's tile flags.
  // One slab at a time: a slab's halo is its neighbours' state.
  const auto slabs = device.plan(1 + 4 + 4 + 8 + 4 + 1, 1, false).slabs;
  SlabLane& lane = device.lane();
  std::vector<bool> pending(slabs.size(), true);
  std::vector<std::uint64_t> key_before(2 * plane);
  std::vector<std::uint32_t> label_before(2 * plane);
  int runs = 0;
  // Sweeps alternate direction so a basin crossing many slabs propagates in few sweeps.
  for (bool forward = true; std::find(pending.begin(), pending.end(), true) != pending.end(); forward = !forward) {
    for (std::size_t k = 0; k < slabs.size(); ++k) {
      const std::size_t s = forward ? k : slabs.size() - 1 - k;
      if (!pending[s]) continue;
      pending[s] = false;
      ++runs;
      const SlabRange r = slabs[s], held = with_halo(r, 1, nz);
      const std::size_t first = std::size_t(r.begin) * plane, last = std::size_t(r.end - 1) * plane;
      std::copy_n(key.data() + first, plane, key_before.data());
      std::copy_n(key.data() + last, plane, key_before.data() + plane);
      std::copy_n(labels.data + first, plane, label_before.data());
      std::copy_n(labels.data + last, plane, label_before.data() + plane);

      const auto m = lane.upload<std::uint8_t>(mask.data, held, "segment-pnm mask slab");
      const auto d = lane.upload<float>(distance.data, held, "segment-pnm distance slab");
      const auto mk = lane.upload<std::uint32_t>(markers.data, held, "segment-pnm markers slab");
      const auto k_dev = lane.upload<std::uint64_t>(key.data(), held, "segment-pnm flooding keys slab");
      const auto l_dev = lane.upload<std::uint32_t>(labels.data, held, "segment-pnm labels slab");
      const int passes = watershed_relax_gpu(m, d, mk, k_dev, l_dev, r.begin, r.end, lane.scratch(), lane.stream());
      if (passes > 1) {
        lane.download<std::uint64_t>(key.data(), k_dev, r);
        lane.download<std::uint32_t>(labels.data, l_dev, r);
      }
      lane.release();
      if (passes == 1) continue;
      if (s > 0 && (slice_changed(key_before.data(), key.data() + first, plane) ||
                    slice_changed(label_before.data(), labels.data + first, plane)))
        pending[s - 1] = true;
      if (s + 1 < slabs.size() && (slice_changed(key_before.data() + plane, key.data() + last, plane) ||
                                   slice_changed(label_before.data() + plane, labels.data + last, plane)))
        pending[s + 1] = true;
    }
  }
  return runs;
}

}  // namespace gp::pnm

// fill_enclosed over Z-slabs (slab_stages.hpp). A slab's components get labels 1..K_s on the GPU;
// label l of slab s is component offset_s + l of a union-find over all slabs, which joins the
// components that touch across each slab boundary and marks those on a face of the volume.
#include <algorithm>
#include <mutex>
#include <numeric>
#include <vector>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "cuda/pnm/components.hpp"
#include "pnm/slab_stages.hpp"

namespace gp::pnm {
namespace {

class UnionFind {
 public:
  explicit UnionFind(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  std::uint32_t find(std::uint32_t a) {
    while (parent_[a] != a) a = parent_[a] = parent_[parent_[a]];
    return a;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::uint32_t> parent_;
};

}  // namespace

std::uint64_t fill_enclosed_slabs(SlabDevice& device, VolumeStore<std::uint8_t>& mask, std::uint8_t phase,
                                  Connectivity connectivity, VolumeStorage& storage) {
  const io::Dims3& d = mask.dims();
  const int nx = d.nx, ny = d.ny, nz = d.nz;
  const std::size_t plane = d.slice_voxels();
  VolumeStore<std::uint32_t> labels(storage, d, "components", ScratchForm::compressed);
  // Mask, labels and the labelling's scratch (4 bytes per voxel plus CUB's scan storage).
  const SlabPlan plan = device.plan(10, 0);
  const auto& slabs = plan.slabs;
  // Slab s's label l is id offset[s] + l: ids 1..offset.back(), 0 for background.
  std::vector<std::uint32_t> offset(slabs.size() + 1, 0);
  struct Labelled {
    VolumeView<std::uint32_t> labels;
    std::uint32_t count;
  };
  std::size_t finished = 0;  // slabs
  device.pipelined(
      plan,
      [&](SlabLane& lane, SlabRange r) {
        const auto m = lane.upload(mask, r, "segment-pnm mask slab");
        const auto l = lane.allocate<std::uint32_t>(r, "segment-pnm component labels slab");
        return Labelled{l, label_components_gpu(m, phase, connectivity, l, lane.scratch(), lane.stream())};
      },
      [&](SlabLane& lane, SlabRange r, const Labelled& slab) {
        const std::uint32_t first_id = offset[finished];
        if (std::uint64_t(first_id) + slab.count >= 0xffffffffull) throw Error("fill_holes: more than 2^32 components");
        offset[++finished] = first_id + slab.count;
        lane.download<std::uint32_t>(labels, slab.labels, r);
      });
  std::vector<std::uint32_t> slab_of(nz);  // slab index per slice
  for (std::size_t s = 0; s < slabs.size(); ++s)
    for (int z = slabs[s].begin; z < slabs[s].end; ++z) slab_of[z] = std::uint32_t(s);
  // The id of the label at position i of a slice of slab s.
  auto id_of = [&](std::size_t s, std::uint32_t l) -> std::uint32_t { return l ? offset[s] + l : 0; };

  const std::size_t ids = std::size_t(offset.back()) + 1;
  UnionFind components(ids);
  std::vector<std::uint32_t> above_slice(plane), below_slice(plane);
  for (std::size_t s = 0; s + 1 < slabs.size(); ++s) {
    const int z = slabs[s].end;  // first slice of slab s + 1; z - 1 is the last of slab s
    labels.read_slices(z - 1, z, above_slice.data());
    labels.read_slices(z, z + 1, below_slice.data());
    const int reach = connectivity == Connectivity::c26 ? 1 : 0;
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::uint32_t below = id_of(s + 1, below_slice[std::size_t(y) * nx + x]);
        if (!below) continue;
        for (int dy = -reach; dy <= reach; ++dy)
          for (int dx = -reach; dx <= reach; ++dx) {
            const int xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= nx || yy >= ny) continue;
            if (const std::uint32_t above = id_of(s, above_slice[std::size_t(yy) * nx + xx])) components.join(above, below);
          }
      }
  }

  // A few slices of labels (and of the mask) at a time on the host.
  const int chunk = int(std::max<std::size_t>(1, (std::size_t(256) << 20) / (plane * 5)));
  std::vector<std::uint32_t> label_chunk(std::size_t(std::min(chunk, nz)) * plane);
  std::vector<std::uint8_t> on_face(ids, 0);
  for (int z0 = 0; z0 < nz; z0 += chunk) {
    const int z1 = std::min(nz, z0 + chunk);
    labels.read_slices(z0, z1, label_chunk.data());
    for (int z = z0; z < z1; ++z) {
      const std::uint32_t* slice = label_chunk.data() + std::size_t(z - z0) * plane;
      const std::size_t s = slab_of[z];
      const bool whole_slice = z == 0 || z == nz - 1;
      for (int y = 0; y < ny; ++y) {
        const bool whole_row = whole_slice || y == 0 || y == ny - 1;
        // Every x of a row on a face, else x = 0 and x = nx - 1 only.
        for (int x = 0; x < nx; x += (whole_row || x == nx - 1) ? 1 : nx - 1)
          if (const std::uint32_t id = id_of(s, slice[std::size_t(y) * nx + x])) on_face[components.find(id)] = 1;
      }
    }
  }
  // Enclosed per id, so the flip below is a lookup per voxel.
  std::vector<std::uint8_t> enclosed(ids, 0);
  for (std::uint32_t id = 1; id < ids; ++id) enclosed[id] = !on_face[components.find(id)];

  std::uint64_t changed = 0;
  std::mutex changed_mutex;
  std::vector<std::uint8_t> mask_chunk(label_chunk.size());
  for (int z0 = 0; z0 < nz; z0 += chunk) {
    const int z1 = std::min(nz, z0 + chunk);
    labels.read_slices(z0, z1, label_chunk.data());
    mask.read_slices(z0, z1, mask_chunk.data());
    std::uint64_t chunk_changed = 0;
    parallel_for(long(z1 - z0) * long(ny), [&](long a, long b) {
      std::uint64_t local = 0;
      for (long row = a; row < b; ++row) {
        const std::size_t s = slab_of[z0 + int(row / ny)];
        const std::size_t first = std::size_t(row) * nx;
        for (std::size_t i = first; i < first + std::size_t(nx); ++i)
          if (label_chunk[i] && enclosed[offset[s] + label_chunk[i]]) {
            mask_chunk[i] = std::uint8_t(1 - phase);
            ++local;
          }
      }
      std::lock_guard<std::mutex> lock(changed_mutex);
      chunk_changed += local;
    }, 64);
    if (chunk_changed) mask.write_slices(z0, z1, mask_chunk.data());
    changed += chunk_changed;
  }
  return changed;
}

}  // namespace gp::pnm

// fill_enclosed over Z-slabs (slab_stages.hpp). A slab's components get labels 1..K_s on the GPU;
// label l of slab s is component offset_s + l of a union-find over all slabs, which joins the
// components that touch across each slab boundary and keeps those on a face of the volume. Only
// the slabs' boundary slices of labels and their face flags come to the host: the second pass
// labels each slab again (the labelling is canonical, and the slab's mask has not changed) and
// changes the enclosed components on the GPU.
#include <algorithm>
#include <mutex>
#include <numeric>
#include <vector>

#include "core/error.hpp"
#include "cuda/labelling/components.hpp"
#include "cuda/pnm/fill_enclosed.hpp"
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

// What the first pass keeps of a slab: its component count, which of them are on a face of the
// volume, and its first and last slice of labels.
struct SlabComponents {
  std::uint32_t count = 0;
  std::vector<std::uint8_t> on_face;  // count + 1 flags
  std::vector<std::uint32_t> first, last;
};

}  // namespace

void fill_enclosed_slabs(SlabDevice& device, VolumeStore<std::uint8_t>& mask, std::uint8_t phase,
                         Connectivity connectivity, std::uint64_t& changed) {
  const io::Dims3& d = mask.dims();
  const int nx = d.nx, ny = d.ny;
  const std::size_t plane = d.slice_voxels();
  // Mask, labels and the labelling's scratch (4 bytes per voxel plus CUB's scan storage).
  const SlabPlan plan = device.plan(10, 0);
  const auto& slabs = plan.slabs;
  struct Labelled {
    VolumeView<std::uint32_t> labels;
    std::uint32_t count;
    std::uint8_t* on_face;
  };
  auto label_slab = [&](SlabLane& lane, SlabRange r, VolumeView<std::uint8_t>& m) {
    m = lane.upload(mask, r, "segment-pnm mask slab");
    const auto l = lane.allocate<std::uint32_t>(r, "segment-pnm component labels slab");
    const std::uint32_t count = labelling::label_components_gpu(m, phase, connectivity, l, lane.scratch(), lane.stream());
    return Labelled{l, count, nullptr};
  };

  std::vector<SlabComponents> parts(slabs.size());
  device.pipelined(
      plan,
      [&](SlabLane& lane, SlabRange r) {
        VolumeView<std::uint8_t> m;
        Labelled slab = label_slab(lane, r, m);
        slab.on_face = static_cast<std::uint8_t*>(lane.allocate_bytes(std::size_t(slab.count) + 1, "segment-pnm face flags"));
        mark_face_labels_gpu(slab.labels, slab.count, slab.on_face, lane.stream());
        return slab;
      },
      [&](SlabLane& lane, SlabRange r, const Labelled& slab) {
        SlabComponents& part = parts[std::size_t(r.index)];
        part.count = slab.count;
        part.on_face.resize(std::size_t(slab.count) + 1);
        lane.copy_down(part.on_face.data(), slab.on_face, part.on_face.size());
        part.first.resize(plane);
        part.last.resize(plane);
        lane.copy_down(part.first.data(), slab.labels.data, plane * sizeof(std::uint32_t));
        lane.copy_down(part.last.data(), slab.labels.data + std::size_t(r.depth() - 1) * plane, plane * sizeof(std::uint32_t));
      });

  // Slab s's label l is id offset[s] + l: ids 1..offset.back(), 0 for background.
  std::vector<std::uint32_t> offset(slabs.size() + 1, 0);
  for (std::size_t s = 0; s < slabs.size(); ++s) {
    if (std::uint64_t(offset[s]) + parts[s].count >= 0xffffffffull) throw Error("fill_holes: more than 2^32 components");
    offset[s + 1] = offset[s] + parts[s].count;
  }
  const std::size_t ids = std::size_t(offset.back()) + 1;
  UnionFind components(ids);
  const int reach = connectivity == Connectivity::c26 ? 1 : 0;
  for (std::size_t s = 0; s + 1 < slabs.size(); ++s) {
    const std::vector<std::uint32_t>& above = parts[s].last;      // the last slice of slab s
    const std::vector<std::uint32_t>& below = parts[s + 1].first;  // the first of slab s + 1
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const std::uint32_t b = below[std::size_t(y) * nx + x];
        if (!b) continue;
        for (int dy = -reach; dy <= reach; ++dy)
          for (int dx = -reach; dx <= reach; ++dx) {
            const int xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= nx || yy >= ny) continue;
            if (const std::uint32_t a = above[std::size_t(yy) * nx + xx]) components.join(offset[s] + a, offset[s + 1] + b);
          }
      }
  }
  // A component is kept when any of its slabs' parts is on a face.
  std::vector<std::uint8_t> kept_root(ids, 0);
  for (std::size_t s = 0; s < slabs.size(); ++s)
    for (std::uint32_t l = 1; l <= parts[s].count; ++l)
      if (parts[s].on_face[l]) kept_root[components.find(offset[s] + l)] = 1;
  // Per slab, the flags by its own labels (index 0 unused), which the second pass uploads.
  for (std::size_t s = 0; s < slabs.size(); ++s) {
    std::vector<std::uint8_t>& keep = parts[s].on_face;
    for (std::uint32_t l = 1; l <= parts[s].count; ++l) keep[l] = kept_root[components.find(offset[s] + l)];
    parts[s].first = {};
    parts[s].last = {};
  }
  kept_root = {};

  // Second pass: the enclosed components of each slab change phase on the GPU.
  struct Changed {
    VolumeView<std::uint8_t> mask;
    std::uint64_t voxels;
  };
  std::mutex counting;  // several GPUs finish slabs at once
  device.pipelined(
      plan,
      [&](SlabLane& lane, SlabRange r) {
        const SlabComponents& part = parts[std::size_t(r.index)];
        VolumeView<std::uint8_t> m;
        const Labelled slab = label_slab(lane, r, m);
        if (slab.count != part.count) throw Error("fill_holes: a slab's components changed between the two passes");
        auto* keep = static_cast<std::uint8_t*>(lane.allocate_bytes(part.on_face.size(), "segment-pnm kept components"));
        lane.copy_up(keep, part.on_face.data(), part.on_face.size());
        return Changed{m, change_unkept_labels_gpu(m, slab.labels, keep, std::uint8_t(1 - phase), lane.scratch(),
                                                   lane.stream())};
      },
      [&](SlabLane& lane, SlabRange r, const Changed& slab) {
        if (slab.voxels) lane.download<std::uint8_t>(mask, slab.mask, r);
        std::lock_guard<std::mutex> lock(counting);
        changed += slab.voxels;
      });
}

}  // namespace gp::pnm

// CPU references of segment-pnm's fill of enclosed components (also the CPU path), over the
// shared component labelling's CPU roots.
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "core/parallel_for.hpp"
#include "cuda/labelling/components.hpp"
#include "cuda/pnm/fill_enclosed.hpp"
#include "cuda/pnm/slab_checks.hpp"

namespace gp::pnm {
namespace {

// flags[key] = 1 for the keys of voxels on a face of the volume (as mark_face_keys_kernel).
void mark_face_keys(VolumeView<const std::uint32_t> keys, std::uint32_t background, std::uint8_t* flags) {
  const int nx = keys.nx, ny = keys.ny;
  for (int z = keys.z_first; z < keys.z_first + keys.z_count; ++z)
    for (int y = 0; y < ny; ++y) {
      const bool face = z == 0 || z == keys.nz - 1 || y == 0 || y == ny - 1;
      for (int x = 0; x < nx; x += face ? 1 : std::max(1, nx - 1)) {
        const std::uint32_t k = keys.at(x, y, z);
        if (k != background) flags[k] = 1;
      }
    }
}

// mask = value where the key is not background and not kept (as change_unkept_kernel).
std::uint64_t change_unkept(VolumeView<std::uint8_t> mask, VolumeView<const std::uint32_t> keys, std::uint32_t background,
                            const std::uint8_t* keep, std::uint8_t value) {
  std::uint64_t changed = 0;
  std::mutex sum;
  parallel_for(long(keys.held_voxels()), [&](long begin, long end) {
    std::uint64_t mine = 0;
    for (long i = begin; i < end; ++i)
      if (keys.data[i] != background && !keep[keys.data[i]]) {
        mask.data[i] = value;
        ++mine;
      }
    std::lock_guard<std::mutex> lock(sum);
    changed += mine;
  }, 1 << 16);
  return changed;
}

}  // namespace

std::uint64_t fill_enclosed_cpu(VolumeView<std::uint8_t> mask, std::uint8_t phase, Connectivity connectivity) {
  const char* op = "fill_enclosed_cpu";
  checks::require_view(mask, op, "mask");
  checks::require(phase <= 1, op, "phase must be 0 or 1, not " + std::to_string(int(phase)));
  checks::require(mask.z_first == 0 && mask.z_count == mask.nz, op,
                  "the mask must hold the whole volume: " + checks::describe(mask));
  const std::size_t n = mask.held_voxels();
  std::vector<std::uint32_t> root(n);
  labelling::component_roots_cpu(mask, phase, connectivity, whole_volume(root.data(), mask.nx, mask.ny, mask.nz));
  std::vector<std::uint8_t> keep(n, 0);
  const VolumeView<const std::uint32_t> keys = whole_volume<const std::uint32_t>(root.data(), mask.nx, mask.ny, mask.nz);
  mark_face_keys(keys, labelling::no_root, keep.data());
  return change_unkept(mask, keys, labelling::no_root, keep.data(), std::uint8_t(1 - phase));
}

void mark_face_labels_cpu(VolumeView<const std::uint32_t> labels, std::uint32_t count, std::uint8_t* flags) {
  checks::require_view(labels, "mark_face_labels_cpu", "labels");
  std::fill(flags, flags + std::size_t(count) + 1, std::uint8_t(0));
  mark_face_keys(labels, 0, flags);
}

std::uint64_t change_unkept_labels_cpu(VolumeView<std::uint8_t> mask, VolumeView<const std::uint32_t> labels,
                                       const std::uint8_t* keep, std::uint8_t value) {
  const char* op = "change_unkept_labels_cpu";
  checks::require_view(labels, op, "labels");
  checks::require_view(mask, op, "mask");
  checks::require_same_slices(mask, labels, op);
  return change_unkept(mask, labels, 0, keep, value);
}

}  // namespace gp::pnm

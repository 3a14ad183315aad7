#pragma once
// Views of 3-D volumes for the volume kernels (segment-pnm's, the shared component labelling) and
// their CPU references. nvcc-safe.
//
// A volume is stored x fastest, then y, then z, without padding. A view may hold only a slab of
// it: slices [z_first, z_first + z_count) of a volume nz slices deep, so the same kernels serve
// in-core runs (z_first = 0, z_count = nz) and out-of-core runs in Z-slabs with halos. Kernels
// address voxels by global z; boundary rules (reflect, border) use the whole volume's extent.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/views.hpp"  // GP_VIEW_HD
#include "cuda/common/scratch.hpp"

namespace gp {

template <class T>
struct VolumeView {
  T* data = nullptr;
  int nx = 0, ny = 0, nz = 0;      // the whole volume
  int z_first = 0, z_count = 0;    // slices held in `data`

  GP_VIEW_HD std::size_t slice_voxels() const { return std::size_t(nx) * std::size_t(ny); }
  GP_VIEW_HD std::size_t held_voxels() const { return slice_voxels() * std::size_t(z_count); }
  GP_VIEW_HD bool holds_z(int z) const { return z >= z_first && z < z_first + z_count; }
  // Offset of voxel (x, y, global z) in `data`.
  GP_VIEW_HD std::size_t offset(int x, int y, int z) const {
    return (std::size_t(z - z_first) * std::size_t(ny) + std::size_t(y)) * std::size_t(nx) + std::size_t(x);
  }
  GP_VIEW_HD T& at(int x, int y, int z) const { return data[offset(x, y, z)]; }
  // Read-only view of the same voxels (implicit, as T* converts to const T*).
  template <class U = T, class = typename std::enable_if<!std::is_const<U>::value>::type>
  GP_VIEW_HD operator VolumeView<const U>() const { return {data, nx, ny, nz, z_first, z_count}; }
  // The same memory seen as another element type (e.g. float scratch reused as int).
  template <class U>
  GP_VIEW_HD VolumeView<U> as() const { return {reinterpret_cast<U*>(data), nx, ny, nz, z_first, z_count}; }
};

template <class T>
inline VolumeView<T> whole_volume(T* data, int nx, int ny, int nz) {
  return {data, nx, ny, nz, 0, nz};
}

// 3-D connectivity: 6 (faces) or 26 (faces, edges, corners).
enum class Connectivity : std::uint8_t { c6 = 6, c26 = 26 };

}  // namespace gp

#pragma once
// A scalar 3-D volume in host memory: what the volume readers produce and segment-pnm consumes.
// Layout: x fastest, then y, then z (slice): value(x, y, z) = values[(z * ny + y) * nx + x].
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "core/default_init_allocator.hpp"

namespace gp::io {

struct Dims3 {
  int nx = 0, ny = 0, nz = 0;
  std::size_t voxels() const { return std::size_t(nx) * std::size_t(ny) * std::size_t(nz); }
  std::size_t slice_voxels() const { return std::size_t(nx) * std::size_t(ny); }
  bool operator==(const Dims3& o) const { return nx == o.nx && ny == o.ny && nz == o.nz; }
};

// Physical size of one voxel along x, y, z (millimetres for DICOM; whatever the config says else).
struct Spacing3 {
  double x = 1, y = 1, z = 1;
  double min() const { return x < y ? (x < z ? x : z) : (y < z ? y : z); }
  bool operator==(const Spacing3& o) const { return x == o.x && y == o.y && z == o.z; }
};

struct Volume {
  Dims3 dims;
  Spacing3 spacing;
  std::array<double, 3> origin{0, 0, 0};  // physical position of voxel (0, 0, 0)
  // Unit vectors of the voxel axes x, y, z (rows) in the coordinates of `origin`: the identity
  // unless the source says otherwise (an oblique DICOM series, NRRD space directions, MetaImage
  // TransformMatrix). Voxel (i, j, k) lies at origin + i sx d[0] + j sy d[1] + k sz d[2].
  std::array<std::array<double, 3>, 3> direction{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  bool lps = false;         // origin and direction are patient coordinates (left-posterior-superior)
  std::string length_unit;  // unit of spacing and origin the source states ("mm"); empty = none stated
  // Rescaled units (e.g. Hounsfield after slope/intercept). NaN marks padding, voxels outside the
  // image (DICOM PixelPaddingValue: the corners outside a CT scan's circle): segment-pnm leaves
  // them out of the histogram and the pore space, and its filters do not spread them.
  // resize() leaves the values uninitialised: the readers fill every voxel, on all cores.
  std::vector<float, DefaultInitAllocator<float>> values;
  std::string description;                 // for reports: "DICOM series, 80 slices, CT, RLE"

  std::size_t index(int x, int y, int z) const {
    return (std::size_t(z) * std::size_t(dims.ny) + std::size_t(y)) * std::size_t(dims.nx) + std::size_t(x);
  }
  float at(int x, int y, int z) const { return values[index(x, y, z)]; }
};

}  // namespace gp::io

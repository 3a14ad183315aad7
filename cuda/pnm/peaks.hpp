#pragma once
// Peaks of the (smoothed) distance map, as PoreSpy's find_peaks: pore voxels whose value is the
// maximum of value' over a ball of radius r_max around them, where value' is the distance on pore
// voxels and the distance plus 2 voxels on solid ones (so thin pores next to the solid are no
// peaks), and neighbours past the volume's edge are mirrored (scipy's 'reflect' mode). With
// anisotropic spacing the ball is round in physical space: offsets (dx sx, dy sy, dz sz) within
// r_max voxels of the finest spacing.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

// Global linear indices (64-bit) of the peak voxels with z in [z_begin, z_end), ascending. The
// views hold those slices plus peak_halo() slices each side where the volume has them (an
// out-of-core run finds peaks slab by slab; in-core runs pass whole-volume views and [0, nz)).
// GPU: synchronises.
std::vector<std::uint64_t> find_peaks_gpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max, int z_begin, int z_end,
                                          const ScratchAllocator& scratch, cudaStream_t stream);
std::vector<std::uint64_t> find_peaks_cpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max, int z_begin, int z_end);

// Slices each side of a slab that the peak test reads: the ball's half extent along z.
int peak_halo(Spacing spacing, float r_max);

namespace peak_detail {
// Argument checks shared by both versions (throws gp::Error naming `op` and the views).
void check_peak_args(const VolumeView<const std::uint8_t>& mask, const VolumeView<const float>& distance,
                     Spacing spacing, float r_max, int z_begin, int z_end, const char* op);
}  // namespace peak_detail

// The peaks of slices [z_begin, z_end) left on the device: `count` indices, ascending, in scratch
// (only the count is read back). Synchronises.
struct DevicePeaks {
  const std::uint64_t* voxels = nullptr;
  std::size_t count = 0;
};
DevicePeaks find_peaks_device(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance, Spacing spacing,
                              float r_max, int z_begin, int z_end, const ScratchAllocator& scratch, cudaStream_t stream);

// Whole volumes.
std::vector<std::uint64_t> find_peaks_gpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max, const ScratchAllocator& scratch,
                                          cudaStream_t stream);
std::vector<std::uint64_t> find_peaks_cpu(VolumeView<const std::uint8_t> mask, VolumeView<const float> distance,
                                          Spacing spacing, float r_max);

}  // namespace gp::pnm

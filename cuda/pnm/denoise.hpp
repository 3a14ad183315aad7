#pragma once
// Denoising filters of segment-pnm with scipy.ndimage semantics: the exact 3x3x3 median and the
// separable Gaussian. GPU and CPU give bit-identical results.
//
// Slabs: `out` holds the slices to compute, `in` those slices plus the filter's halo on each side
// (as far as the volume goes); the borders (mode 'reflect': d c b a | a b c d | d c b a) are those
// of the whole volume, never of the slab. In-core runs pass whole-volume views. `in` and `out` must
// not overlap.
#include <cuda_runtime_api.h>

#include <vector>

#include "cuda/pnm/volume_view.hpp"

namespace gp::pnm {

// Slices of input each side of the output that median3 reads.
constexpr int median3_halo = 1;

// scipy.ndimage.median_filter(in, size=3) (mode 'reflect'): each voxel becomes the 14th smallest
// of its 27 neighbours (itself included). NaN marks voxels outside the image (DICOM padding): a NaN
// voxel stays NaN and the others take the median of their valid neighbours (math::median3_of).
void median3_gpu(VolumeView<const float> in, VolumeView<float> out, cudaStream_t stream);
void median3_cpu(VolumeView<const float> in, VolumeView<float> out);

// Standard deviations along x, y, z in voxels; 0 (<= 1e-15, as scipy) = no filtering along that axis.
struct GaussianSigma {
  double x = 0, y = 0, z = 0;
};

// Largest kernel radius supported (sigma up to 37.4 voxels), so a GPU tile fits in 48 KiB.
constexpr int gaussian_max_radius = 150;

// scipy's truncate 4.0: int(4 * sigma + 0.5) taps each side; 0 for sigma <= 1e-15.
int gaussian_radius(double sigma);
// Slices of input each side of the output that gaussian_filter reads along z.
inline int gaussian_halo(double sigma_z) { return gaussian_radius(sigma_z); }
// Weights w[0..radius] from the centre out: exp(-0.5 / sigma^2 * j^2) normalised to sum 1 over
// the 2 radius + 1 taps, in double (scipy's _gaussian_kernel1d). Throws when radius is too large.
std::vector<double> gaussian_weights(double sigma);

// scipy.ndimage.gaussian_filter(in, sigma, truncate=4.0, mode='reflect') for float32 data: 1-D
// correlations along z, then y, then x (scipy's axis order for a (z, y, x) array), each summed in
// double and rounded to float, axes with radius 0 skipped (copy when all are). NaN voxels (padding)
// stay NaN and are left out of their neighbours' sums, which are renormalised over the valid taps
// (math::symmetric_tap_sum); without NaNs the result is scipy's.
// GPU: one scratch request of out's size in floats when two or more axes filter.
void gaussian_filter_gpu(VolumeView<const float> in, VolumeView<float> out, GaussianSigma sigma,
                         const ScratchAllocator& scratch, cudaStream_t stream);
void gaussian_filter_cpu(VolumeView<const float> in, VolumeView<float> out, GaussianSigma sigma);

}  // namespace gp::pnm

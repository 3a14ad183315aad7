#include "cuda/pnm/edt.hpp"

#include <algorithm>
#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/pnm/edt_line.hpp"

namespace gp::pnm {
namespace {

std::string sizes(int nx, int ny, int slices) {
  return std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(slices);
}

__global__ void columns_kernel(VolumeView<const std::uint8_t> mask, VolumeView<float> out, float spacing_z) {
  const std::size_t column = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (column >= mask.slice_voxels()) return;
  edt_detail::column(mask.data + column, out.data + column, mask.slice_voxels(), mask.nz, spacing_z);
}

// One thread per line along the middle axis (n_mid long) of `slices` slices of n_fast x n_mid:
// neighbouring threads take neighbouring lines, so every access of a warp is coalesced.
__global__ void envelope_kernel(float* field, int n_fast, int n_mid, int slices, float spacing, int* apex,
                                float* apex_f, float* left) {
  const std::size_t lines = std::size_t(n_fast) * slices;
  const std::size_t line = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (line >= lines) return;
  const std::size_t slice = line / n_fast, fast = line % n_fast;
  float* f = field + slice * std::size_t(n_fast) * n_mid + fast;
  edt_detail::envelope(f, n_fast, n_mid, spacing, apex + line, apex_f + line, left + line, lines);
}

constexpr int tile = 32;

// Swaps the two axes of each w x h slice: out(y, x) = in(x, y), optionally taking square roots.
__global__ void transpose_kernel(const float* in, float* out, int w, int h, bool take_sqrt) {
  __shared__ float block[tile][tile + 1];
  const std::size_t slice = std::size_t(blockIdx.z) * w * h;
  const int x0 = blockIdx.x * tile, y0 = blockIdx.y * tile;
  for (int dy = threadIdx.y; dy < tile; dy += blockDim.y) {
    const int x = x0 + threadIdx.x, y = y0 + dy;
    if (x < w && y < h) block[dy][threadIdx.x] = in[slice + std::size_t(y) * w + x];
  }
  __syncthreads();
  for (int dx = threadIdx.y; dx < tile; dx += blockDim.y) {
    const int y = y0 + threadIdx.x, x = x0 + dx;
    if (x < w && y < h) {
      const float v = block[threadIdx.x][dx];
      out[slice + std::size_t(x) * h + y] = take_sqrt ? sqrtf(v) : v;
    }
  }
}

void transpose(const float* in, float* out, int w, int h, int slices, bool take_sqrt, cudaStream_t stream) {
  for (int first = 0; first < slices; first += 65535) {
    const int count = std::min(65535, slices - first);
    const std::size_t offset = std::size_t(first) * w * h;
    const dim3 grid((w + tile - 1) / tile, (h + tile - 1) / tile, count);
    transpose_kernel<<<grid, dim3(tile, 8), 0, stream>>>(in + offset, out + offset, w, h, take_sqrt);
    GP_CUDA_CHECK_LAUNCH("edt transpose " + sizes(w, h, count));
  }
}

// Lines along the middle axis of every slice, a batch of slices at a time so the envelope scratch
// (12 bytes per voxel of a batch) stays bounded.
void envelope_lines(float* field, int n_fast, int n_mid, int slices, float spacing, const ScratchAllocator& scratch,
                    cudaStream_t stream) {
  constexpr std::size_t scratch_budget = std::size_t(384) << 20;
  const std::size_t per_slice = std::size_t(n_fast) * n_mid * (sizeof(int) + 2 * sizeof(float));
  const int batch = int(std::clamp<std::size_t>(scratch_budget / std::max<std::size_t>(per_slice, 1), 1, slices));
  const std::size_t batch_voxels = std::size_t(n_fast) * n_mid * batch;
  auto* apex = static_cast<int*>(scratch(batch_voxels * sizeof(int)));
  auto* apex_f = static_cast<float*>(scratch(batch_voxels * sizeof(float)));
  auto* left = static_cast<float*>(scratch(batch_voxels * sizeof(float)));
  for (int first = 0; first < slices; first += batch) {
    const int count = std::min(batch, slices - first);
    const std::size_t lines = std::size_t(n_fast) * count;
    envelope_kernel<<<unsigned((lines + 127) / 128), 128, 0, stream>>>(
        field + std::size_t(first) * n_fast * n_mid, n_fast, n_mid, count, spacing, apex, apex_f, left);
    GP_CUDA_CHECK_LAUNCH("edt envelope " + sizes(n_fast, n_mid, count));
  }
}

}  // namespace

void edt_columns_gpu(VolumeView<const std::uint8_t> mask, VolumeView<float> squared, float spacing_z, cudaStream_t stream) {
  const std::size_t columns = mask.slice_voxels();
  if (columns == 0 || mask.nz == 0) return;
  columns_kernel<<<unsigned((columns + 127) / 128), 128, 0, stream>>>(mask, squared, spacing_z);
  GP_CUDA_CHECK_LAUNCH("edt columns " + sizes(mask.nx, mask.ny, mask.nz));
}

void edt_planes_gpu(VolumeView<float> field, VolumeView<float> work, Spacing spacing, bool take_sqrt,
                    const ScratchAllocator& scratch, cudaStream_t stream) {
  const int nx = field.nx, ny = field.ny, slices = field.z_count;
  if (field.held_voxels() == 0) return;
  envelope_lines(field.data, nx, ny, slices, spacing.y, scratch, stream);  // along y
  transpose(field.data, work.data, nx, ny, slices, false, stream);          // work: y fastest
  envelope_lines(work.data, ny, nx, slices, spacing.x, scratch, stream);    // along x
  transpose(work.data, field.data, ny, nx, slices, take_sqrt, stream);
}

void distance_transform_gpu(VolumeView<const std::uint8_t> mask, VolumeView<float> distance, VolumeView<float> work,
                            Spacing spacing, const ScratchAllocator& scratch, cudaStream_t stream) {
  edt_columns_gpu(mask, distance, spacing.z, stream);
  edt_planes_gpu(distance, work, spacing, true, scratch, stream);
}

}  // namespace gp::pnm

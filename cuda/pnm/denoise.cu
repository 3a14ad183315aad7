// Median and Gaussian filters on the GPU. The median reads its 27 neighbours straight from global
// memory (each value is reused by 27 threads through L1). The Gaussian runs one pass per axis on
// shared-memory tiles: a block loads the input lines its outputs need, extended by reflection at the
// volume's borders, once, and every thread sums its taps from there; loads and stores are
// coalesced along x in every pass.
#include "core/stream_ops.hpp"
#include "cuda/pnm/denoise.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "cuda/common/cuda_check.hpp"
#include "cuda/pnm/denoise_math.hpp"
#include "cuda/pnm/slab_checks.hpp"

namespace gp::pnm {
namespace {

// Weights as a kernel parameter (1.2 KiB), copied to shared memory by each block.
struct Taps {
  int radius = 0;
  double w[gaussian_max_radius + 1];
};

__global__ void __launch_bounds__(256) median3_kernel(VolumeView<const float> in, VolumeView<float> out) {
  const int x = int(blockIdx.x) * 32 + int(threadIdx.x);
  const int y = int(blockIdx.y) * 8 + int(threadIdx.y);
  const int z = out.z_first + int(blockIdx.z);
  if (x >= out.nx || y >= out.ny) return;
  float v[27];
  math::gather_27(in, x, y, z, v);
  out.at(x, y, z) = math::median3_of(v);
}

// Copies the weights into shared memory (synchronised by the caller's __syncthreads()).
__device__ void load_weights(const Taps& taps, double* w, int thread, int threads) {
  for (int j = thread; j <= taps.radius; j += threads) w[j] = taps.w[j];
}

// Filter along y (axis 1) or z (axis 2). A block of 32 x 8 threads computes a tile of 32 columns
// (x) by col_tile outputs along the axis, from the col_tile + 2 radius input rows it needs.
constexpr int col_x = 32, col_rows = 8, col_tile = 64;

__global__ void __launch_bounds__(col_x* col_rows)
    filter_columns_kernel(VolumeView<const float> in, VolumeView<float> out, int axis, Taps taps) {
  extern __shared__ double shared_words[];
  const int radius = taps.radius;
  double* w = shared_words;
  float* tile = reinterpret_cast<float*>(w + radius + 1);
  load_weights(taps, w, int(threadIdx.y) * col_x + int(threadIdx.x), col_x * col_rows);

  const int x = int(blockIdx.x) * col_x + int(threadIdx.x);
  const bool along_y = axis == 1;
  const int length = along_y ? in.ny : in.nz;  // reflection at the whole volume's borders
  const int a_end = along_y ? out.ny : out.z_first + out.z_count;
  const int a0 = (along_y ? 0 : out.z_first) + int(blockIdx.y) * col_tile;
  const int count = min(col_tile, a_end - a0);
  const int other = int(blockIdx.z);  // the slice (filtering y) or the row (filtering z)
  const int z_other = out.z_first + other;

  const int rows = count + 2 * radius;
  for (int row = int(threadIdx.y); row < rows; row += col_rows) {
    const int a = math::reflect_index(a0 - radius + row, length);
    float v = 0.0f;
    if (x < in.nx) v = along_y ? in.at(x, a, z_other) : in.at(x, other, a);
    tile[row * col_x + int(threadIdx.x)] = v;
  }
  __syncthreads();
  if (x >= out.nx) return;
  for (int s = int(threadIdx.y); s < count; s += col_rows) {
    const float r = math::symmetric_tap_sum(&tile[(s + radius) * col_x + int(threadIdx.x)], col_x, w, radius);
    if (along_y)
      out.at(x, a0 + s, z_other) = r;
    else
      out.at(x, other, a0 + s) = r;
  }
}

// Filter along x. A block of 64 x 4 threads computes row_tile outputs on each of 4 rows.
constexpr int row_threads = 64, row_lines = 4, row_tile = 256;

__global__ void __launch_bounds__(row_threads* row_lines)
    filter_rows_kernel(VolumeView<const float> in, VolumeView<float> out, Taps taps) {
  extern __shared__ double shared_words[];
  const int radius = taps.radius;
  double* w = shared_words;
  const int width = row_tile + 2 * radius;
  float* line = reinterpret_cast<float*>(w + radius + 1) + int(threadIdx.y) * width;
  load_weights(taps, w, int(threadIdx.y) * row_threads + int(threadIdx.x), row_threads * row_lines);

  const int y = int(blockIdx.y) * row_lines + int(threadIdx.y);
  const int z = out.z_first + int(blockIdx.z);
  const int x0 = int(blockIdx.x) * row_tile;
  const int count = min(row_tile, out.nx - x0);
  if (y < out.ny)
    for (int i = int(threadIdx.x); i < count + 2 * radius; i += row_threads)
      line[i] = in.at(math::reflect_index(x0 - radius + i, in.nx), y, z);
  __syncthreads();
  if (y >= out.ny) return;
  for (int i = int(threadIdx.x); i < count; i += row_threads)
    out.at(x0 + i, y, z) = math::symmetric_tap_sum(&line[i + radius], 1, w, radius);
}

unsigned blocks(long long n, int per_block) { return unsigned((n + per_block - 1) / per_block); }

void require_grid(long long n, const char* what, const char* op) {
  checks::require(n <= 65535, op, std::string(what) + " of " + std::to_string(n) + " exceeds one launch (65535)");
}

struct AxisPass {
  int axis;  // 0 x, 1 y, 2 z
  std::vector<double> weights;
};

void run_pass(const AxisPass& pass, VolumeView<const float> src, VolumeView<float> dst, cudaStream_t stream) {
  const char* op = "gaussian_filter_gpu";
  Taps taps;
  taps.radius = int(pass.weights.size()) - 1;
  std::copy(pass.weights.begin(), pass.weights.end(), taps.w);
  const std::size_t weight_bytes = std::size_t(taps.radius + 1) * sizeof(double);
  const std::string size = checks::describe(dst) + ", axis " + std::to_string(pass.axis) + ", radius " +
                           std::to_string(taps.radius);
  if (pass.axis == 0) {
    require_grid(dst.z_count, "slices", op);
    const dim3 grid(blocks(dst.nx, row_tile), blocks(dst.ny, row_lines), unsigned(dst.z_count));
    const std::size_t shared = weight_bytes + std::size_t(row_lines) * (row_tile + 2 * taps.radius) * sizeof(float);
    filter_rows_kernel<<<grid, dim3(row_threads, row_lines), shared, stream>>>(src, dst, taps);
    GP_CUDA_CHECK_LAUNCH("filter_rows_kernel " + size);
  } else {
    const bool along_y = pass.axis == 1;
    const int length = along_y ? dst.ny : dst.z_count;
    const int others = along_y ? dst.z_count : dst.ny;
    require_grid(others, along_y ? "slices" : "rows", op);
    const dim3 grid(blocks(dst.nx, col_x), blocks(length, col_tile), unsigned(others));
    const std::size_t shared = weight_bytes + std::size_t(col_tile + 2 * taps.radius) * col_x * sizeof(float);
    filter_columns_kernel<<<grid, dim3(col_x, col_rows), shared, stream>>>(src, dst, pass.axis, taps);
    GP_CUDA_CHECK_LAUNCH("filter_columns_kernel " + size);
  }
}

}  // namespace

void median3_gpu(VolumeView<const float> in, VolumeView<float> out, cudaStream_t stream) {
  const char* op = "median3_gpu";
  checks::require_view(in, op, "input");
  checks::require_view(out, op, "output");
  checks::require_halo(in, out, median3_halo, op);
  checks::require(!checks::overlap(in, out), op, "input and output overlap");
  if (out.z_count == 0) return;
  require_grid(out.z_count, "slices", op);
  const dim3 grid(blocks(out.nx, 32), blocks(out.ny, 8), unsigned(out.z_count));
  median3_kernel<<<grid, dim3(32, 8), 0, stream>>>(in, out);
  GP_CUDA_CHECK_LAUNCH("median3_kernel " + checks::describe(out));
}

void gaussian_filter_gpu(VolumeView<const float> in, VolumeView<float> out, GaussianSigma sigma,
                         const ScratchAllocator& scratch, cudaStream_t stream) {
  const char* op = "gaussian_filter_gpu";
  checks::require_view(in, op, "input");
  checks::require_view(out, op, "output");
  checks::require_halo(in, out, gaussian_halo(sigma.z), op);
  checks::require(!checks::overlap(in, out), op, "input and output overlap");
  std::vector<AxisPass> passes;
  for (int axis : {2, 1, 0}) {
    std::vector<double> w = gaussian_weights(axis == 2 ? sigma.z : axis == 1 ? sigma.y : sigma.x);
    if (w.size() > 1) passes.push_back({axis, std::move(w)});
  }
  if (out.z_count == 0) return;
  if (passes.empty()) {
    stream_ops::copy(out.data, &in.at(0, 0, out.z_first), out.held_voxels(), stream,
                     "gaussian_filter_gpu copy " + checks::describe(out));
    return;
  }
  VolumeView<float> tmp = out;
  if (passes.size() > 1) tmp.data = static_cast<float*>(scratch(out.held_voxels() * sizeof(float)));
  // The last pass writes `out`, the one before `tmp`, and so on back.
  const int k = int(passes.size());
  VolumeView<const float> src = in;
  for (int i = 0; i < k; ++i) {
    const VolumeView<float> dst = (k - 1 - i) % 2 == 0 ? out : tmp;
    run_pass(passes[i], src, dst, stream);
    src = dst;
  }
}

}  // namespace gp::pnm

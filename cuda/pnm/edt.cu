// The distance transform's kernels (edt.hpp): step 1 one thread per column (edt_line.hpp), steps
// 2-3 one warp per line staged in shared memory (edt_block.hpp).
#include "cuda/pnm/edt.hpp"

#include <algorithm>
#include <string>

#include "cuda/common/cuda_check.hpp"
#include "cuda/pnm/edt_block.hpp"

namespace gp::pnm {
namespace {

using edt_detail::BlockLayout;
using edt_detail::Lines;

std::string sizes(int nx, int ny, int slices) {
  return std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(slices);
}

// Step 1: one thread per column, neighbouring threads on neighbouring x (coalesced), the mask
// read once and each squared distance written once (edt_detail::column_from_bits).
__global__ void columns_kernel(VolumeView<const std::uint8_t> mask, VolumeView<float> out, float spacing_z) {
  const std::size_t plane = mask.slice_voxels();
  const std::size_t column = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (column >= plane) return;
  edt_detail::column_from_bits(mask.data + column, out.data + column, plane, mask.nz, spacing_z);
}

// Steps 2-3: one block per strip of lines, one warp per line (edt_block.hpp). Global: the block
// buffers lie in global_buffers (layout.bytes per block of the launch) instead of shared memory,
// for lines too long for it; a compile-time choice, so that the shared variant addresses shared
// memory directly. Six blocks of 256 threads per SM fit the shared memory of 512-voxel lines
// (34 KB a block) and, at 40 registers, the register file (Turing runs at most four).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int envelope_blocks_per_sm = 4;
#else
constexpr int envelope_blocks_per_sm = 6;
#endif

template <class Half, bool Global>
__global__ void __launch_bounds__(256, Global ? 1 : envelope_blocks_per_sm) envelope_kernel(Lines lines, BlockLayout layout, float spacing, bool take_sqrt,
                                                      unsigned char* global_buffers, long long first_block) {
  extern __shared__ float4 shared_words[];
  unsigned char* buffers = Global ? global_buffers + std::size_t(blockIdx.x) * layout.bytes
                                  : reinterpret_cast<unsigned char*>(shared_words);
  const edt_detail::BlockLines<Half> block(lines, layout, first_block + blockIdx.x, buffers);
  block.load(threadIdx.x, blockDim.x);
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (warp < block.count) {  // the whole warp: shuffles below
    const int last = block.build(warp, lane, spacing);
    __syncwarp();
    // The segment holding the chunk's first sample starts at the last barrier of an earlier chunk.
    int upto = last;
    for (int d = 1; d < 32; d <<= 1) {
      const int other = __shfl_up_sync(0xFFFFFFFFu, upto, d);
      if (lane >= d) upto = max(upto, other);
    }
    int start = __shfl_up_sync(0xFFFFFFFFu, upto, 1);
    if (lane == 0) start = -1;
    block.walk(warp, lane, start, spacing);
    __syncwarp();  // every lane is done with the stacks
    block.finish(warp, lane, spacing);
  }
  __syncthreads();
  block.store(threadIdx.x, blockDim.x, take_sqrt);
}

constexpr int lines_per_block = 8;                                    // 256 threads
constexpr std::size_t global_buffer_budget = std::size_t(256) << 20;  // lines too long for shared memory

// The shared-memory attribute is set to the device's maximum rather than this launch's need: the
// same on every call, so threads launching on one GPU with layouts of their own (slabs on
// several GPUs, two shares of one in the tests) never lower it under another's launch.
template <class Half, bool Global>
void launch_envelope(const Lines& lines, const BlockLayout& layout, float spacing, bool take_sqrt,
                     unsigned char* global_buffers, long long max_blocks, int shared_max, cudaStream_t stream,
                     const std::string& what) {
  const auto kernel = envelope_kernel<Half, Global>;
  if (!Global) {
    GP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_max), what);
    GP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       int(cudaSharedmemCarveoutMaxShared)),
                  what);
  }
  const long long strips = (lines.lines + layout.per_block - 1) / layout.per_block;
  const long long blocks = strips * lines.slices;
  const std::size_t shared_bytes = Global ? 0 : layout.bytes;
  for (long long first = 0; first < blocks; first += max_blocks) {
    const unsigned count = unsigned(std::min(max_blocks, blocks - first));
    kernel<<<count, layout.per_block * 32, shared_bytes, stream>>>(lines, layout, spacing, take_sqrt, global_buffers, first);
    GP_CUDA_CHECK_LAUNCH(what + ", blocks " + std::to_string(first) + "+" + std::to_string(count) + " of " +
                         std::to_string(blocks) + ", " + std::to_string(layout.bytes) + " bytes each");
  }
}

// Every line of `lines` through the envelope, in place.
void envelope_lines(const Lines& lines, float spacing, bool take_sqrt, const ScratchAllocator& scratch,
                    cudaStream_t stream, const std::string& what) {
  const int n = lines.n;
  int device = 0, shared_max = 0;
  GP_CUDA_CHECK(cudaGetDevice(&device), what);
  GP_CUDA_CHECK(cudaDeviceGetAttribute(&shared_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), what);
  if (n < 0xFFFE) {  // 16-bit halves: apexes below the two codes, a stack end above them
    for (int per_block = lines_per_block; per_block >= 1; per_block /= 2) {
      const BlockLayout layout = edt_detail::block_layout(n, per_block, 2 * sizeof(std::uint16_t));
      if (layout.bytes > std::size_t(shared_max)) continue;
      launch_envelope<std::uint16_t, false>(lines, layout, spacing, take_sqrt, nullptr, 0x7FFFFFFF, shared_max, stream,
                                            what);
      return;
    }
  }
  // Lines too long for shared memory: the same kernel on block buffers in global memory.
  const BlockLayout layout = edt_detail::block_layout(n, lines_per_block, 2 * sizeof(std::uint32_t));
  const long long blocks = (lines.lines + lines_per_block - 1) / lines_per_block * lines.slices;
  const long long batch = std::min(blocks, std::max<long long>(1, (long long)(global_buffer_budget / layout.bytes)));
  auto* buffers = static_cast<unsigned char*>(scratch(std::size_t(batch) * layout.bytes));
  launch_envelope<std::uint32_t, true>(lines, layout, spacing, take_sqrt, buffers, batch, shared_max, stream, what);
}

}  // namespace

void edt_columns_gpu(VolumeView<const std::uint8_t> mask, VolumeView<float> squared, float spacing_z, cudaStream_t stream) {
  const std::size_t columns = mask.slice_voxels();
  if (columns == 0 || mask.nz == 0) return;
  if (mask.nz >= (1 << 28)) throw Error("edt columns: " + std::to_string(mask.nz) + " slices, at most 2^28 - 1");
  columns_kernel<<<unsigned((columns + 255) / 256), 256, 0, stream>>>(mask, squared, spacing_z);
  GP_CUDA_CHECK_LAUNCH("edt columns " + sizes(mask.nx, mask.ny, mask.nz));
}

void edt_planes_gpu(VolumeView<float> field, VolumeView<float> /*work*/, Spacing spacing, bool take_sqrt,
                    const ScratchAllocator& scratch, cudaStream_t stream) {
  const int nx = field.nx, ny = field.ny;
  if (field.held_voxels() == 0) return;
  const std::size_t plane = field.slice_voxels();
  const Lines along_y{field.data, ny, nx, field.z_count, plane, 1, std::size_t(nx)};
  const Lines along_x{field.data, nx, ny, field.z_count, plane, std::size_t(nx), 1};
  envelope_lines(along_y, spacing.y, false, scratch, stream, "edt lines along y " + sizes(nx, ny, field.z_count));
  envelope_lines(along_x, spacing.x, take_sqrt, scratch, stream, "edt lines along x " + sizes(nx, ny, field.z_count));
}

void distance_transform_gpu(VolumeView<const std::uint8_t> mask, VolumeView<float> distance, VolumeView<float> work,
                            Spacing spacing, const ScratchAllocator& scratch, cudaStream_t stream) {
  edt_columns_gpu(mask, distance, spacing.z, stream);
  edt_planes_gpu(distance, work, spacing, true, scratch, stream);
}

}  // namespace gp::pnm

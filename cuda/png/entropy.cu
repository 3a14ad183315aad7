// Token histogram and bit-stream writing on the GPU: one thread per segment of the filtered
// bytes (see png_kernels.hpp), block-local histograms in shared memory, a CUB exclusive scan of
// the per-segment bit counts, and atomic ORs only on the words two segments share.
#include <cub/device/device_scan.cuh>

#include <algorithm>

#include "cuda/common/cuda_check.hpp"
#include "cuda/png/png_checks.hpp"
#include "cuda/png/png_math.hpp"
#include "cuda/png/png_stream.hpp"

namespace gp::png {
namespace {

constexpr int kThreads = 128;

unsigned blocks_for(std::size_t items) { return unsigned((items + kThreads - 1) / kThreads); }

// The block's segments, copied with coalesced loads into shared memory (one thread reading its own
// segment byte by byte from global memory would touch 32 cache lines per warp load). Rows are
// padded to a word count that is odd modulo the 32 banks, so threads reading "their" byte i hit
// different banks.
constexpr std::size_t kStagedStride = kSegmentBytes + 4;
static_assert((kStagedStride / 4) % 2 == 1, "staged segments must start in different banks");
struct StagedSegment {
  const std::uint8_t* bytes;  // in shared memory
  std::size_t n;              // 0 past the end of the stream
  int previous;               // the byte before the segment, -1 at the stream's start
};
__device__ StagedSegment stage_segments(const std::uint8_t* filtered, std::size_t n, std::uint8_t* staged) {
  const std::size_t block_begin = blockIdx.x * std::size_t(kThreads) * kSegmentBytes;
  const std::size_t block_bytes = block_begin < n ? std::min(n - block_begin, std::size_t(kThreads) * kSegmentBytes) : 0;
  for (std::size_t j = threadIdx.x; j < block_bytes; j += kThreads)
    staged[(j / kSegmentBytes) * kStagedStride + j % kSegmentBytes] = filtered[block_begin + j];
  __syncthreads();
  const std::size_t begin = block_begin + threadIdx.x * kSegmentBytes;
  StagedSegment mine{staged + threadIdx.x * kStagedStride, begin < n ? std::min(n - begin, std::size_t(kSegmentBytes)) : 0,
                     begin > 0 && begin < n ? int(filtered[begin - 1]) : -1};
  return mine;
}

__global__ void zero_words_kernel(std::uint32_t* words, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
    words[i] = 0;
}

__global__ void __launch_bounds__(kThreads) histogram_kernel(const std::uint8_t* filtered, std::size_t n,
                                                             std::uint32_t* histogram, AdlerPartial* partials) {
  __shared__ std::uint32_t local[kLitLenSymbols];
  for (int s = threadIdx.x; s < kLitLenSymbols; s += kThreads) local[s] = 0;
  __syncthreads();
  __shared__ std::uint8_t staged[kThreads * kStagedStride];
  const StagedSegment mine = stage_segments(filtered, n, staged);
  const std::size_t segment = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  if (mine.n) {
    math::tokenize(
        mine.bytes, mine.n, mine.previous, [&](std::uint8_t literal) { atomicAdd(&local[literal], 1u); },
        [&](int length) { atomicAdd(&local[math::length_code(length).symbol], 1u); });
    partials[segment] = stream::adler_partial(mine.bytes, mine.n);
  }
  __syncthreads();
  for (int s = threadIdx.x; s < kLitLenSymbols; s += kThreads)
    if (local[s]) atomicAdd(&histogram[s], local[s]);
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&histogram[kEndOfBlock], 1u);
}

// The code in shared memory: threads index it by symbol, which kernel parameters do not serve well.
__device__ void load_code(const LitLenCode& param, LitLenCode& shared) {
  const auto* src = reinterpret_cast<const unsigned char*>(&param);
  auto* dst = reinterpret_cast<unsigned char*>(&shared);
  for (std::size_t i = threadIdx.x; i < sizeof(LitLenCode); i += blockDim.x) dst[i] = src[i];
  __syncthreads();
}

__global__ void __launch_bounds__(kThreads) segment_bits_kernel(const std::uint8_t* filtered, std::size_t n,
                                                                LitLenCode param_code, std::uint64_t* bits) {
  __shared__ LitLenCode code;
  __shared__ std::uint8_t staged[kThreads * kStagedStride];
  load_code(param_code, code);
  const StagedSegment mine = stage_segments(filtered, n, staged);
  const std::size_t segment = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  if (mine.n) bits[segment] = stream::segment_bit_count(mine.bytes, mine.n, mine.previous, code);
}

// Bits go into a 64-bit accumulator; full words are stored, except the first and the last of the
// segment, which neighbouring segments share and which are ORed atomically.
struct WordWriter {
  std::uint32_t* words;
  std::size_t word;
  std::uint64_t acc;
  int pending;
  bool first = true;
  __device__ WordWriter(std::uint32_t* w, std::uint64_t bit) : words(w), word(bit / 32), acc(0), pending(int(bit % 32)) {}
  __device__ void put(std::uint32_t value, int count) {
    acc |= std::uint64_t(value) << pending;
    pending += count;
    while (pending >= 32) {
      if (first) atomicOr(&words[word], std::uint32_t(acc));
      else words[word] = std::uint32_t(acc);
      first = false;
      ++word;
      acc >>= 32;
      pending -= 32;
    }
  }
  __device__ void finish() {
    if (pending > int(0) && acc) atomicOr(&words[word], std::uint32_t(acc));
  }
};

__global__ void __launch_bounds__(kThreads) write_bits_kernel(const std::uint8_t* filtered, std::size_t n,
                                                              LitLenCode param_code, const std::uint64_t* offsets,
                                                              const std::uint64_t* bits, std::uint64_t first_bit,
                                                              std::uint32_t* words, std::uint64_t* end_bit) {
  __shared__ LitLenCode code;
  __shared__ std::uint8_t staged[kThreads * kStagedStride];
  load_code(param_code, code);
  const StagedSegment mine = stage_segments(filtered, n, staged);
  const std::size_t segments = segment_count(n);
  const std::size_t segment = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  if (!mine.n) return;
  WordWriter out(words, first_bit + offsets[segment]);
  stream::write_tokens(mine.bytes, mine.n, mine.previous, code, out);
  out.finish();
  if (segment == segments - 1) *end_bit = first_bit + offsets[segment] + bits[segment];
}

// Scratch: [bits per segment | their exclusive sum | CUB storage], 256-byte aligned parts.
struct ScratchLayout {
  std::size_t bits = 0, offsets = 0, cub = 0, cub_bytes = 0, total = 0;
  explicit ScratchLayout(std::size_t n) {
    const std::size_t segments = segment_count(n);
    auto align = [](std::size_t v) { return (v + 255) / 256 * 256; };
    GP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, cub_bytes, static_cast<const std::uint64_t*>(nullptr),
                                                static_cast<std::uint64_t*>(nullptr), int(segments)),
                  "png encode scratch size");
    offsets = align(segments * sizeof(std::uint64_t));
    cub = offsets + align(segments * sizeof(std::uint64_t));
    total = cub + align(cub_bytes);
  }
};

}  // namespace

void token_histogram_gpu(const std::uint8_t* filtered, std::size_t n, std::uint32_t* histogram, AdlerPartial* partials,
                         cudaStream_t stream) {
  checks::check_stream(filtered, n, "token_histogram_gpu");
  zero_words_kernel<<<2, 256, 0, stream>>>(histogram, kLitLenSymbols);
  GP_CUDA_CHECK_LAUNCH("token_histogram_gpu zero");
  histogram_kernel<<<blocks_for(segment_count(n)), kThreads, 0, stream>>>(filtered, n, histogram, partials);
  GP_CUDA_CHECK_LAUNCH("token_histogram_gpu " + std::to_string(n) + " bytes");
}

std::size_t encode_scratch_bytes(std::size_t n) { return ScratchLayout(n).total; }

void encode_segments_gpu(const std::uint8_t* filtered, std::size_t n, const LitLenCode& code, std::uint64_t first_bit,
                         std::uint32_t* words, std::size_t word_count, std::uint64_t* end_bit, void* scratch,
                         std::size_t scratch_bytes, cudaStream_t stream) {
  checks::check_stream(filtered, n, "encode_segments_gpu");
  const ScratchLayout layout(n);
  checks::require(scratch && scratch_bytes >= layout.total, "encode_segments_gpu", "scratch too small");
  const std::size_t segments = segment_count(n);
  auto* base = static_cast<unsigned char*>(scratch);
  auto* bits = reinterpret_cast<std::uint64_t*>(base + layout.bits);
  auto* offsets = reinterpret_cast<std::uint64_t*>(base + layout.offsets);
  const std::string context = "encode_segments_gpu " + std::to_string(n) + " bytes";

  segment_bits_kernel<<<blocks_for(segments), kThreads, 0, stream>>>(filtered, n, code, bits);
  GP_CUDA_CHECK_LAUNCH(context);
  std::size_t cub_bytes = layout.cub_bytes;
  GP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(base + layout.cub, cub_bytes, bits, offsets, int(segments), stream), context);
  zero_words_kernel<<<unsigned(std::min<std::size_t>(1024, (word_count + 255) / 256 + 1)), 256, 0, stream>>>(words, word_count);
  GP_CUDA_CHECK_LAUNCH(context);
  write_bits_kernel<<<blocks_for(segments), kThreads, 0, stream>>>(filtered, n, code, offsets, bits, first_bit, words, end_bit);
  GP_CUDA_CHECK_LAUNCH(context);
}

}  // namespace gp::png

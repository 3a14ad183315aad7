#include "cuda/common/cuda_check.hpp"
#include "cuda/exr/exr_kernels.hpp"

namespace gp::exr {
namespace {

constexpr unsigned kFullWarp = 0xffffffffu;
constexpr int kThreads = 128;                // every thread block of the decompress kernel
constexpr int kInflateWarps = kThreads / 32;  // ZIP blocks per thread block

// ---- NONE and RLE: a thread per block (RLE runs at tens of GB/s that way).

__device__ void stored_rle_block(const BlockBatch& batch, int i) {
  const BlockDesc b = batch.blocks[i];
  const BlockFile& f = batch.files[b.file];
  const std::uint8_t* packed = f.packed + b.packed_offset;
  std::uint8_t* unpacked = f.unpacked + b.unpacked_offset;
  const std::size_t packed_size = std::size_t(b.packed_size), unpacked_size = std::size_t(b.unpacked_size);
  BlockResult& result = f.results[b.index];
  if (stored_as_is(f.compression, packed_size, unpacked_size))
    result = copy_stored(packed, packed_size, unpacked, unpacked_size);
  else if (f.compression == Compression::rle)
    result = rle_block(packed, packed_size, unpacked, unpacked_size, f.entropy + b.unpacked_offset);
  else
    result = BlockResult{BlockStatus::unsupported, InflateStatus::ok, PizStatus::ok};
}

// A block stored as is, copied by the threads [first, first + step).
__device__ void copy_by_threads(const std::uint8_t* from, std::uint8_t* to, std::size_t n, int first, int step) {
  for (std::size_t k = std::size_t(first); k < n; k += std::size_t(step)) to[k] = from[k];
}

// ---- ZIP and ZIPS: a warp per block. A zlib stream is serial: lane 0 decodes it (both Huffman
// tables in shared memory), writing literals itself and handing each match to the warp, which
// copies it in one pass; the Adler-32 and the byte filter run across the 32 lanes.

// Lane 0's decoder between the warp's match copies.
struct WarpInflate {
  inflate_detail::BitReader reader;
  std::size_t produced;
  bool last, in_block;
};

// Lane 0: literals and block headers until the next match (Symbol::match, checked against the
// capacity), the end of the stream (Symbol::end_of_block) or an error (Symbol::error).
__device__ inflate_detail::Symbol next_match(WarpInflate& st, InflateScratch& t, std::uint8_t* out, std::size_t capacity) {
  using inflate_detail::Symbol;
  for (;;) {
    if (!st.in_block) {
      if (st.last) return {Symbol::end_of_block, 0, 0};
      bool coded = false;
      const InflateStatus s = inflate_detail::begin_block(st.reader, t.litlen, t.dist, out, capacity, &st.produced, &st.last, &coded);
      if (s != InflateStatus::ok) return {Symbol::error, int(s), 0};
      st.in_block = coded;
      continue;
    }
    const Symbol s = inflate_detail::next_symbol(st.reader, t.litlen, t.dist, st.produced);
    if (s.kind == Symbol::literal) {
      if (st.produced >= capacity) return {Symbol::error, int(InflateStatus::output_overflow), 0};
      out[st.produced++] = std::uint8_t(s.value);
    } else if (s.kind == Symbol::end_of_block) {
      if (st.reader.overrun()) return {Symbol::error, int(InflateStatus::input_overrun), 0};
      st.in_block = false;
    } else {
      if (s.kind == Symbol::match && std::size_t(s.value) > capacity - st.produced)
        return {Symbol::error, int(InflateStatus::output_overflow), 0};
      return s;
    }
  }
}

// Adler-32 of data[0, n) across the warp, every lane's result the same. A = 1 + sum d[i] and
// B = n + sum (n - i) d[i] (mod 65521); lane l takes i = 32 j + l (coalesced reads), whose part of
// B is (n - l) S0 - 32 S1 with S0 = sum d, S1 = sum j d: no modulo per byte.
__device__ std::uint32_t warp_adler32(const std::uint8_t* data, std::size_t n, int lane) {
  constexpr std::uint64_t kMod = 65521;
  std::uint64_t s0 = 0, s1 = 0, j = 0;
  for (std::size_t i = std::size_t(lane); i < n; i += 32, ++j) {
    const std::uint64_t d = data[i];
    s0 += d;
    s1 += j * d;
  }
  std::uint64_t a = s0 % kMod, b = 0;
  if (std::size_t(lane) < n) b = ((n - std::size_t(lane)) % kMod * a + kMod * kMod - 32 * (s1 % kMod)) % kMod;
  for (int o = 16; o > 0; o >>= 1) {
    a += __shfl_down_sync(kFullWarp, a, o);
    b += __shfl_down_sync(kFullWarp, b, o);
  }
  a = (a + 1) % kMod;
  b = (b + n) % kMod;
  return std::uint32_t(__shfl_sync(kFullWarp, (b << 16) | a, 0));
}

// undo_byte_filter across the warp: the running sum (mod 256) of the deltas - 128, scanned 32 at a
// time, each byte put at its even or odd place.
__device__ void warp_undo_filter(const std::uint8_t* deltas, std::size_t n, std::uint8_t* out, int lane) {
  const std::size_t half = (n + 1) / 2;
  unsigned carry = 0;  // the running value before this round
  for (std::size_t base = 0; base < n; base += 32) {
    const std::size_t i = base + std::size_t(lane);
    unsigned v = i < n ? (i == 0 ? deltas[0] : unsigned(deltas[i]) - 128u) : 0u;
    for (int o = 1; o < 32; o <<= 1) {
      const unsigned up = __shfl_up_sync(kFullWarp, v, o);
      if (lane >= o) v += up;
    }
    const unsigned value = (carry + v) & 0xffu;
    if (i < n) out[i < half ? 2 * i : 2 * (i - half) + 1] = std::uint8_t(value);
    carry = __shfl_sync(kFullWarp, value, 31);
  }
}

__device__ void inflate_block_by_warp(const BlockBatch& batch, int i, InflateScratch& tables, int lane) {
  using inflate_detail::Symbol;
  const BlockDesc b = batch.blocks[i];
  const BlockFile& f = batch.files[b.file];
  const std::uint8_t* packed = f.packed + b.packed_offset;
  std::uint8_t* unpacked = f.unpacked + b.unpacked_offset;
  const std::size_t packed_size = std::size_t(b.packed_size), capacity = std::size_t(b.unpacked_size);
  BlockResult r{BlockStatus::ok, InflateStatus::ok, PizStatus::ok};
  if (stored_as_is(f.compression, packed_size, capacity)) {
    copy_by_threads(packed, unpacked, capacity, lane, 32);
    if (lane == 0) f.results[b.index] = r;
    return;
  }
  std::uint8_t* inflated = f.entropy + b.unpacked_offset;
  r.inflate = inflate_detail::check_zlib_header(packed, packed_size);
  WarpInflate st{{packed, packed_size, 2, 0, 0}, 0, false, false};
  while (r.inflate == InflateStatus::ok) {
    Symbol s{Symbol::end_of_block, 0, 0};
    if (lane == 0) s = next_match(st, tables, inflated, capacity);
    const int kind = __shfl_sync(kFullWarp, int(s.kind), 0);
    const int value = __shfl_sync(kFullWarp, s.value, 0);
    if (kind != Symbol::match) {
      if (kind == Symbol::error) r.inflate = InflateStatus(value);
      break;
    }
    const std::uint32_t distance = __shfl_sync(kFullWarp, s.distance, 0);
    const std::size_t at = __shfl_sync(kFullWarp, (unsigned long long)st.produced, 0);
    __syncwarp();  // lane 0's literals are visible to the lanes that copy them
    // Overlapping copies repeat the last `distance` bytes: every byte's source is already written.
    const std::uint8_t* from = inflated + (at - distance);
    for (int k = lane; k < value; k += 32) inflated[at + std::size_t(k)] = from[std::uint32_t(k) < distance ? k : std::uint32_t(k) % distance];
    __syncwarp();
    if (lane == 0) st.produced += std::size_t(value);
  }
  const std::size_t produced = __shfl_sync(kFullWarp, (unsigned long long)st.produced, 0);
  if (r.inflate == InflateStatus::ok) {
    std::uint32_t expected = 0;
    int found = 0;
    if (lane == 0) found = inflate_detail::read_adler32(st.reader, &expected);
    found = __shfl_sync(kFullWarp, found, 0);
    expected = __shfl_sync(kFullWarp, expected, 0);
    if (!found) r.inflate = InflateStatus::input_overrun;
    else if (warp_adler32(inflated, produced, lane) != expected) r.inflate = InflateStatus::bad_checksum;
  }
  if (r.inflate != InflateStatus::ok) r.status = BlockStatus::inflate_failed;
  else if (produced != capacity) r.status = BlockStatus::bad_size;
  else warp_undo_filter(inflated, capacity, unpacked, lane);
  if (lane == 0) f.results[b.index] = r;
}

// ---- PIZ: a thread block per EXR block. Thread 0 reads the tables; the threads copy the short
// codes' table into shared memory; thread 0 decodes the Huffman codes (serial by nature: shared
// memory makes each value a fast load instead of a slow global one); the threads then undo the
// wavelet level by level and write the rows through the LUT.

struct PizShared {
  std::uint32_t fast[1 << piz_detail::kFastBits];  // 32 KB
  PizLayout layout;
  BlockStatus status;
};

// Block i of the batch, its tables in `s`; every thread of the thread block calls it.
__device__ void piz_block_by_threads(const BlockBatch& batch, int i, PizScratch& s, PizShared& shared) {
  const int t = int(threadIdx.x);
  const BlockDesc b = batch.blocks[i];
  const BlockFile& f = batch.files[b.file];
  const std::uint8_t* packed = f.packed + b.packed_offset;
  std::uint8_t* unpacked = f.unpacked + b.unpacked_offset;
  const std::size_t packed_size = std::size_t(b.packed_size), unpacked_size = std::size_t(b.unpacked_size);
  if (stored_as_is(f.compression, packed_size, unpacked_size)) {
    copy_by_threads(packed, unpacked, unpacked_size, t, kThreads);
    if (t == 0) f.results[b.index] = BlockResult{BlockStatus::ok, InflateStatus::ok, PizStatus::ok};
    return;
  }
  auto* values = reinterpret_cast<std::uint16_t*>(f.entropy + b.unpacked_offset);
  BlockResult r{BlockStatus::ok, InflateStatus::ok, PizStatus::ok};
  if (t == 0) {
    if (unpacked_size % 2) r.status = BlockStatus::bad_size;
    else r.piz = piz_setup(packed, packed_size, unpacked_size, f.channels, f.channel_count, b.width, b.height, s, &shared.layout);
    if (r.piz != PizStatus::ok) r.status = BlockStatus::piz_failed;
    shared.status = r.status;
  }
  __syncthreads();
  if (shared.status == BlockStatus::ok) {
    for (int k = t; k < (1 << piz_detail::kFastBits); k += kThreads) shared.fast[k] = piz_detail::fast_entry(s.dec, k);
    __syncthreads();
    if (t == 0) {
      r.piz = piz_huffman(shared.layout, s, shared.fast, values);
      if (r.piz != PizStatus::ok) r.status = BlockStatus::piz_failed;
      shared.status = r.status;
    }
  }
  if (t == 0) f.results[b.index] = r;
  __syncthreads();
  if (shared.status != BlockStatus::ok) return;
  const bool w14 = shared.layout.max_value < (1 << 14);
  int ox = 0, oy = 0;
  for (int plane = 0; std::uint16_t* p = piz_plane(values, f.channels, f.channel_count, b.width, b.height, plane, &ox, &oy); ++plane)
    for (int p2 = piz_detail::wavelet_first_p2(b.width, b.height); p2 >= 2; p2 >>= 1) {
      const piz_detail::WaveletLevel l = piz_detail::wavelet_level(b.width, b.height, p2);
      for (int k = t; k < l.pieces(); k += kThreads) piz_detail::wavelet_piece(p, ox, oy, l, w14, k);
      __syncthreads();
    }
  piz_rows(values, s.lut, unpacked, f.channels, f.channel_count, b.width, b.height, t, kThreads);
}

union DecompressShared {
  InflateScratch inflate[kInflateWarps];
  PizShared piz;
};

// One launch for every kind of block, so that a batch's ZIP and PIZ files decode side by side:
// the first thread blocks inflate (a warp per block), the next do NONE and RLE (a thread per
// block), the last PIZ (a thread block per block).
__global__ void decompress_blocks_kernel(BlockBatch batch) {
  __shared__ DecompressShared shared;
  const int zip_blocks = (batch.zip_count + kInflateWarps - 1) / kInflateWarps;
  const int other_blocks = (batch.other_count + kThreads - 1) / kThreads;
  int cta = int(blockIdx.x);
  if (cta < zip_blocks) {
    const int warp = int(threadIdx.x) / 32;
    const int i = cta * kInflateWarps + warp;
    if (i < batch.zip_count) inflate_block_by_warp(batch, i, shared.inflate[warp], int(threadIdx.x) % 32);
    return;
  }
  cta -= zip_blocks;
  if (cta < other_blocks) {
    const int i = cta * kThreads + int(threadIdx.x);
    if (i < batch.other_count) stored_rle_block(batch, batch.zip_count + i);
    return;
  }
  cta -= other_blocks;
  piz_block_by_threads(batch, batch.zip_count + batch.other_count + cta, batch.piz[cta], shared.piz);
}

__global__ void unpack_blocks_kernel(BlockBatch batch) {
  const BlockDesc b = batch.blocks[blockIdx.x];
  const BlockFile& f = batch.files[b.file];
  if (f.results[b.index].status != BlockStatus::ok) return;
  const std::size_t bytes_per_row = row_bytes(f.channels, f.channel_count, b.width);
  const std::uint8_t* unpacked = f.unpacked + b.unpacked_offset;
  for (int r = 0; r < b.height; ++r)
    for (int x = int(threadIdx.x); x < b.width; x += int(blockDim.x))
      unpack_pixel(unpacked + std::size_t(r) * bytes_per_row, f.channels, f.channel_count, b.width, f.pixels, b.x, b.y + r, x);
}

}  // namespace

void decompress_blocks_gpu(const BlockBatch& batch, cudaStream_t stream) {
  if (batch.count() <= 0) return;
  const int grid = (batch.zip_count + kInflateWarps - 1) / kInflateWarps + (batch.other_count + kThreads - 1) / kThreads +
                   batch.piz_count;
  decompress_blocks_kernel<<<grid, kThreads, 0, stream>>>(batch);
  GP_CUDA_CHECK(cudaGetLastError(), "EXR decompress_blocks launch (" + std::to_string(batch.zip_count) + " ZIP, " +
                                        std::to_string(batch.other_count) + " NONE/RLE, " +
                                        std::to_string(batch.piz_count) + " PIZ blocks)");
}

void unpack_blocks_gpu(const BlockBatch& batch, cudaStream_t stream) {
  if (batch.count() <= 0) return;
  unpack_blocks_kernel<<<batch.count(), 128, 0, stream>>>(batch);
  GP_CUDA_CHECK(cudaGetLastError(), "EXR unpack_blocks launch (" + std::to_string(batch.count()) + " blocks)");
}

}  // namespace gp::exr

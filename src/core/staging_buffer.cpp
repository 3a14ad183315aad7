#include "core/staging_buffer.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/parallel_for.hpp"
#include "core/trace.hpp"
#include "cuda/common/cuda_check.hpp"

namespace gp {

namespace {

// Host copies into and out of the pinned chunks, on several cores for large chunks: one core
// copies (and faults in fresh pages) at a few GB/s, well below what the DMA engine moves.
void copy_host(void* dst, const void* src, std::size_t bytes) {
  constexpr long piece = long(4) << 20;
  parallel_for((long(bytes) + piece - 1) / piece, [&](long p0, long p1) {
    const std::size_t begin = std::size_t(p0) * piece, end = std::min(bytes, std::size_t(p1) * piece);
    std::memcpy(static_cast<unsigned char*>(dst) + begin, static_cast<const unsigned char*>(src) + begin, end - begin);
  }, 1);
}

}  // namespace

StagingBuffer::StagingBuffer(Runtime& runtime, std::size_t chunk_bytes) : runtime_(&runtime), chunk_(chunk_bytes) {
  for (int k = 0; k < 2; ++k) {
    chunks_.push_back(runtime.pinned_alloc(chunk_bytes));
    done_.emplace_back();
  }
}

void StagingBuffer::grow(std::size_t bytes) {
  if (bytes <= chunk_) return;
  for (int k = 0; k < 2; ++k) {
    done_[k].synchronize();
    chunks_[k] = runtime_->pinned_alloc(bytes);
  }
  chunk_ = bytes;
}

void StagingBuffer::upload(const Stream& stream, void* device_dst, const void* host_src, std::size_t bytes) {
  const auto* src = static_cast<const unsigned char*>(host_src);
  upload_from(stream, device_dst, bytes, 1,
              [&](void* chunk, std::size_t at, std::size_t n) { copy_host(chunk, src + at, n); });
}

void StagingBuffer::download(const Stream& stream, void* host_dst, const void* device_src, std::size_t bytes) {
  auto* dst = static_cast<unsigned char*>(host_dst);
  download_to(stream, device_src, bytes, 1,
              [&](const void* chunk, std::size_t at, std::size_t n) { copy_host(dst + at, chunk, n); });
}

void StagingBuffer::upload_from(const Stream& stream, void* device_dst, std::size_t bytes, std::size_t unit,
                                const Fill& fill) {
  grow(unit);
  const std::size_t chunk = chunk_for(std::max<std::size_t>(unit, 1));
  auto* dst = static_cast<unsigned char*>(device_dst);
  for (std::size_t at = 0, k = 0; at < bytes; at += chunk, ++k) {
    const std::size_t n = std::min(chunk, bytes - at);
    Event& free_again = done_[k % 2];
    free_again.synchronize();  // this chunk's previous DMA has read it
    fill(chunks_[k % 2].get(), at, n);
    stream.copy_to_device(dst + at, chunks_[k % 2].get(), n);
    free_again.record(stream);
  }
}

void StagingBuffer::download_to(const Stream& stream, const void* device_src, std::size_t bytes, std::size_t unit,
                                const Drain& drain) {
  grow(unit);
  const std::size_t chunk = chunk_for(std::max<std::size_t>(unit, 1));
  const auto* src = static_cast<const unsigned char*>(device_src);
  // Chunk k's DMA is queued before chunk k-1 is drained, so the two overlap.
  std::size_t pending_at = 0, pending_n = 0, k = 0;
  auto drain_slot = [&](std::size_t slot) {
    done_[slot].synchronize();
    drain(chunks_[slot].get(), pending_at, pending_n);
  };
  for (std::size_t at = 0; at < bytes; at += chunk, ++k) {
    const std::size_t n = std::min(chunk, bytes - at);
    done_[k % 2].synchronize();  // not still being filled for an earlier chunk
    stream.copy_to_host(chunks_[k % 2].get(), src + at, n);
    done_[k % 2].record(stream);
    if (k > 0) drain_slot((k - 1) % 2);
    pending_at = at, pending_n = n;
  }
  if (k > 0) drain_slot((k - 1) % 2);
}

}  // namespace gp

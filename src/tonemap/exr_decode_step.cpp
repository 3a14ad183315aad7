#include "tonemap/exr_decode_step.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/trace.hpp"

namespace gp::tonemap {
namespace {

// PIZ tables (about 1 MB a block) for at most this many blocks at once: a batch's PIZ blocks run
// in launches of that many (more would add little: the GPU holds about this many thread blocks).
constexpr int kMostPizTables = 1024;

// Tables for as many of `blocks` PIZ blocks as memory allows, halving on out-of-memory.
exr::PizScratch* alloc_piz_tables(ComputeBackend& b, int blocks, int* window) {
  *window = std::min(blocks, kMostPizTables);
  if (*window == 0) return nullptr;
  for (;;) {
    try {
      return static_cast<exr::PizScratch*>(b.alloc(exr::piz_tables_bytes(*window), "EXR PIZ tables"));
    } catch (const GpuOutOfMemory&) {
      if (*window == 1) throw;
      *window = (*window + 1) / 2;
    }
  }
}

}  // namespace

DecodedSources decode_exr_items(const std::vector<TonemapItem*>& items, ComputeBackend& b) {
  ScopedStage span("exr blocks");
  DecodedSources out;
  out.pixels.assign(items.size(), nullptr);
  out.errors.assign(items.size(), nullptr);
  io::ExrBlockBatch batch;
  std::vector<std::size_t> batched;  // the items in the batch, in its file order
  for (std::size_t k = 0; k < items.size(); ++k) {
    TonemapItem& item = *items[k];
    try {
      batch.add(item.name, item.file.size(), *item.exr_blocks, item.plan);
      batched.push_back(k);
    } catch (...) {
      out.errors[k] = std::current_exception();
    }
  }
  if (batched.empty()) return out;

  // The sources first: they outlive the decoder's scratch, released from `scratch` on.
  std::vector<exr::PixelTarget> targets;
  for (std::size_t k : batched) {
    const io::ReadPlan& plan = items[k]->plan;
    out.pixels[k] = b.alloc(plan.bytes(), "source image");
    targets.push_back(io::exr_pixel_target(plan, out.pixels[k], plan.row_bytes()));
  }
  const std::size_t scratch = b.mark();
  b.begin_stage("exr upload");
  auto* packed = static_cast<std::uint8_t*>(b.alloc(batch.packed_bytes(), "EXR file bytes"));
  for (int f = 0; f < batch.files(); ++f) {
    TonemapItem& item = *items[batched[std::size_t(f)]];
    b.upload(packed + batch.packed_offset(f), item.file.get(), item.file.size());
  }
  auto* channels = static_cast<exr::ChannelTarget*>(b.alloc(batch.channels().size() * sizeof(exr::ChannelTarget), "EXR channels"));
  b.upload(channels, batch.channels().data(), batch.channels().size() * sizeof(exr::ChannelTarget));
  const io::ExrBlockBatch::Buffers buffers{
      packed,
      static_cast<std::uint8_t*>(b.alloc(batch.unpacked_bytes(), "EXR unpacked blocks")),
      static_cast<std::uint8_t*>(b.alloc(batch.unpacked_bytes(), "EXR entropy scratch")),
      static_cast<exr::BlockResult*>(b.alloc(std::size_t(batch.block_count()) * sizeof(exr::BlockResult), "EXR block results")),
      channels};
  const std::vector<exr::BlockFile> files = batch.block_files(buffers, targets);
  auto* device_files = static_cast<exr::BlockFile*>(b.alloc(files.size() * sizeof(exr::BlockFile), "EXR files"));
  b.upload(device_files, files.data(), files.size() * sizeof(exr::BlockFile));
  int piz_window = 0;
  exr::PizScratch* piz = alloc_piz_tables(b, batch.block_count(exr::Compression::piz), &piz_window);
  std::vector<io::ExrBlockBatch::Launch> launches;
  const std::vector<exr::BlockDesc> descs = batch.descs(&launches, piz_window);
  auto* device_descs = static_cast<exr::BlockDesc*>(b.alloc(descs.size() * sizeof(exr::BlockDesc), "EXR blocks"));
  b.upload(device_descs, descs.data(), descs.size() * sizeof(exr::BlockDesc));
  b.end_stage();

  b.begin_stage("exr decode");
  for (const io::ExrBlockBatch::Launch& l : launches) {
    const exr::BlockBatch kernels{device_descs + l.first, l.zip_count, l.other_count, l.piz_count, device_files, piz};
    b.exr_decompress(kernels);
    b.exr_unpack(kernels);
  }
  b.end_stage();
  std::vector<exr::BlockResult> results(std::size_t(batch.block_count()));
  b.download(results.data(), buffers.results, results.size() * sizeof(exr::BlockResult));
  b.release_to(scratch);
  for (int f = 0; f < batch.files(); ++f) {
    const std::size_t k = batched[std::size_t(f)];
    try {
      batch.check(f, results.data());
    } catch (...) {
      out.errors[k] = std::current_exception();
      out.pixels[k] = nullptr;
    }
  }
  return out;
}

}  // namespace gp::tonemap

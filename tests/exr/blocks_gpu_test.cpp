// cuda/exr's kernels against their CPU references (decode_exr_blocks_cpu, itself bit for bit with
// OpenEXR Core in exr_blocks_test.cpp): every block of every layout decoded on the GPU gives the
// same pixels, byte for byte, and a damaged block the same status.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/exr/exr_kernels.hpp"
#include "exr/exr_block_files.hpp"
#include "support/exr_frames.hpp"
#include "io/exr_blocks.hpp"
#include "io/file_bytes.hpp"
#include "io/image_source.hpp"
#include "support/test_data.hpp"

namespace {

using gp::io::ReadPlan;

struct GpuDecoded {
  std::vector<std::vector<unsigned char>> pixels;  // per file
  std::vector<std::vector<gp::exr::BlockResult>> results;
};

// The files uploaded as one batch (gp::io::ExrBlockBatch), every block decompressed and unpacked
// on the GPU, one launch (then PIZ piz_window blocks at a time); pixels and results back.
GpuDecoded decode_gpu(gp::Runtime& rt, const std::vector<const gp::test::OpenedExr*>& files, std::size_t pitch_padding,
                      int piz_window = 1 << 30) {
  const gp::Stream stream = rt.make_stream();
  gp::io::ExrBlockBatch batch;
  for (const gp::test::OpenedExr* e : files) batch.add(e->path, e->file.size(), e->blocks, e->plan);
  std::vector<gp::exr::BlockDesc> descs;
  std::vector<gp::io::ExrBlockBatch::Launch> launches;
  descs = batch.descs(&launches, piz_window);
  auto d_packed = rt.device_alloc(batch.packed_bytes() + 1, stream, "test EXR files");
  auto d_unpacked = rt.device_alloc(batch.unpacked_bytes() + 1, stream, "test unpacked");
  auto d_entropy = rt.device_alloc(batch.unpacked_bytes() + 1, stream, "test entropy");
  const int piz_blocks = std::min(piz_window, batch.block_count(gp::exr::Compression::piz));
  auto d_piz = rt.device_alloc(gp::exr::piz_tables_bytes(piz_blocks) + 1, stream, "test PIZ tables");
  auto d_results = rt.device_alloc(std::size_t(batch.block_count()) * sizeof(gp::exr::BlockResult), stream, "test results");
  auto d_channels = rt.device_alloc(batch.channels().size() * sizeof(gp::exr::ChannelTarget), stream, "test channels");
  auto d_descs = rt.device_alloc(descs.size() * sizeof(gp::exr::BlockDesc), stream, "test block descs");
  GpuDecoded out;
  std::vector<gp::DeviceBuffer> d_pixels;
  std::vector<gp::exr::PixelTarget> targets;
  for (std::size_t k = 0; k < files.size(); ++k) {
    const ReadPlan& plan = files[k]->plan;
    const std::size_t pitch = plan.row_bytes() + pitch_padding;
    out.pixels.emplace_back(pitch * std::size_t(plan.height), 0xEE);  // the same marked padding as the CPU side
    d_pixels.push_back(rt.device_alloc(out.pixels[k].size(), stream, "test pixels"));
    stream.copy_to_device(d_pixels[k].get(), out.pixels[k].data(), out.pixels[k].size());
    targets.push_back(gp::io::exr_pixel_target(plan, d_pixels[k].get(), pitch));
    stream.copy_to_device(d_packed.as<std::uint8_t>() + batch.packed_offset(int(k)), files[k]->file.data(), files[k]->file.size());
  }
  const std::vector<gp::exr::BlockFile> block_files = batch.block_files(
      {d_packed.as<std::uint8_t>(), d_unpacked.as<std::uint8_t>(), d_entropy.as<std::uint8_t>(),
       d_results.as<gp::exr::BlockResult>(), d_channels.as<gp::exr::ChannelTarget>()},
      targets);
  auto d_files = rt.device_alloc(block_files.size() * sizeof(gp::exr::BlockFile), stream, "test block files");
  stream.copy_to_device(d_files.get(), block_files.data(), block_files.size() * sizeof(gp::exr::BlockFile));
  stream.copy_to_device(d_channels.get(), batch.channels().data(), batch.channels().size() * sizeof(gp::exr::ChannelTarget));
  stream.copy_to_device(d_descs.get(), descs.data(), descs.size() * sizeof(gp::exr::BlockDesc));
  for (const auto& l : launches) {
    const gp::exr::BlockBatch kernels{d_descs.as<gp::exr::BlockDesc>() + l.first, l.zip_count, l.other_count, l.piz_count,
                                      d_files.as<gp::exr::BlockFile>(), d_piz.as<gp::exr::PizScratch>()};
    gp::exr::decompress_blocks_gpu(kernels, stream.get());
    gp::exr::unpack_blocks_gpu(kernels, stream.get());
  }
  std::vector<gp::exr::BlockResult> results(std::size_t(batch.block_count()));
  stream.copy_to_host(results.data(), d_results.get(), results.size() * sizeof(gp::exr::BlockResult));
  for (std::size_t k = 0; k < files.size(); ++k) stream.copy_to_host(out.pixels[k].data(), d_pixels[k].get(), out.pixels[k].size());
  stream.synchronize("test EXR blocks on the GPU");
  std::size_t at = 0;
  for (const gp::test::OpenedExr* e : files) {
    out.results.emplace_back(results.begin() + long(at), results.begin() + long(at + e->blocks.blocks.size()));
    at += e->blocks.blocks.size();
  }
  return out;
}

std::vector<unsigned char> decode_cpu(const gp::test::OpenedExr& e, std::size_t pitch_padding) {
  const std::size_t pitch = e.plan.row_bytes() + pitch_padding;
  std::vector<unsigned char> cpu(pitch * std::size_t(e.plan.height), 0xEE);
  gp::io::decode_exr_blocks_cpu(e.path, e.file.data(), e.file.size(), e.blocks, e.plan, cpu.data(), pitch, 4);
  return cpu;
}

// Every layout of every compression the decoder has, written to `dir`.
std::vector<gp::test::OpenedExr> all_layouts(const std::string& dir_name) {
  const auto dir = gp::test::scratch_dir(dir_name);
  std::vector<gp::test::OpenedExr> files;
  for (const char* compression : {"none", "rle", "zips", "zip", "piz"})
    for (const auto& [name, layout] : gp::test::exr_layouts(compression)) {
      const std::string path = (dir / (std::string(compression) + "-" + name + "-" + std::to_string(files.size()) + ".exr")).string();
      gp::test::write_exr_frame(path, layout);
      files.push_back(gp::test::open_exr_blocks(path));
    }
  return files;
}

}  // namespace

TEST_CASE("EXR blocks on the GPU: the CPU reference's pixels, byte for byte", "[exr][blocks][gpu]") {
  gp::Runtime rt{gp::RuntimeOptions{}};
  const std::vector<gp::test::OpenedExr> files = all_layouts("exr-blocks-gpu");
  std::vector<const gp::test::OpenedExr*> all;
  for (const gp::test::OpenedExr& e : files) {
    all.push_back(&e);
    const GpuDecoded gpu = decode_gpu(rt, {&e}, 8);
    INFO(e.path << ": " << e.blocks.blocks.size() << " blocks");
    for (const gp::exr::BlockResult& r : gpu.results[0]) REQUIRE(r.status == gp::exr::BlockStatus::ok);
    CHECK(gpu.pixels[0] == decode_cpu(e, 8));
  }
  SECTION("every file in one batch: one launch (then PIZ 3 blocks at a time), each file's pixels its own") {
    const GpuDecoded gpu = decode_gpu(rt, all, 0, 3);
    for (std::size_t k = 0; k < files.size(); ++k) {
      INFO(files[k].path);
      CHECK(gpu.pixels[k] == decode_cpu(files[k], 0));
    }
  }
}

TEST_CASE("EXR blocks on the GPU: damaged blocks give the CPU's statuses", "[exr][blocks][gpu]") {
  gp::Runtime rt{gp::RuntimeOptions{}};
  const auto dir = gp::test::scratch_dir("exr-blocks-gpu-damaged");
  for (const char* compression : {"zip", "rle", "piz"}) {
    const std::string path = (dir / (std::string(compression) + ".exr")).string();
    gp::test::ExrLayout layout;
    layout.compression = compression;
    gp::test::write_exr_frame(path, layout);
    gp::test::OpenedExr e = gp::test::open_exr_blocks(path);
    // Every other block garbled in place; the rest must still decode.
    for (std::size_t i = 0; i < e.blocks.blocks.size(); i += 2)
      for (std::uint64_t k = 0; k < e.blocks.blocks[i].packed_size; k += 5) e.file[e.blocks.blocks[i].offset + k] ^= 0xa5;
    const std::vector<gp::exr::BlockResult> cpu = gp::test::block_results_cpu(e);
    const GpuDecoded gpu = decode_gpu(rt, {&e}, 0);
    INFO(compression);
    REQUIRE(gpu.results[0].size() == cpu.size());
    for (std::size_t i = 0; i < cpu.size(); ++i) {
      INFO("block " << i);
      CHECK(gpu.results[0][i].status == cpu[i].status);
      CHECK(gpu.results[0][i].inflate == cpu[i].inflate);
      CHECK(gpu.results[0][i].piz == cpu[i].piz);
      if (i % 2) CHECK(cpu[i].status == gp::exr::BlockStatus::ok);
    }
  }
}

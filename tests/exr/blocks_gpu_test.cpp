// cuda/exr's kernels against their CPU references (decode_exr_blocks_cpu, itself bit for bit with
// OpenEXR Core in exr_blocks_test.cpp): every block of every layout decoded on the GPU gives the
// same pixels, byte for byte, and a damaged block the same status.
#include <catch2/catch.hpp>

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
  std::vector<unsigned char> pixels;
  std::vector<gp::exr::BlockResult> results;
};

// The whole file uploaded, every block decompressed and unpacked on the GPU, pixels back.
GpuDecoded decode_gpu(gp::Runtime& rt, const std::string& path, const std::vector<std::uint8_t>& file,
                      const gp::io::ExrBlocks& blocks, const ReadPlan& plan, std::size_t pitch) {
  const gp::Stream stream = rt.make_stream();
  std::uint64_t unpacked_total = 0;
  const std::vector<gp::exr::ChannelTarget> channels = gp::io::exr_channel_targets(blocks, plan);
  const std::vector<gp::exr::BlockDesc> descs =
      gp::io::exr_block_descs(path, file.size(), blocks, channels, plan, &unpacked_total);
  const int count = int(descs.size());
  auto d_file = rt.device_alloc(file.size(), stream, "test EXR file");
  auto d_descs = rt.device_alloc(descs.size() * sizeof(gp::exr::BlockDesc), stream, "test block descs");
  auto d_channels = rt.device_alloc(channels.size() * sizeof(gp::exr::ChannelTarget), stream, "test channels");
  auto d_unpacked = rt.device_alloc(std::size_t(unpacked_total) + 1, stream, "test unpacked");
  auto d_entropy = rt.device_alloc(std::size_t(unpacked_total) + 1, stream, "test entropy");
  auto d_tables = rt.device_alloc(gp::exr::inflate_tables_bytes(count), stream, "test inflate tables");
  auto d_results = rt.device_alloc(std::size_t(count) * sizeof(gp::exr::BlockResult), stream, "test results");
  auto d_pixels = rt.device_alloc(pitch * std::size_t(plan.height), stream, "test pixels");
  GpuDecoded out;
  out.pixels.assign(pitch * std::size_t(plan.height), 0xEE);  // the same marked padding as the CPU side
  stream.copy_to_device(d_file.get(), file.data(), file.size());
  stream.copy_to_device(d_descs.get(), descs.data(), descs.size() * sizeof(gp::exr::BlockDesc));
  stream.copy_to_device(d_channels.get(), channels.data(), channels.size() * sizeof(gp::exr::ChannelTarget));
  stream.copy_to_device(d_pixels.get(), out.pixels.data(), out.pixels.size());
  const bool piz = blocks.compression == int(gp::exr::Compression::piz);
  auto d_piz = rt.device_alloc(piz ? gp::exr::piz_tables_bytes(count) : 1, stream, "test PIZ tables");
  const gp::exr::BlockBatch batch{gp::exr::Compression(blocks.compression), d_descs.as<gp::exr::BlockDesc>(), count,
                                  d_channels.as<gp::exr::ChannelTarget>(), int(channels.size()), d_file.as<std::uint8_t>(),
                                  d_unpacked.as<std::uint8_t>(), d_entropy.as<std::uint8_t>(),
                                  d_tables.as<gp::exr::InflateScratch>(), piz ? d_piz.as<gp::exr::PizScratch>() : nullptr,
                                  d_results.as<gp::exr::BlockResult>()};
  gp::exr::decompress_blocks_gpu(batch, stream.get());
  const gp::exr::PixelTarget target{d_pixels.as<std::uint8_t>(), pitch, plan.channel_count(),
                                    plan.type == gp::PixelType::f16 ? gp::exr::SampleType::half : gp::exr::SampleType::float32};
  gp::exr::unpack_blocks_gpu(batch, target, stream.get());
  out.results.resize(descs.size());
  stream.copy_to_host(out.results.data(), d_results.get(), out.results.size() * sizeof(gp::exr::BlockResult));
  stream.copy_to_host(out.pixels.data(), d_pixels.get(), out.pixels.size());
  stream.synchronize("test EXR blocks on the GPU");
  return out;
}

}  // namespace

TEST_CASE("EXR blocks on the GPU: the CPU reference's pixels, byte for byte", "[exr][blocks][gpu]") {
  gp::Runtime rt{gp::RuntimeOptions{}};
  const auto dir = gp::test::scratch_dir("exr-blocks-gpu");
  int files = 0;
  for (const char* compression : {"none", "rle", "zips", "zip", "piz"})
    for (const auto& [name, layout] : gp::test::exr_layouts(compression)) {
      const std::string path = (dir / (std::string(compression) + "-" + std::to_string(files++) + ".exr")).string();
      gp::test::write_exr_frame(path, layout);
      const gp::test::OpenedExr e = gp::test::open_exr_blocks(path);
      const ReadPlan& plan = e.plan;
      const gp::io::ExrBlocks& blocks = e.blocks;
      const std::vector<std::uint8_t>& file = e.file;
      const std::size_t pitch = plan.row_bytes() + 8;
      std::vector<unsigned char> cpu(pitch * std::size_t(plan.height), 0xEE);
      gp::io::decode_exr_blocks_cpu(path, file.data(), file.size(), blocks, plan, cpu.data(), pitch, 4);
      const GpuDecoded gpu = decode_gpu(rt, path, file, blocks, plan, pitch);
      INFO(compression << " " << name << ": " << blocks.blocks.size() << " blocks");
      for (const gp::exr::BlockResult& r : gpu.results) REQUIRE(r.status == gp::exr::BlockStatus::ok);
      CHECK(gpu.pixels == cpu);
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
    const ReadPlan& plan = e.plan;
    const gp::io::ExrBlocks& blocks = e.blocks;
    std::vector<std::uint8_t>& file = e.file;
    // Every other block garbled in place; the rest must still decode.
    for (std::size_t i = 0; i < blocks.blocks.size(); i += 2)
      for (std::uint64_t k = 0; k < blocks.blocks[i].packed_size; k += 5) file[blocks.blocks[i].offset + k] ^= 0xa5;
    std::uint64_t total = 0;
    const std::vector<gp::exr::ChannelTarget> channels = gp::io::exr_channel_targets(blocks, plan);
    const std::vector<gp::exr::BlockDesc> descs = gp::io::exr_block_descs(path, file.size(), blocks, channels, plan, &total);
    std::vector<std::uint8_t> unpacked(total), entropy(total);
    std::vector<gp::exr::BlockResult> cpu(descs.size());
    gp::exr::decompress_blocks_cpu({gp::exr::Compression(blocks.compression), descs.data(), int(descs.size()), channels.data(),
                                    int(channels.size()), file.data(), unpacked.data(), entropy.data(), nullptr, nullptr,
                                    cpu.data()},
                                   2);
    const GpuDecoded gpu = decode_gpu(rt, path, file, blocks, plan, plan.row_bytes());
    INFO(compression);
    REQUIRE(gpu.results.size() == cpu.size());
    for (std::size_t i = 0; i < cpu.size(); ++i) {
      INFO("block " << i);
      CHECK(gpu.results[i].status == cpu[i].status);
      CHECK(gpu.results[i].inflate == cpu[i].inflate);
      CHECK(gpu.results[i].piz == cpu[i].piz);
      if (i % 2) CHECK(cpu[i].status == gp::exr::BlockStatus::ok);
    }
  }
}

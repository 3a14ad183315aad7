// OpenEXR blocks as cuda/exr's steps decode them (the GPU decoder's code, run here on the CPU): the
// input's first kParamBytes bytes choose the compression and the block's shape (width, lines,
// channels of half or float samples), the rest is the block's stored bytes. A BlockResult is the
// documented outcome for any input; a crash, a read or write outside the buffers (ASan) or an
// ok block that did not fill its pixels is a finding. Inflate also runs on the stored bytes alone.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/exr/block_decode.hpp"

namespace {
constexpr std::size_t kParamBytes = 4;
const gp::exr::Compression kCompressions[] = {gp::exr::Compression::none, gp::exr::Compression::rle,
                                              gp::exr::Compression::zips, gp::exr::Compression::zip,
                                              gp::exr::Compression::piz};
gp::exr::InflateScratch tables;
gp::exr::PizScratch piz;  // (1 MB: made once)
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < kParamBytes) return 0;
  const gp::exr::Compression compression = kCompressions[data[0] % 5];
  const int width = 1 + data[1] % 64, height = 1 + data[2] % 32, channel_count = 1 + (data[3] & 3);
  std::vector<gp::exr::ChannelTarget> channels;
  for (int c = 0; c < channel_count; ++c)
    channels.push_back({(data[3] >> (2 + c)) & 1 ? gp::exr::SampleType::float32 : gp::exr::SampleType::half, c});
  const std::size_t unpacked_size = gp::exr::row_bytes(channels.data(), channel_count, width) * std::size_t(height);
  const std::uint8_t* packed = data + kParamBytes;
  const std::size_t packed_size = size - kParamBytes;

  std::vector<std::uint16_t> unpacked((unpacked_size + 1) / 2), scratch((unpacked_size + 1) / 2);  // 2-byte aligned
  auto* out = reinterpret_cast<std::uint8_t*>(unpacked.data());
  const gp::exr::BlockShape shape{channels.data(), channel_count, width, height};
  const gp::exr::BlockResult r =
      gp::exr::decompress_block(compression, packed, packed_size, out, unpacked_size,
                                reinterpret_cast<std::uint8_t*>(scratch.data()), tables, &piz, shape);
  if (r.status == gp::exr::BlockStatus::ok) {
    std::vector<float> pixels(std::size_t(width) * std::size_t(height) * std::size_t(channel_count), -7.f);
    const gp::exr::PixelTarget dst{reinterpret_cast<std::uint8_t*>(pixels.data()), std::size_t(width) * channel_count * 4,
                                   channel_count, gp::exr::SampleType::float32};
    const std::size_t row = gp::exr::row_bytes(channels.data(), channel_count, width);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) gp::exr::unpack_pixel(out + std::size_t(y) * row, channels.data(), channel_count, width, dst, 0, y, x);
  }
  std::vector<std::uint8_t> inflated(1 << 16);
  std::size_t produced = 0;
  gp::exr::inflate_zlib(packed, packed_size, inflated.data(), inflated.size(), &produced, tables);
  if (produced > inflated.size()) __builtin_trap();
  return 0;
}

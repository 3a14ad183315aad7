// The fast PNG kernels against their CPU references: filtered rows, token histogram, Adler-32
// partial sums and the written bit stream must be identical, byte for byte.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "cuda/png/png_kernels.hpp"
#include "io/fast_png.hpp"
#include "png/png_images.hpp"

namespace {

using gp::PixelType;
using gp::test::PngTestImage;

template <class T>
std::vector<T> to_host(gp::Stream& stream, const gp::DeviceBuffer& buffer, std::size_t count) {
  std::vector<T> host(count);
  stream.copy_to_host(host.data(), buffer.get(), count * sizeof(T));
  stream.synchronize("download");
  return host;
}

}  // namespace

TEST_CASE("fast PNG kernels match their CPU references byte for byte", "[png][gpu]") {
  gp::Runtime rt(gp::RuntimeOptions{});
  gp::Stream stream = rt.make_stream();
  const PixelType type = GENERATE(PixelType::u8, PixelType::u16);
  const int channels = GENERATE(1, 3, 4);
  for (auto [width, height, flat_from] : {std::tuple{1, 1, 99}, std::tuple{1237, 531, 400}, std::tuple{3840, 64, 32}}) {
    PngTestImage image(width, height, channels, type, 5, flat_from);
    INFO(width << "x" << height << "x" << channels << (type == PixelType::u8 ? " u8" : " u16"));
    const std::size_t n = gp::png::filtered_size(image.view), segments = gp::png::segment_count(n);

    // CPU reference.
    std::vector<std::uint8_t> filtered(n);
    gp::png::filter_rows_cpu(image.view, filtered.data());
    std::vector<std::uint32_t> histogram(gp::png::kLitLenSymbols);
    std::vector<gp::png::AdlerPartial> partials(segments);
    gp::png::token_histogram_cpu(filtered.data(), n, histogram.data(), partials.data());
    const gp::io::FastPngPlan plan = gp::io::plan_fast_png(histogram.data());
    std::vector<std::uint32_t> words(plan.word_count);
    std::uint64_t end_bit = 0;
    gp::png::encode_segments_cpu(filtered.data(), n, plan.code, plan.header_bits, words.data(), words.size(), &end_bit);

    // GPU, from the same image (pitched rows on the device).
    auto d_image = rt.device_alloc(image.view.bytes(), stream, "image");
    stream.copy_to_device(d_image.get(), image.view.data, image.view.bytes());
    gp::ImageView device_view = image.view;
    device_view.data = d_image.get();
    auto d_filtered = rt.device_alloc(n, stream, "filtered");
    auto d_histogram = rt.device_alloc(gp::png::kLitLenSymbols * 4, stream, "histogram");
    auto d_partials = rt.device_alloc(segments * sizeof(gp::png::AdlerPartial), stream, "partials");
    gp::png::filter_rows_gpu(device_view, d_filtered.as<std::uint8_t>(), stream.get());
    gp::png::token_histogram_gpu(d_filtered.as<std::uint8_t>(), n, d_histogram.as<std::uint32_t>(),
                                 d_partials.as<gp::png::AdlerPartial>(), stream.get());
    CHECK(to_host<std::uint8_t>(stream, d_filtered, n) == filtered);
    CHECK(to_host<std::uint32_t>(stream, d_histogram, histogram.size()) == histogram);
    const auto gpu_partials = to_host<gp::png::AdlerPartial>(stream, d_partials, segments);
    CHECK(std::memcmp(gpu_partials.data(), partials.data(), segments * sizeof(gp::png::AdlerPartial)) == 0);

    const std::size_t scratch_bytes = gp::png::encode_scratch_bytes(n);
    auto d_scratch = rt.device_alloc(scratch_bytes, stream, "scratch");
    auto d_words = rt.device_alloc(words.size() * 4, stream, "words");
    auto d_end = rt.device_alloc(8, stream, "end bit");
    gp::png::encode_segments_gpu(d_filtered.as<std::uint8_t>(), n, plan.code, plan.header_bits, d_words.as<std::uint32_t>(),
                                 words.size(), d_end.as<std::uint64_t>(), d_scratch.get(), scratch_bytes, stream.get());
    CHECK(to_host<std::uint64_t>(stream, d_end, 1)[0] == end_bit);
    CHECK(to_host<std::uint32_t>(stream, d_words, words.size()) == words);
  }
}

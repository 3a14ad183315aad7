#include "tonemap/fast_png_step.hpp"

#include "io/fast_png.hpp"

namespace gp::tonemap {

std::vector<FastPngStream> encode_fast_pngs(const std::vector<ImageView>& images, ComputeBackend& b,
                                            std::vector<std::uint32_t>& streams) {
  const std::size_t count = images.size();
  std::vector<FastPngStream> result(count);
  if (count == 0) return result;
  // Every image's buffers back to back, so each step is one allocation and one download.
  std::vector<std::size_t> bytes(count), byte_at(count + 1, 0), segment_at(count + 1, 0);
  for (std::size_t i = 0; i < count; ++i) {
    bytes[i] = png::filtered_size(images[i]);
    byte_at[i + 1] = byte_at[i] + bytes[i];
    segment_at[i + 1] = segment_at[i] + png::segment_count(bytes[i]);
  }
  auto* filtered = static_cast<std::uint8_t*>(b.alloc(byte_at[count], "png filtered rows"));
  auto* histograms = static_cast<std::uint32_t*>(b.alloc(count * png::kLitLenSymbols * 4, "png histograms"));
  auto* partials = static_cast<png::AdlerPartial*>(b.alloc(segment_at[count] * sizeof(png::AdlerPartial), "png checksums"));

  b.begin_stage("png filter");
  for (std::size_t i = 0; i < count; ++i) {
    b.png_filter(images[i], filtered + byte_at[i]);
    b.png_histogram(filtered + byte_at[i], bytes[i], histograms + i * png::kLitLenSymbols, partials + segment_at[i]);
  }
  b.end_stage();
  std::vector<std::uint32_t> host_histograms(count * png::kLitLenSymbols);
  b.download(host_histograms.data(), histograms, host_histograms.size() * 4);

  // The codes are made on the host: a few hundred symbols, microseconds.
  std::vector<io::FastPngPlan> plans;
  std::vector<std::size_t> word_at(count + 1, 0);
  for (std::size_t i = 0; i < count; ++i) {
    plans.push_back(io::plan_fast_png(&host_histograms[i * png::kLitLenSymbols]));
    word_at[i + 1] = word_at[i] + plans[i].word_count;
  }
  auto* words = static_cast<std::uint32_t*>(b.alloc(word_at[count] * 4, "png streams"));
  auto* end_bits = static_cast<std::uint64_t*>(b.alloc(count * 8, "png stream ends"));
  b.begin_stage("png encode");
  for (std::size_t i = 0; i < count; ++i)
    b.png_encode(filtered + byte_at[i], bytes[i], plans[i].code, plans[i].header_bits, words + word_at[i],
                 plans[i].word_count, end_bits + i);
  b.end_stage();

  const std::size_t base = streams.size();
  streams.resize(base + word_at[count]);
  b.download(streams.data() + base, words, word_at[count] * 4);
  std::vector<png::AdlerPartial> host_partials(segment_at[count]);
  b.download(host_partials.data(), partials, host_partials.size() * sizeof(png::AdlerPartial));
  std::vector<std::uint64_t> host_end_bits(count);
  b.download(host_end_bits.data(), end_bits, count * 8);
  for (std::size_t i = 0; i < count; ++i) {
    result[i].word_offset = base + word_at[i];
    result[i].bytes = io::finish_fast_png(plans[i], streams.data() + result[i].word_offset, host_end_bits[i],
                                          host_partials.data() + segment_at[i], bytes[i]);
  }
  return result;
}

}  // namespace gp::tonemap

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/text.hpp"
#include "core/trace.hpp"
#include "tonemap/exr_decode_step.hpp"
#include "tonemap/fast_png_step.hpp"
#include "tonemap/stages.hpp"

namespace gp::tonemap {
namespace {

unsigned dither_seed(const std::string& input) {
  return unsigned(fnv1a64(std::filesystem::path(input).filename().string()));
}

ImageView rgba_f32(void* data, Size s) { return packed_view(data, s.width, s.height, 4, PixelType::f32); }

// One output to quantise: which float image, its size and channel count, where it goes.
struct EncodeJob {
  EncodedImage::Role role;
  int level;
  std::string path;
  ImageView source;  // f32x4 in working memory
  int channels;
};

}  // namespace

void compute_stage(TonemapItem& item, const Settings& s, HostPool& memory, ComputeBackend& b, void* source) {
  ScopedStage t("compute");
  const std::size_t working = b.mark();  // what this item allocates from here on
  const Size full{item.plan.width, item.plan.height};
  const int src_channels = item.plan.channel_count();
  ImageView device_src = packed_view(source, full.width, full.height, src_channels, item.plan.type);
  if (!source && item.exr_blocks) {  // decoded here, alone
    DecodedSources decoded = decode_exr_items({&item}, b);
    if (decoded.errors[0]) std::rethrow_exception(decoded.errors[0]);
    device_src.data = decoded.pixels[0];
  } else if (!source) {
    device_src.data = b.alloc(device_src.bytes(), "source image");
    b.begin_stage("upload");
    b.upload(device_src.data, item.source.get(), device_src.bytes());
    b.end_stage();
  }

  // Float levels back to back: level 0, the MIP chain, then the thumbnail if it needs its own.
  const std::vector<Size> levels = s.mip ? mip_chain(full) : std::vector<Size>{full};
  const Size thumb = thumbnail_size(full, s.thumbnail_size);
  const bool thumb_is_level0 = s.thumbnail_size > 0 && thumb.width == full.width && thumb.height == full.height;
  std::size_t float_bytes = 0;
  for (auto& l : levels) float_bytes += std::size_t(l.width) * l.height * 16;
  if (s.thumbnail_size > 0 && !thumb_is_level0) float_bytes += std::size_t(thumb.width) * thumb.height * 16;

  auto* floats = static_cast<unsigned char*>(b.alloc(float_bytes, "float levels"));
  auto* scale = static_cast<float*>(b.alloc(2 * sizeof(float), "exposure scale"));

  std::vector<ImageView> level_views;
  std::size_t offset = 0;
  for (auto& l : levels) {
    level_views.push_back(rgba_f32(floats + offset, l));
    offset += std::size_t(l.width) * l.height * 16;
  }
  const ImageView& level0 = level_views[0];

  b.begin_stage("convert");
  tone::ChannelMap map;
  std::copy(item.plan.rgba_index, item.plan.rgba_index + 4, map.index);
  b.to_rgba(device_src, map, level0);
  b.end_stage();

  const float base_scale = std::exp2(s.exposure_ev);
  b.begin_stage("exposure");
  if (s.auto_exposure)
    b.auto_exposure(level0, s.auto_params, base_scale, scale);
  else
    b.set_scale(scale, base_scale);
  b.end_stage();

  b.begin_stage("tonemap");
  b.tonemap(level0, level0, s.tone, scale);
  b.end_stage();

  if (levels.size() > 1) {
    b.begin_stage("mip");
    for (std::size_t l = 1; l < levels.size(); ++l) b.resample(level_views[l - 1], level_views[l], s.mip_filter);
    b.end_stage();
  }

  ImageView thumb_view;
  if (s.thumbnail_size > 0) {
    if (thumb_is_level0) {
      thumb_view = level0;
    } else {
      // Start from the smallest level still at least the thumbnail's size: same quality, less work.
      std::size_t from = 0;
      for (std::size_t l = 0; l < level_views.size(); ++l)
        if (level_views[l].width >= thumb.width && level_views[l].height >= thumb.height) from = l;
      thumb_view = rgba_f32(floats + offset, thumb);
      b.begin_stage("thumbnail");
      b.resample(level_views[from], thumb_view, s.thumbnail_filter);
      b.end_stage();
    }
  }

  // Everything that gets written, quantised into one buffer so one download brings it all back.
  const int main_channels = output_channels(item.outputs.main, item.has_alpha, s.alpha);
  std::vector<EncodeJob> jobs{{EncodedImage::Role::main, 0, item.outputs.main, level0, main_channels}};
  for (std::size_t l = 1; l < levels.size(); ++l) {
    const std::string& path = s.mip_layout == "tiled" ? item.outputs.mip_tiled : item.outputs.mip_files[l - 1];
    jobs.push_back({EncodedImage::Role::mip_level, int(l), path, level_views[l], main_channels});
  }
  if (s.thumbnail_size > 0)
    jobs.push_back({EncodedImage::Role::thumbnail, 0, item.outputs.thumbnail, thumb_view,
                    output_channels(item.outputs.thumbnail, item.has_alpha, s.alpha)});
  const PixelType out_type = s.bits == 16 ? PixelType::u16 : PixelType::u8;
  std::size_t encoded_bytes = 0;
  for (auto& j : jobs) encoded_bytes += std::size_t(j.source.width) * j.source.height * j.channels * pixel_type_bytes(out_type);

  auto* encoded = static_cast<unsigned char*>(b.alloc(encoded_bytes, "encoded outputs"));
  std::vector<ImageView> quantized;
  b.begin_stage("quantize");
  std::size_t at = 0;
  for (auto& j : jobs) {
    ImageView out = packed_view(encoded + at, j.source.width, j.source.height, j.channels, out_type);
    tone::EncodeParams p = s.encode;
    // From the file's name, not its place in the batch: adding a file must not change the others.
    p.seed = dither_seed(item.input.path) * 131u + unsigned(j.level);
    b.encode(j.source, out, p);
    quantized.push_back(out);
    at += out.bytes();
  }
  b.end_stage();

  // Fast PNGs are finished here and come back compressed; the rest come back as pixels.
  std::vector<ImageView> fast_views;
  std::vector<std::size_t> fast_jobs, pixel_jobs;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const bool in_tiled_file = jobs[k].role == EncodedImage::Role::mip_level && s.mip_layout == "tiled";
    if (!in_tiled_file && uses_fast_png(jobs[k].path, s)) {
      fast_jobs.push_back(k);
      fast_views.push_back(quantized[k]);
    } else {
      pixel_jobs.push_back(k);
    }
  }
  item.images.clear();
  item.png_streams.clear();
  for (auto& j : jobs) item.images.push_back({j.role, j.level, j.path, {}});
  const std::vector<FastPngStream> streams = encode_fast_pngs(fast_views, b, item.png_streams);
  for (std::size_t f = 0; f < fast_jobs.size(); ++f) {
    EncodedImage& image = item.images[fast_jobs[f]];
    image.view = quantized[fast_jobs[f]];
    image.view.data = nullptr;  // only its shape: the pixels stay in working memory
    image.png_word_offset = streams[f].word_offset;
    image.png_bytes = streams[f].bytes;
  }

  std::size_t pixel_bytes = 0;
  for (std::size_t k : pixel_jobs) pixel_bytes += quantized[k].bytes();
  item.pixels = memory.alloc(pixel_bytes);
  b.begin_stage("download");
  std::size_t host_at = 0;
  for (std::size_t k : pixel_jobs) {
    b.download(item.pixels.get() + host_at, quantized[k].data, quantized[k].bytes());
    item.images[k].view = quantized[k];
    item.images[k].view.data = item.pixels.get() + host_at;
    host_at += quantized[k].bytes();
  }
  b.end_stage();
  b.finish();
  item.exposure_scale = s.auto_exposure ? b.read_scale(scale) : base_scale;
  b.release_to(working);
  item.source.reset();  // the decoded source is no longer needed
}

}  // namespace gp::tonemap

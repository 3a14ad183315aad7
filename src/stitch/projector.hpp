#pragma once
// The configured projection of one decoded panorama into its outputs' pixels, on the GPU (the
// calling worker's stream) or the CPU; both run the same kernels' twins (cuda/stitch).
#include <cstdint>
#include <utility>
#include <vector>

#include "core/views.hpp"
#include "cuda/stitch/project.hpp"
#include "stitch/output_plan.hpp"
#include "stitch/stitch_settings.hpp"

namespace gp::stitch {

// One output's pixels in host memory (the panorama's type, u8 or f32, and channel count, packed).
struct OutputImage {
  explicit OutputImage(PlannedOutput planned) : plan(std::move(planned)) {}  // the projection sets type and channels
  PlannedOutput plan;
  std::vector<std::uint8_t> pixels;
  std::vector<std::uint8_t> encoded;  // JPEG bytes when the GPU encoded it (then pixels stay empty)
  std::vector<std::uint8_t> preview;  // float outputs with /output/preview: the tone-mapped u8 RGB
  int channels = 3;
  PixelType type = PixelType::u8;
  ImageView view() { return packed_view(pixels.data(), plan.width, plan.height, channels, type); }
  ImageView preview_view() { return packed_view(preview.data(), plan.width, plan.height, 3, PixelType::u8); }
  std::size_t bytes() const { return std::size_t(plan.width) * plan.height * channels * pixel_type_bytes(type); }
};

class Projector {
 public:
  explicit Projector(const Settings& settings);

  // Allocates each output's pixels, then projects `panorama` (host, u8 or f32) into them. `masks` (mode
  // views; empty: none): one per output, 1 channel of its size, 0 where the output stays black.
  void run_cpu(const ImageView& panorama, std::vector<OutputImage>& outputs,
               const std::vector<ImageView>& masks = {}) const;
  // Device views in and out, queued on `stream`. Mode views takes a remap table for panoramas of
  // this size (build_remap_device) when the caller has one (null: each pixel located anew).
  void run_device(const ImageView& panorama, const std::vector<ImageView>& outputs, cudaStream_t stream,
                  const std::vector<ImageView>& masks = {}, const void* remap_table = nullptr) const;

  // Mode views: where every output pixel samples a panorama of a given size (project.hpp's remap
  // tables), computed once on the device for all the panoramas of that size.
  bool uses_remap_table() const { return settings_.mode == "views"; }
  std::size_t remap_table_bytes(const std::vector<ImageView>& outputs) const;
  // `panorama`'s size matters, not its pixels.
  void build_remap_device(const ImageView& panorama, const std::vector<ImageView>& outputs, void* table,
                          cudaStream_t stream) const;

 private:
  // Each eye's outputs from its part of the panorama (project_eye).
  void project(const ImageView& panorama, const std::vector<ImageView>& dst, const std::vector<ImageView>& masks,
               const cudaStream_t* stream, const void* remap_table) const;
  // Calls the mode's kernel (GPU when `stream` is given) from src into dst (views alike: host or device).
  void project_eye(const ImageView& src, const std::vector<ImageView>& dst, const std::vector<ImageView>& masks,
                   const cudaStream_t* stream, const void* remap_table) const;
  std::vector<PerspectiveTarget> view_targets(const std::vector<ImageView>& dst,
                                              const std::vector<ImageView>& masks) const;
  // The sampling options for a source of src's size (a VR180 eye: a 180-degree source).
  SampleOptions options_for(const ImageView& src) const;

  const Settings& settings_;
  SampleOptions options_;
  std::vector<Camera> cameras_;  // mode views
};

}  // namespace gp::stitch

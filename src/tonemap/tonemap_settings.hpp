#pragma once
// tonemap-exr's job config: the schema (the single source of the documented example and of
// validation) and the typed settings read from a validated config.
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/output_naming.hpp"
#include "cuda/tone/tone_kernels.hpp"
#include "io/image_io.hpp"

namespace gp::tonemap {

const config::Schema& schema();

struct Settings {
  io::ChannelSelection channels;
  bool recursive = false;

  float exposure_ev = 0;
  bool auto_exposure = false;
  tone::AutoExposureParams auto_params;
  tone::ToneParams tone;
  tone::EncodeParams encode;

  OutputNaming naming;        // output.dir, output.mirror_inputs
  std::string name_template;  // main image
  std::string format;         // png, jpg, webp, tif
  int bits = 8;
  std::string alpha;          // auto, drop
  io::WriteOptions write;

  bool mip = false;
  tone::Filter mip_filter = tone::Filter::lanczos3;
  std::string mip_layout;     // files, tiled
  std::string mip_name_template, mip_tiled_template;

  int thumbnail_size = 0;     // longest side; 0 = none
  std::string thumbnail_template;
  tone::Filter thumbnail_filter = tone::Filter::lanczos3;

  int batch = 4;              // images on the GPU at once (one stream each)
  int load_threads = 0, save_threads = 0, max_in_flight = 0;  // 0 = chosen from the machine
  int decode_threads_per_file = 0;  // threads decoding one file together; 0 = chosen from the machine
  std::string exr_decode = "cpu";   // cpu, auto, gpu
  int exr_decode_batch = 4;         // EXR files per GPU decode launch
  bool stop_on_error = false;
};

// Reads a validated config. Throws UsageError for combinations the schema cannot express.
Settings read_settings(const config::json& config);

}  // namespace gp::tonemap

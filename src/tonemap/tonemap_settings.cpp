#include "tonemap/tonemap_settings.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "core/settings_table.hpp"
#include "core/text.hpp"

namespace gp::tonemap {
namespace {

const std::vector<std::string> filter_names = {"box", "triangle", "lanczos3"};

tone::Filter filter_from(const std::string& s) {
  return s == "box" ? tone::Filter::box : s == "triangle" ? tone::Filter::triangle : tone::Filter::lanczos3;
}

using config::member;
using Table = config::SettingsTable<Settings>;

// Each field once: its schema entry and where its value lands in Settings.
Table make_table() {
  Table t("tonemap-exr");
  t.required_string_list("/inputs", "EXR/HDR inputs: files, folders, globs (\"shots/*.exr\") or @list.txt files",
                         config::read_by_batch_job);
  t.object("/input", "how sources are read");
  t.string("/input/layer", "", "EXR part name or channel-name prefix to read (\"\" = the default RGB(A) layer)",
           member(&Settings::channels, &io::ChannelSelection::layer));
  t.string_list("/input/channels", {}, "explicit channel names: 1 (grey), 3 (RGB) or 4 (RGBA); [] = R,G,B(,A)",
                [](Settings& s, const std::vector<std::string>& v) {
                  if (v.size() != 0 && v.size() != 1 && v.size() != 3 && v.size() != 4)
                    throw UsageError("/input/channels: expected 0, 1, 3 or 4 channel names, got " + std::to_string(v.size()));
                  s.channels.channels = v;
                });
  t.boolean("/input/recursive", false, "descend into sub-folders of folder inputs", &Settings::recursive);
  t.boolean("/input/premultiplied", true,
            "colour is premultiplied by alpha (the EXR convention): tone-map straight colour, write straight alpha",
            [](Settings& s, bool v) { s.tone.premultiplied = s.encode.unpremultiply = v; });

  t.object("/exposure", "scene exposure before tone mapping");
  t.number("/exposure/ev", 0.0, -30, 30, "exposure compensation in stops (multiplies by 2^ev)", &Settings::exposure_ev);
  t.boolean("/exposure/auto", false, "scale so the log-average luminance maps to the key value", &Settings::auto_exposure);
  t.number("/exposure/key", 0.18, 0.001, 10, "auto exposure: target log-average luminance (Reinhard's key)",
           member(&Settings::auto_params, &tone::AutoExposureParams::key));
  t.number("/exposure/percentile_low", 0.0, 0, 100, "auto exposure: clamp log-luminances below this percentile",
           member(&Settings::auto_params, &tone::AutoExposureParams::percentile_low));
  t.number("/exposure/percentile_high", 100.0, 0, 100, "auto exposure: clamp log-luminances above this percentile",
           member(&Settings::auto_params, &tone::AutoExposureParams::percentile_high));

  t.object("/tonemap", "the tone curve");
  t.choice("/tonemap/operator", "aces_hill", {std::begin(tone::operator_names), std::end(tone::operator_names)},
           tone::operator_doc, [](Settings& s, const std::string& v) { s.tone.op = tone::operator_named(v); });
  t.number("/tonemap/white", 11.2, 0.01, 1e6, "reinhard_extended: value mapped to white; hable: linear white point",
           member(&Settings::tone, &tone::ToneParams::white));

  t.object("/output", "written images");
  t.output_dir("out/tonemap-exr", "output folder (created); every output name is relative to it",
               member(&Settings::naming, &OutputNaming::dir));
  t.string("/output/name", "{stem}.{ext}", std::string("file name template: {ext} (the format's extension), ") + naming_variables_doc,
           &Settings::name_template);
  t.boolean("/output/mirror_inputs", false, mirror_inputs_doc, member(&Settings::naming, &OutputNaming::mirror_inputs));
  t.choice("/output/format", "png", {"png", "jpg", "webp", "tif"}, "file format (webp only if OpenImageIO has it)",
           &Settings::format);
  t.integer("/output/bits", 8, 8, 16, "8 or 16 bits per channel (16: png or tif)", [](Settings& s, long long v) {
    if (v != 8 && v != 16) throw UsageError("/output/bits: expected 8 or 16, got " + std::to_string(v));
    if (v == 16 && s.format != "png" && s.format != "tif")
      throw UsageError("/output/bits: 16-bit output needs format png or tif, not " + s.format);
    s.bits = int(v);
  });
  t.choice("/output/transfer", "srgb", {"srgb", "gamma", "linear"}, "output transfer function",
           [](Settings& s, const std::string& v) {
             s.encode.transfer = v == "srgb"    ? tone::Transfer::srgb
                                 : v == "gamma" ? tone::Transfer::gamma
                                                : tone::Transfer::linear;
           });
  t.number("/output/gamma", 2.2, 0.1, 10, "transfer gamma: out = in^(1/gamma)",
           member(&Settings::encode, &tone::EncodeParams::gamma));
  t.boolean("/output/dither", true, "triangular dither of +-1 LSB before 8-bit rounding (hides banding)",
            [](Settings& s, bool v) { s.encode.dither = v && s.bits == 8; });
  t.choice("/output/alpha", "auto", {"auto", "drop"}, "auto: keep the source alpha when the format has alpha", &Settings::alpha);
  t.integer("/output/quality", 90, 1, 100, "JPEG/WebP quality", member(&Settings::write, &io::WriteOptions::quality));
  t.integer("/output/png_compression", 6, 0, 9,
            "PNG compression: 1 = fastest, compressed on the GPU (Huffman coding and runs, no LZ77 search); "
            "2-9 = deflate on the CPU (libdeflate; 9 = smallest); 0 = stored",
            member(&Settings::write, &io::WriteOptions::png_compression));

  t.object("/mip", "MIP chain generated on the GPU (levels halve down to 1x1)");
  t.boolean("/mip/enabled", false, "write the MIP chain", &Settings::mip);
  t.choice("/mip/filter", "lanczos3", filter_names, "downsampling filter: box (2x2 average), triangle, lanczos3",
           [](Settings& s, const std::string& v) { s.mip_filter = filter_from(v); });
  t.choice("/mip/layout", "files", {"files", "tiled"}, "files: one file per level; tiled: one tiled MIP-mapped TIFF/EXR",
           &Settings::mip_layout);
  t.string("/mip/name", "{stem}_mip{level}.{ext}", "layout files: name of levels 1..n (level 0 is the main image)",
           &Settings::mip_name_template);
  t.string("/mip/tiled_name", "{stem}.mip.tif", "layout tiled: file name (.tif or .exr), all levels including 0",
           &Settings::mip_tiled_template);

  t.object("/thumbnail", "a small preview per input");
  t.integer("/thumbnail/size", 0, 0, 16384, "longest side in pixels; 0 = no thumbnail", &Settings::thumbnail_size);
  t.string("/thumbnail/name", "{stem}_thumb.jpg", "file name template; the format follows the extension",
           &Settings::thumbnail_template);
  t.choice("/thumbnail/filter", "lanczos3", filter_names, "downsampling filter",
           [](Settings& s, const std::string& v) { s.thumbnail_filter = filter_from(v); });

  t.object("/run", "batching and workers");
  t.integer("/run/batch", 4, 1, 64, "images processed on the GPU at once (one stream each); halved on out-of-memory",
            &Settings::batch);
  t.integer("/run/load_threads", 0, 0, 256, "decode threads; 0 = from the CPU count", &Settings::load_threads);
  t.integer("/run/save_threads", 0, 0, 256, "encode threads; 0 = from the CPU count", &Settings::save_threads);
  t.integer("/run/decode_threads_per_file", 0, 0, 64,
            "threads that decode the blocks of one file together (keeps all cores busy at the end of a batch); "
            "0 = from the CPU count",
            &Settings::decode_threads_per_file);
  // cpu by default: on the benchmark (16 cores, H200) OpenEXR on the CPU still finishes the job
  // sooner (README, tonemap-exr).
  t.choice("/run/exr_decode", "cpu", {"cpu", "auto", "gpu"},
           "EXR decoding: cpu = OpenEXR on CPU threads, gpu = our block decoder on the GPU (NONE, RLE, ZIPS, ZIP, "
           "PIZ; other compressions fail), auto = gpu where the compression allows once the GPU is ready (the files "
           "read while its driver starts are decoded on the CPU meanwhile)",
           &Settings::exr_decode);
  t.integer("/run/exr_decode_batch", 4, 1, 256,
            "EXR files whose blocks one GPU launch decodes together (each stream); more keep the GPU busier, "
            "each holds its working memory until the batch is written",
            &Settings::exr_decode_batch);
  t.integer("/run/max_in_flight", 0, 0, 4096, "items in memory at once (bounds RAM); 0 = automatic", &Settings::max_in_flight);
  t.on_error("items", &Settings::stop_on_error);
  return t;
}

const Table& table() {
  static const Table t = make_table();
  return t;
}

}  // namespace

const config::Schema& schema() { return table().schema(); }

Settings read_settings(const config::json& c) {
  Settings s = table().read(c);
  if (s.auto_params.percentile_low >= s.auto_params.percentile_high)
    throw UsageError("/exposure/percentile_low: must be below /exposure/percentile_high");
  if (!io::can_write_extension("." + s.format))
    throw UsageError("/output/format: this OpenImageIO build cannot write " + s.format);

  // Output names are checked now so a bad template fails before any work.
  auto example = naming_variables(InputItem{"shots/a/x.exr", 0, "a"});
  example["ext"] = s.format;
  example["level"] = "1";
  auto checked = [&](const char* field, const std::string& tmpl) {
    return checked_relative_name(expand_template(tmpl, example), field);
  };
  // The format comes from /output/format: a name with another extension (or none) would be
  // written in another format, or fail after the work.
  for (auto [field, tmpl] : {std::pair{"/output/name", s.name_template}, {"/mip/name", s.mip_name_template}}) {
    const std::string ext = lowercase_extension(checked(field, tmpl));
    if (ext != "." + s.format && !(s.format == "jpg" && ext == ".jpeg") && !(s.format == "tif" && ext == ".tiff"))
      throw UsageError(std::string(field) + ": \"" + tmpl + "\" gives " +
                       (ext.empty() ? std::string("no extension") : "the extension " + ext) + " but /output/format is " +
                       s.format + "; end the name with .{ext}");
  }
  if (s.mip && s.mip_layout == "files" && s.mip_name_template.find("{level") == std::string::npos)
    throw UsageError("/mip/name: \"" + s.mip_name_template + "\" needs {level}: each MIP level has its own file");
  const std::string tiled_ext = lowercase_extension(checked("/mip/tiled_name", s.mip_tiled_template));
  if (s.mip && s.mip_layout == "tiled" && tiled_ext != ".tif" && tiled_ext != ".tiff" && tiled_ext != ".exr")
    throw UsageError("/mip/tiled_name: \"" + s.mip_tiled_template + "\" must end in .tif or .exr");
  const std::string thumb_ext = lowercase_extension(checked("/thumbnail/name", s.thumbnail_template));
  if (s.thumbnail_size > 0 && !io::can_write_extension(thumb_ext))
    throw UsageError("/thumbnail/name: \"" + s.thumbnail_template + "\" needs an image extension this build writes "
                     "(.jpg, .png, .tif...), got " + (thumb_ext.empty() ? std::string("none") : thumb_ext));
  return s;
}

}  // namespace gp::tonemap

#include "tonemap/tonemap_settings.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "core/text.hpp"

namespace gp::tonemap {
namespace {

const std::vector<std::string> operator_names = {"linear", "reinhard", "reinhard_extended", "hable",
                                                 "aces_narkowicz", "aces_hill", "agx", "pbr_neutral"};
const std::vector<std::string> filter_names = {"box", "triangle", "lanczos3"};

Filter filter_from(const std::string& s) {
  return s == "box" ? Filter::box : s == "triangle" ? Filter::triangle : Filter::lanczos3;
}

config::Schema make_schema() {
  config::Schema s("tonemap-exr");
  s.required_string_list("/inputs", "EXR/HDR inputs: files, folders, globs (\"shots/*.exr\") or @list.txt files");
  s.object("/input", "how sources are read");
  s.string("/input/layer", "", "EXR part name or channel-name prefix to read (\"\" = the default RGB(A) layer)");
  s.string_list("/input/channels", {}, "explicit channel names: 1 (grey), 3 (RGB) or 4 (RGBA); [] = R,G,B(,A)");
  s.boolean("/input/recursive", false, "descend into sub-folders of folder inputs");
  s.boolean("/input/premultiplied", true,
            "colour is premultiplied by alpha (the EXR convention): tone-map straight colour, write straight alpha");

  s.object("/exposure", "scene exposure before tone mapping");
  s.number("/exposure/ev", 0.0, -30, 30, "exposure compensation in stops (multiplies by 2^ev)");
  s.boolean("/exposure/auto", false, "scale so the log-average luminance maps to the key value");
  s.number("/exposure/key", 0.18, 0.001, 10, "auto exposure: target log-average luminance (Reinhard's key)");
  s.number("/exposure/percentile_low", 0.0, 0, 100, "auto exposure: clamp log-luminances below this percentile");
  s.number("/exposure/percentile_high", 100.0, 0, 100, "auto exposure: clamp log-luminances above this percentile");

  s.object("/tonemap", "the tone curve");
  s.choice("/tonemap/operator", "aces_hill", operator_names,
           "operator: linear (clamp), reinhard, reinhard_extended, hable (Uncharted 2), aces_narkowicz, "
           "aces_hill (fitted RRT+ODT), agx, pbr_neutral (Khronos)");
  s.number("/tonemap/white", 11.2, 0.01, 1e6, "reinhard_extended: value mapped to white; hable: linear white point");

  s.object("/output", "written images");
  s.string("/output/dir", "out/tonemap-exr", "output folder (created); every output name is relative to it");
  s.string("/output/name", "{stem}.{ext}",
           std::string("file name template: {ext} (the format's extension), ") + naming_variables_doc);
  declare_mirror_inputs(s);
  s.choice("/output/format", "png", {"png", "jpg", "webp", "tif"}, "file format (webp only if OpenImageIO has it)");
  s.integer("/output/bits", 8, 8, 16, "8 or 16 bits per channel (16: png or tif)");
  s.choice("/output/transfer", "srgb", {"srgb", "gamma", "linear"}, "output transfer function");
  s.number("/output/gamma", 2.2, 0.1, 10, "transfer gamma: out = in^(1/gamma)");
  s.boolean("/output/dither", true, "triangular dither of +-1 LSB before 8-bit rounding (hides banding)");
  s.choice("/output/alpha", "auto", {"auto", "drop"}, "auto: keep the source alpha when the format has alpha");
  s.integer("/output/quality", 90, 1, 100, "JPEG/WebP quality");
  s.integer("/output/png_compression", 6, 0, 9,
            "PNG compression: 1 = fastest, compressed on the GPU (Huffman coding and runs, no LZ77 search); "
            "2-9 = deflate on the CPU (libdeflate; 9 = smallest); 0 = stored");

  s.object("/mip", "MIP chain generated on the GPU (levels halve down to 1x1)");
  s.boolean("/mip/enabled", false, "write the MIP chain");
  s.choice("/mip/filter", "lanczos3", filter_names, "downsampling filter: box (2x2 average), triangle, lanczos3");
  s.choice("/mip/layout", "files", {"files", "tiled"}, "files: one file per level; tiled: one tiled MIP-mapped TIFF/EXR");
  s.string("/mip/name", "{stem}_mip{level}.{ext}", "layout files: name of levels 1..n (level 0 is the main image)");
  s.string("/mip/tiled_name", "{stem}.mip.tif", "layout tiled: file name (.tif or .exr), all levels including 0");

  s.object("/thumbnail", "a small preview per input");
  s.integer("/thumbnail/size", 0, 0, 16384, "longest side in pixels; 0 = no thumbnail");
  s.string("/thumbnail/name", "{stem}_thumb.jpg", "file name template; the format follows the extension");
  s.choice("/thumbnail/filter", "lanczos3", filter_names, "downsampling filter");

  s.object("/run", "batching and workers");
  s.integer("/run/batch", 4, 1, 64, "images processed on the GPU at once (one stream each); halved on out-of-memory");
  s.integer("/run/load_threads", 0, 0, 256, "decode threads; 0 = from the CPU count");
  s.integer("/run/save_threads", 0, 0, 256, "encode threads; 0 = from the CPU count");
  s.integer("/run/decode_threads_per_file", 0, 0, 64,
            "threads that decode the blocks of one file together (keeps all cores busy at the end of a batch); "
            "0 = from the CPU count");
  s.integer("/run/max_in_flight", 0, 0, 4096, "items in memory at once (bounds RAM); 0 = automatic");
  s.choice("/run/on_error", "skip", {"skip", "fail"}, "skip: report failed items and go on; fail: stop at the first");
  return s;
}

std::string str(const config::json& c, const char* p) { return config::value_at<std::string>(c, p); }
double num(const config::json& c, const char* p) { return config::value_at<double>(c, p); }
int integer(const config::json& c, const char* p) { return config::value_at<int>(c, p); }
bool flag(const config::json& c, const char* p) { return config::value_at<bool>(c, p); }

}  // namespace

const config::Schema& schema() {
  static const config::Schema s = make_schema();
  return s;
}

Settings read_settings(const config::json& c) {
  Settings s;
  s.channels.layer = str(c, "/input/layer");
  s.channels.channels = c.at("input").at("channels").get<std::vector<std::string>>();
  const auto n_channels = s.channels.channels.size();
  if (n_channels != 0 && n_channels != 1 && n_channels != 3 && n_channels != 4)
    throw UsageError("/input/channels: expected 0, 1, 3 or 4 channel names, got " + std::to_string(n_channels));
  s.recursive = flag(c, "/input/recursive");
  s.tone.premultiplied = s.encode.unpremultiply = flag(c, "/input/premultiplied");

  s.exposure_ev = float(num(c, "/exposure/ev"));
  s.auto_exposure = flag(c, "/exposure/auto");
  s.auto_params.key = float(num(c, "/exposure/key"));
  s.auto_params.percentile_low = float(num(c, "/exposure/percentile_low"));
  s.auto_params.percentile_high = float(num(c, "/exposure/percentile_high"));
  if (s.auto_params.percentile_low >= s.auto_params.percentile_high)
    throw UsageError("/exposure/percentile_low: must be below /exposure/percentile_high");

  const std::string op = str(c, "/tonemap/operator");
  s.tone.op = Operator(std::find(operator_names.begin(), operator_names.end(), op) - operator_names.begin());
  s.tone.white = float(num(c, "/tonemap/white"));

  s.naming.dir = str(c, "/output/dir");
  if (s.naming.dir.empty()) throw UsageError("/output/dir: must not be empty");
  s.naming.mirror_inputs = flag(c, "/output/mirror_inputs");
  s.name_template = str(c, "/output/name");
  s.format = str(c, "/output/format");
  s.bits = integer(c, "/output/bits");
  if (s.bits != 8 && s.bits != 16) throw UsageError("/output/bits: expected 8 or 16, got " + std::to_string(s.bits));
  if (s.bits == 16 && s.format != "png" && s.format != "tif")
    throw UsageError("/output/bits: 16-bit output needs format png or tif, not " + s.format);
  const std::string transfer = str(c, "/output/transfer");
  s.encode.transfer = transfer == "srgb" ? Transfer::srgb : transfer == "gamma" ? Transfer::gamma : Transfer::linear;
  s.encode.gamma = float(num(c, "/output/gamma"));
  s.encode.dither = flag(c, "/output/dither") && s.bits == 8;
  s.alpha = str(c, "/output/alpha");
  s.write.quality = integer(c, "/output/quality");
  s.write.png_compression = integer(c, "/output/png_compression");
  if (!io::can_write_extension("." + s.format))
    throw UsageError("/output/format: this OpenImageIO build cannot write " + s.format);

  s.mip = flag(c, "/mip/enabled");
  s.mip_filter = filter_from(str(c, "/mip/filter"));
  s.mip_layout = str(c, "/mip/layout");
  s.mip_name_template = str(c, "/mip/name");
  s.mip_tiled_template = str(c, "/mip/tiled_name");

  s.thumbnail_size = integer(c, "/thumbnail/size");
  s.thumbnail_template = str(c, "/thumbnail/name");
  s.thumbnail_filter = filter_from(str(c, "/thumbnail/filter"));

  s.batch = integer(c, "/run/batch");
  s.load_threads = integer(c, "/run/load_threads");
  s.save_threads = integer(c, "/run/save_threads");
  s.decode_threads_per_file = integer(c, "/run/decode_threads_per_file");
  s.max_in_flight = integer(c, "/run/max_in_flight");
  s.stop_on_error = str(c, "/run/on_error") == "fail";

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

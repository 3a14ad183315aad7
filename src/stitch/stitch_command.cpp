// gpuproc stitch-360: each panorama is loaded and decoded (load pool), projected on the GPU or
// the CPU (compute workers), and its outputs encoded and written atomically (save pool); the rig
// description (cameras.json; COLMAP's cameras.txt, images.txt, points3D.txt and rig_config.json) is
// written once per job.
#include "stitch/stitch_command.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <regex>
#include <thread>

#include "core/error.hpp"
#include "core/gpu_runtime.hpp"
#include "core/outputs.hpp"
#include "core/pipeline.hpp"
#include "core/stop_signals.hpp"
#include "core/text.hpp"
#include "core/trace.hpp"
#include "cuda/tone/tone_math.hpp"
#include "frames/frame_packing.hpp"
#include "frames/video_frame_source.hpp"
#include "io/exif.hpp"
#include "io/file_bytes.hpp"
#include "io/image_io.hpp"
#include "io/jpeg_codec.hpp"
#include "io/oiio_module.hpp"
#include "stitch/cube_face_files.hpp"
#include "stitch/gpu_worker.hpp"
#include "stitch/hdr_preview.hpp"
#include "stitch/output_plan.hpp"
#include "stitch/projector.hpp"
#include "stitch/stitch_item.hpp"
#include "stitch/stitch_settings.hpp"
#include "stitch/video_frames.hpp"

namespace gp::stitch {
namespace {

namespace fs = std::filesystem;

bool is_jpeg(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  return ext == ".jpg" || ext == ".jpeg";
}

bool is_hdr_file(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  return ext == ".exr" || ext == ".hdr";
}

// sRGB-encoded 8-bit (or 0..1) values to linear light, for float outputs of 8-bit inputs:
// the inverse sRGB transfer of the tone operators (cuda/tone).
float srgb_to_linear(float v) { return tone::math::transfer_decode(v, tone::EncodeParams{}); }

const std::array<float, 256>& srgb_u8_to_linear() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int i = 0; i < 256; ++i) t[std::size_t(i)] = srgb_to_linear(float(i) / 255.0f);
    return t;
  }();
  return table;
}

std::string clipping_refusal(const Settings& s, const std::string& what) {
  return what + ": /output/format " + s.format + " would clip it to 8 bits; set /output/format exr or hdr (with "
         "/output/preview for tone-mapped 8-bit previews)";
}

// 8-bit sRGB pixels (packed, in `pixels`) converted in place to linear f32, for float outputs.
ImageView to_linear_f32(const ImageView& rgb8, std::vector<std::uint8_t>& pixels) {
  std::vector<std::uint8_t> linear(rgb8.bytes() * sizeof(float));
  const auto& table = srgb_u8_to_linear();
  auto* out = reinterpret_cast<float*>(linear.data());
  for (std::size_t i = 0; i < rgb8.bytes(); ++i) out[i] = table[static_cast<const std::uint8_t*>(rgb8.data)[i]];
  pixels = std::move(linear);
  return packed_view(pixels.data(), rgb8.width, rgb8.height, rgb8.channels, PixelType::f32);
}

// PNG, TIFF and other OpenImageIO formats as packed RGB of `type`: u8 (samples scaled to 0..1 by
// OIIO, rounded to 8 bits) or f32 (linear: integer samples decoded from sRGB, float ones as
// stored). Grey is repeated into R, G and B, alpha and further channels dropped. A float image
// with values above 1 is refused for 8-bit outputs rather than clipped.
ImageView decode_other_format(const Settings& s, const std::string& path, std::vector<std::uint8_t>& pixels,
                              PixelType type) {
  std::unique_ptr<io::FloatImage> image;
  try {
    image = io::oiio_module().open_float_image(path);
  } catch (const std::exception& e) {
    throw ItemError(path, "decode", e.what());
  }
  if (image->channels < 1) throw ItemError(path, "decode", "no channels");
  pixels.resize(std::size_t(image->width) * image->height * 3 * pixel_type_bytes(type));
  const ImageView view = packed_view(pixels.data(), image->width, image->height, 3, type);
  const int c = image->channels, grey = c < 3;
  const bool linear_out = type == PixelType::f32, decode_srgb = image->integer_format;
  std::vector<float> row;
  for (int y = 0; y < image->height; ++y) {
    try {
      image->read_row(y, row);
    } catch (const std::exception& e) {
      throw ItemError(path, "decode", e.what());
    }
    for (int x = 0; x < image->width; ++x)
      for (int k = 0; k < 3; ++k) {
        const float v = row[std::size_t(x) * c + (grey ? 0 : k)];
        if (linear_out) {
          view.row<float>(y)[3 * x + k] = decode_srgb ? srgb_to_linear(v) : v;
        } else {
          if (v > 1.0f) throw ItemError(path, "decode", clipping_refusal(s, "float samples above 1 (HDR)"));
          view.row<std::uint8_t>(y)[3 * x + k] = std::uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
        }
      }
  }
  return view;
}

// An EXR or Radiance .hdr panorama as packed f32 RGB, as stored (linear light, nothing clamped):
// the default R, G, B layer; alpha dropped (EXR colour is premultiplied: over black).
ImageView decode_hdr(const Settings& s, const std::string& path, std::vector<std::uint8_t>& pixels) {
  if (!float_outputs(s)) throw ItemError(path, "decode", clipping_refusal(s, "an HDR panorama"));
  io::HdrReader reader(path);
  io::ReadPlan plan = reader.plan({});
  if (plan.rgba_index[0] == plan.rgba_index[1])
    throw ItemError(path, "decode", "no R, G, B channels (its image is the single channel " + plan.channel_names[0] +
                                        "): stitch-360 projects colour panoramas");
  plan.type = PixelType::f32;  // the reader widens half channels
  std::vector<float> stored(plan.bytes() / sizeof(float));
  reader.read(plan, stored.data(), plan.row_bytes(), 2);
  pixels.resize(std::size_t(plan.width) * plan.height * 3 * sizeof(float));
  const ImageView view = packed_view(pixels.data(), plan.width, plan.height, 3, PixelType::f32);
  const std::size_t stride = std::size_t(plan.channel_count());
  for (int y = 0; y < plan.height; ++y) {
    const float* in = stored.data() + std::size_t(y) * plan.width * stride;
    float* out = view.row<float>(y);
    for (int x = 0; x < plan.width; ++x)
      for (int k = 0; k < 3; ++k) out[3 * x + k] = in[std::size_t(x) * stride + std::size_t(plan.rgba_index[k])];
  }
  return view;
}

// Any input image as packed RGB in `pixels`: 8-bit, or f32 for float outputs (linear: HDR files as
// stored, 8-bit ones decoded from sRGB). `buffers` lends the vector a JPEG is read into.
ImageView decode_image(const Settings& s, const std::string& path, std::vector<std::uint8_t>& pixels,
                       ByteBufferPool& buffers) {
  if (is_hdr_file(path)) return decode_hdr(s, path, pixels);
  const PixelType type = float_outputs(s) ? PixelType::f32 : PixelType::u8;
  if (!is_jpeg(path)) return decode_other_format(s, path, pixels, type);
  std::vector<std::uint8_t> bytes = buffers.take();
  io::read_file_bytes(path, bytes);
  const io::JpegInfo info = io::jpeg_info(bytes, path);
  pixels.resize(std::size_t(info.width) * info.height * 3);
  const ImageView view = packed_view(pixels.data(), info.width, info.height, 3, PixelType::u8);
  io::decode_jpeg(bytes.data(), bytes.size(), view, path);
  buffers.give(std::move(bytes));
  return type == PixelType::u8 ? view : to_linear_f32(view, pixels);
}

// A folder of six face files (cube_face_files), put together into v360's 3x2 sheet, the layout
// the projection reads for cubemap.layout faces.
void load_cube_faces(const Settings& s, StitchItem& item, ByteBufferPool& buffers) {
  const std::array<std::string, 6> files = cube_face_files(item.name);
  std::vector<std::uint8_t> face_pixels;
  for (int face = 0; face < 6; ++face) {
    const std::string& file = files[std::size_t(face)];
    const ImageView pixels = decode_image(s, file, face_pixels, buffers);
    if (pixels.width != pixels.height)
      throw ItemError(file, "decode", "a cube face must be square, this one is " + std::to_string(pixels.width) + "x" +
                                          std::to_string(pixels.height));
    if (face == 0) {
      item.pixels.assign(std::size_t(3 * pixels.width) * (2 * pixels.width) * 3 * pixel_type_bytes(pixels.type), 0);
      item.panorama = packed_view(item.pixels.data(), 3 * pixels.width, 2 * pixels.width, 3, pixels.type);
    } else if (pixels.width != item.panorama.width / 3) {
      throw ItemError(file, "decode", "this face is " + std::to_string(pixels.width) + " pixels wide, the " +
                                          cube_face_name(0) + " face (" + files[0] + ") " +
                                          std::to_string(item.panorama.width / 3));
    }
    const ImageView cell = cube_layout_face(item.panorama, CubeLayout::c3x2, face);
    for (int y = 0; y < pixels.height; ++y)
      std::copy_n(pixels.row<std::uint8_t>(y), pixels.row_bytes(), cell.row<std::uint8_t>(y));
  }
}

// The panorama decoded (decode_image), or only its JPEG bytes and size when the GPU decodes it
// (8-bit outputs).
void load_panorama(const Settings& s, StitchItem& item, bool gpu_decodes_jpeg, ByteBufferPool& buffers) {
  if (fs::is_directory(item.name)) return load_cube_faces(s, item, buffers);
  if (!gpu_decodes_jpeg || !is_jpeg(item.name) || float_outputs(s)) {
    item.panorama = decode_image(s, item.name, item.pixels, buffers);
    return;
  }
  std::vector<std::uint8_t> bytes = buffers.take();
  io::read_file_bytes(item.name, bytes);
  const io::JpegInfo info = io::jpeg_info(bytes, item.name);
  if (!info.has_end_marker) throw ItemError(item.name, "decode", "truncated: no end-of-image marker after the scan");
  item.panorama = packed_view(nullptr, info.width, info.height, 3, PixelType::u8);
  item.file = std::move(bytes);
}

void save_bytes(AtomicWriteGroup& files, const std::string& path, const std::vector<std::uint8_t>& bytes) {
  files.write(path, [&](const std::string& temp) {
    std::ofstream f(temp, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!f) throw ItemError(path, "write", "cannot write");
  });
}

// The GPU-encoded bytes' vector goes back to `buffers` once written.
void save_output(AtomicWriteGroup& files, OutputImage& out, const Settings& s, const ViewCamera* view,
                 ByteBufferPool& buffers) {
  if (!out.preview.empty()) {
    io::JpegEncodeOptions options;
    options.quality = s.jpeg_quality;
    const bool png = lowercase_extension(out.plan.preview_path) == ".png";
    if (png)
      files.write(out.plan.preview_path,
                  [&](const std::string& temp) { io::write_image(temp, out.preview_view(), io::WriteOptions{}); });
    else
      save_bytes(files, out.plan.preview_path, io::encode_jpeg(out.preview_view(), options, out.plan.preview_path));
  }
  if (s.format != "jpg") {
    io::WriteOptions options;
    options.exr_compression = s.hdr.exr_compression;
    options.exr_half = s.hdr.exr_half;
    files.write(out.plan.path, [&](const std::string& temp) { io::write_image(temp, out.view(), options); });
    return;
  }
  std::vector<std::uint8_t> jpeg = std::move(out.encoded);  // encoded on the GPU, else here
  if (jpeg.empty()) {
    io::JpegEncodeOptions options;
    options.quality = s.jpeg_quality;
    options.subsampling = s.chroma_444 ? io::ChromaSubsampling::s444 : io::ChromaSubsampling::s420;
    jpeg = io::encode_jpeg(out.view(), options, out.plan.path);
  }
  if (s.exif && view) {
    const ExifFocal focal = exif_focal(view->fx, view->spec.width);
    io::ExifFields fields;
    fields.focal_length_mm = focal.focal_length_mm;
    fields.focal_length_35mm = focal.focal_length_35mm;
    fields.pixel_width = out.plan.width;
    fields.pixel_height = out.plan.height;
    fields.image_description = "gpuproc stitch-360 view " + view->spec.name;
    fields.software = "gpuproc";
    io::insert_exif(jpeg, fields);
  }
  save_bytes(files, out.plan.path, jpeg);
  buffers.give(std::move(jpeg));
}

// A video's frame files among `outputs` (absolute paths): matched against the planned names
// with "{frame}" and "{time}" (plan_outputs with the default FrameTag), each giving its output's
// view and eye, and the frame's index and time.
struct FrameFile {
  long long frame = 0;
  std::string frame_text, time_text, path;
  std::size_t planned = 0;  // index into the planned outputs
};
std::vector<FrameFile> find_frame_files(const std::vector<PlannedOutput>& planned, const std::vector<std::string>& outputs) {
  // The planned name as a regular expression: the literal text escaped, the frame and time as
  // digits, after any padding ({frame:06}).
  auto pattern_of = [](const std::string& path, bool& time_first) {
    std::string re;
    const std::size_t frame_at = path.find("{frame}"), time_at = path.find("{time}");
    time_first = time_at != std::string::npos && time_at < frame_at;
    for (std::size_t i = 0; i < path.size();) {
      if (path.compare(i, 7, "{frame}") == 0) {
        while (!re.empty() && (re.back() == '0' || re.back() == ' ')) re.pop_back();  // padding
        re += "[0 ]*([0-9]+)";
        i += 7;
      } else if (path.compare(i, 6, "{time}") == 0) {
        re += " *([0-9]+\\.[0-9]+)";
        i += 6;
      } else {
        if (std::strchr("\\^$.|?*+()[]{}", path[i])) re += '\\';
        re += path[i++];
      }
    }
    return re;
  };
  std::vector<std::regex> patterns;
  std::vector<bool> time_first(planned.size());
  for (std::size_t k = 0; k < planned.size(); ++k) {
    bool first = false;
    patterns.emplace_back(pattern_of(fs::absolute(planned[k].path).lexically_normal().string(), first));
    time_first[k] = first;
  }
  std::vector<FrameFile> found;
  for (const std::string& out : outputs)
    for (std::size_t k = 0; k < planned.size(); ++k) {
      std::smatch m;
      if (!std::regex_match(out, m, patterns[k])) continue;
      FrameFile f;
      f.path = out;
      f.planned = k;
      const std::size_t frame_group = time_first[k] && m.size() > 2 ? 2 : 1;
      f.frame_text = m[frame_group].str();
      if (m.size() > 2) f.time_text = m[3 - frame_group].str();
      f.frame = std::stoll(f.frame_text);
      f.frame_text = std::to_string(f.frame);
      found.push_back(std::move(f));
      break;
    }
  return found;
}

// The rig lists the views of every panorama and video frame of the job that is complete now:
// finished in this run, an earlier one (--resume) or another shard (a video's frames from its
// completion record). Shards finishing together take turns (a lock in the output folder), so the
// last one lists what all of them did. Returns why no rig_config.json was written ("" when it was).
std::string write_rig(const Settings& s, const BatchContext& ctx) {
  if (ctx.job_items.empty()) return "";
  const fs::path lock_path = fs::path(ctx.records.folder()) / "rig.lock";
  fs::create_directories(lock_path.parent_path());
  const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0)
    throw Error(lock_path.string() + ": cannot lock the rig files: " + std::strerror(errno));
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{lock};
  RigModel model;
  model.views = resolve_views(s);
  // The cameras: each eye projected (s.eyes, in order) times each view, as plan_outputs orders them.
  const std::size_t view_count = model.views.size();
  for (const PlannedOutput& p : plan_outputs(s, ctx.job_items.front(), 0, 0))
    model.cameras.push_back({p.view, p.eye, eye_name(s.stereo, p.eye), p.label, "", 0});
  auto camera_of = [&](const PlannedOutput& p) {
    const std::size_t eye_index = std::size_t(std::find(s.eyes.begin(), s.eyes.end(), p.eye) - s.eyes.begin());
    return eye_index * view_count + p.view;
  };
  const fs::path dir = fs::absolute(s.naming.dir.empty() ? "." : s.naming.dir).lexically_normal();
  auto relative = [&](const std::string& p) { return fs::absolute(p).lexically_normal().lexically_relative(dir).string(); };
  for (std::size_t i = 0; i < ctx.job_items.size(); ++i) {
    const InputItem& item = ctx.job_items[i];
    if (!io::is_video_file(item.path)) {
      if (!ctx.job_item_complete(i)) continue;
      const std::size_t capture = model.captures.size();
      model.captures.push_back({item.path, "", ""});
      for (const PlannedOutput& p : plan_outputs(s, item, 0, 0))
        model.images.push_back({relative(p.path), camera_of(p), capture});
      continue;
    }
    const std::optional<std::vector<std::string>> outputs = ctx.job_item_outputs(i);
    if (!outputs) continue;
    const FrameTag every_frame;
    const std::vector<PlannedOutput> planned = plan_outputs(s, item, 0, 0, &every_frame);
    std::vector<FrameFile> files = find_frame_files(planned, *outputs);
    std::stable_sort(files.begin(), files.end(), [](const FrameFile& a, const FrameFile& b) { return a.frame < b.frame; });
    for (std::size_t k = 0; k < files.size(); ++k) {
      if (k == 0 || files[k].frame != files[k - 1].frame) model.captures.push_back({item.path, files[k].frame_text, files[k].time_text});
      model.images.push_back({relative(files[k].path), camera_of(planned[files[k].planned]), model.captures.size() - 1});
    }
  }
  // Images in capture order, each capture's in camera order.
  std::stable_sort(model.images.begin(), model.images.end(), [](const RigImage& a, const RigImage& b) {
    return std::tie(a.capture, a.camera) < std::tie(b.capture, b.camera);
  });
  const std::string problem = check_rig(model);
  auto path = [&](const char* name) {
    const std::string p = output_path(s.naming.dir, name, "/output/dir");
    ctx.add_job_output(p);
    return p;
  };
  write_cameras_json(path("cameras.json"), model, problem);
  write_colmap_cameras_txt(path("cameras.txt"), model);
  write_colmap_images_txt(path("images.txt"), model);
  write_colmap_points3d_txt(path("points3D.txt"));
  const std::string rig_config = output_path(s.naming.dir, "rig_config.json", "/output/dir");
  if (problem.empty()) {
    write_colmap_rig_config(path("rig_config.json"), model);
  } else {
    std::error_code ec;
    fs::remove(rig_config, ec);  // an earlier run's would no longer describe the outputs
  }
  return problem;
}

// The first panorama's size and its first output's, for the GPU workers' codec set-up (made before
// the first batch instead of inside it).
void set_size_hints(const Settings& s, const InputItem& input, int width, int height, GpuWorkerShared& shared) {
  shared.panorama_width = width;
  shared.panorama_height = height;
  const FrameTag any_frame;
  const std::vector<PlannedOutput> planned =
      plan_outputs(s, input, width, height, io::is_video_file(input.path) ? &any_frame : nullptr);
  if (!planned.empty()) {
    shared.view_width = planned[0].width;
    shared.view_height = planned[0].height;
  }
}

// A JPEG input's size from its header; left unknown when the file cannot be read (its error comes
// with its item).
void set_size_hints(const Settings& s, const InputItem& input, GpuWorkerShared& shared) {
  if (!is_jpeg(input.path)) return;
  try {
    const io::JpegInfo info = io::jpeg_info(io::read_file_bytes(input.path), input.path);
    set_size_hints(s, input, info.width, info.height, shared);
  } catch (const ItemError&) {
  }
}

// Stills (JPEG, PNG, TIFF, EXR, Radiance .hdr) and videos (io::video_file_extensions) that folder inputs give.
std::vector<std::string> input_extensions() {
  std::vector<std::string> extensions = still_image_extensions();
  for (const std::string& e : io::video_file_extensions()) extensions.push_back(e);
  return extensions;
}

// A video opened before the job's pipeline is set up, and its first selected frame decoded on the
// same thread meanwhile: the pipeline (and with it the GPU workers' set-up) starts once the video
// is open, not after its first frame, which frame threading makes the slowest (0.3-0.5 s at 5.7K).
class EarlyVideo {
 public:
  EarlyVideo(const std::string& path, const VideoSelection& selection, int decoders)
      : opened_(source_.get_future()), first_frame_(first_.get_future()) {
    task_ = std::async(std::launch::async, [this, path, selection, decoders] {
      std::shared_ptr<VideoFrameSource> source;  // shared: the item's owner may drop it before this returns
      try {
        ScopedStage span("open video");
        source = std::make_shared<VideoFrameSource>(path, selection, nullptr, decoders);
      } catch (...) {
        source_.set_exception(std::current_exception());
        return;
      }
      source_.set_value(source);
      try {
        ScopedStage span("decode video");
        first_.set_value(source->next());
      } catch (...) {
        first_.set_exception(std::current_exception());
      }
    });
  }
  // Waits for the open; throws what it threw (gp::ItemError).
  std::shared_ptr<VideoFrameSource> source() { return opened_.get(); }
  // The first selected frame (nullopt: none), or what decoding it threw, once decoded.
  std::future<std::optional<SelectedFrame>> first_frame() { return std::move(first_frame_); }

 private:
  std::promise<std::shared_ptr<VideoFrameSource>> source_;
  std::promise<std::optional<SelectedFrame>> first_;
  std::future<std::shared_ptr<VideoFrameSource>> opened_;
  std::future<std::optional<SelectedFrame>> first_frame_;
  std::future<void> task_;  // last: joined before the promises go
};

class StitchCommand final : public SettingsCommand {
 public:
  StitchCommand()
      : SettingsCommand(stitch::schema(),
                        "equirect panoramas -> perspective views / cubemaps; dual-fisheye or cubemap -> equirect",
                        input_extensions(), read_settings) {}

  InputSpec input_spec(const config::json& config) const override {
    InputSpec spec = SettingsCommand::input_spec(config);
    const Settings s = read_settings(config);
    spec.folders_are_items = s.mode == "equirect_from_cubemap" && s.cube_layout == "faces";  // six face files
    return spec;
  }

  std::vector<std::vector<PlannedFile>> planned_outputs(const config::json& config,
                                                        const std::vector<InputItem>& items) const override {
    const Settings s = read_settings(config);
    std::vector<std::vector<PlannedFile>> plans;
    const FrameTag every_frame;  // a video: its frames' names as patterns ({frame}, {time})
    for (const InputItem& item : items)
      plans.push_back(planned_files(plan_outputs(s, item, 0, 0, io::is_video_file(item.path) ? &every_frame : nullptr)));
    return plans;
  }

  BatchOutcome run(BatchContext& ctx) override;
};

BatchOutcome StitchCommand::run(BatchContext& ctx) {
  const std::vector<InputItem>& inputs = ctx.items;
  const Settings s = read_settings(ctx.config);
  Runtime& rt = ctx.runtime;  // the first device's; every device of a --device list is a GPU like it
  const Projector projector(s);
  const HdrPreviewer previewer(s.hdr);
  const std::vector<ViewCamera> views = resolve_views(s);
  OutputMasks masks(s);
  const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
  // Still panoramas go through one pipeline; each video then through its own, fed with its
  // selected frames as they are decoded.
  std::vector<std::size_t> stills, videos;
  for (std::size_t i = 0; i < inputs.size(); ++i) (io::is_video_file(inputs[i].path) ? videos : stills).push_back(i);
  // Where a video is decoded in parts, the cores go to its decoders, 8 each: one 8K H.264 decoder
  // keeps only 7-9 of 16 cores busy (its frame threads wait on each other's reference rows); on the
  // H200's 16, two parts of 8 threads ended an 8K video's decoding 10% sooner, three of 5 a 5.7K
  // one's 6% later.
  const int video_decoders = s.video_decoders > 0 ? s.video_decoders : int(std::clamp(cores / 8, 1u, 4u));
  // A job of videos only opens its first video and decodes its first frame while the driver and
  // the GPU context start (which the pipeline's set-up below waits for): decoding, what a video job
  // waits for, no longer starts 0.13 s in. Not for select sharpest, whose scoring needs the GPU.
  std::optional<EarlyVideo> early_video;
  if (stills.empty() && !videos.empty() && s.video.mode != VideoSelection::Mode::sharpest)
    early_video.emplace(inputs[videos[0]].path, s.video, video_decoders);

  PipelineOptions po;
  // Decoding and encoding on the CPU: most cores go to them. With nvJPEG the load threads only
  // read files and the save threads mostly wait for fsync (8 per panorama): more of those. (Float
  // outputs, whose EXR encoding is ~8x their decode, were no faster with the save threads on
  // every core: 11.2 s against 10.1 s for 20 8K panoramas on the H200.)
  const bool gpu_codec = GpuWorker::decodes_jpeg(rt, s);
  po.load_threads = int(std::max(1u, gpu_codec ? cores / 4 : cores / 2));
  po.save_threads = int(std::max(1u, gpu_codec ? cores : cores / 2));
  // run.gpu_workers per device; with several devices their workers share the compute queue.
  po.compute_workers = rt.gpu() ? s.gpu_workers * ctx.devices() : int(std::max(1u, cores / 4));
  // On the GPU a worker takes up to `batch` loaded panoramas at once; enough stay in flight for
  // the workers' batches, as many loaded and waiting, and the last ones saving. With only one
  // batch per worker waiting, batches averaged 12.5 panoramas instead of 16 (4 workers, H100).
  // Float panoramas are 12 bytes a pixel (354 MB at 8K): batches of at most 4 keep the host
  // memory in flight to a few GB.
  po.compute_batch = rt.gpu() ? (float_outputs(s) ? std::min(s.batch, 4) : s.batch) : 1;
  po.max_in_flight = rt.gpu() ? po.compute_batch * (2 * po.compute_workers + 2) : std::max(4, po.compute_workers * 2);
  po.stop_on_error = s.stop_on_error;

  std::mutex outcome_mutex;
  BatchOutcome outcome;
  outcome.work_unit_name = "megapixels";
  std::vector<std::unique_ptr<GpuWorker>> workers(std::size_t(po.compute_workers));
  const std::size_t outputs_per_panorama = inputs.empty() ? 0 : plan_outputs(s, inputs[0], 0, 0).size();
  GpuWorkerShared shared(std::size_t(po.max_in_flight), outputs_per_panorama, po.compute_workers);
  shared.jpeg_inputs = std::any_of(stills.begin(), stills.end(), [&](std::size_t i) { return is_jpeg(inputs[i].path); });
  if (gpu_codec && !stills.empty()) set_size_hints(s, inputs[stills[0]], shared);

  Pipeline<StitchItem>::Stages stages;
  stages.make = [&](std::size_t i) {
    auto item = std::make_unique<StitchItem>();
    item->input = stills[i];
    item->name = inputs[item->input].path;
    return item;
  };
  // The panorama's outputs, once its size is known (stills and video frames alike).
  const auto plan_item = [&](StitchItem& item) {
    // Equirect inputs (modes views and cubemap): each eye a 2:1 panorama; anything else is refused
    // (a square top/bottom stereo pair taken as one panorama would mix the eyes in every view).
    const std::string size_problem = equirect_size_problem(s, item.panorama.width, item.panorama.height);
    if (!size_problem.empty()) throw ItemError(item.name, "decode", size_problem);
    for (PlannedOutput& p : plan_outputs(s, inputs[item.input], item.panorama.width, item.panorama.height,
                                         item.frame ? &*item.frame : nullptr))
      item.outputs.push_back(OutputImage{std::move(p)});
    if (s.mask.enabled) {
      std::vector<PlannedOutput> plan;
      for (const OutputImage& o : item.outputs) plan.push_back(o.plan);
      item.masks = masks.masks_for(plan);
    }
  };
  stages.load = [&](StitchItem& item) {
    {
      ScopedStage span(gpu_codec ? "read" : "read+decode");
      load_panorama(s, item, gpu_codec, shared.file_buffers);
    }
    plan_item(item);
  };
  // A worker's GPU side is made once and kept for the pipelines after (the stills', then each
  // video's): its set-up (nvJPEG states, encoder warm-up) is most of a second.
  stages.compute_init = [&](int worker) {
    if (!rt.gpu()) return;
    Runtime& worker_rt = ctx.runtime_for_worker(worker);
    worker_rt.bind_thread();
    if (workers[worker]) return;
    // Arrives also when the set-up throws (a listed GPU that is missing fails bind_thread), so
    // that the other workers do not wait for this one.
    struct SetUpDone {
      GpuWorkerShared& shared;
      ~SetUpDone() { shared.set_up_done(); }
    } set_up_done{shared};
    workers[worker] = std::make_unique<GpuWorker>(worker_rt, s, projector, shared);
  };
  if (rt.gpu()) {
    stages.compute_batch = [&](const std::vector<StitchItem*>& items, int worker) {
      ScopedStage span(gpu_codec ? "gpu decode+project+encode" : "gpu project");
      ctx.count_items(worker, items.size());
      return workers[worker]->run(items);
    };
  } else {
    stages.compute = [&](StitchItem& item, int worker) {
      ScopedStage span("project");
      ctx.count_items(worker, 1);
      std::vector<ImageView> apply;
      if (s.mask.apply && item.masks)
        for (const OutputMask& m : *item.masks) apply.push_back(m.view());
      projector.run_cpu(item.panorama, item.outputs, apply);
      item.pixels = {};
      if (s.hdr.preview)
        for (OutputImage& o : item.outputs) {
          o.preview.resize(std::size_t(o.plan.width) * o.plan.height * 3);
          previewer.run_cpu(o.view(), o.preview_view());
        }
    };
  }
  stages.save = [&](StitchItem& item) {
    ScopedStage span(GpuWorker::encodes_jpeg(rt, s) ? "write" : "encode+write");
    AtomicWriteGroup files;  // the panorama's outputs: their folders synced once, at the end
    for (std::size_t k = 0; k < item.outputs.size(); ++k) {
      OutputImage& out = item.outputs[k];
      save_output(files, out, s, s.mode == "views" ? &views[out.plan.view] : nullptr, shared.encoded_buffers);
      item.written.push_back(out.plan.path);
      if (!out.plan.preview_path.empty()) item.written.push_back(out.plan.preview_path);
      out.pixels = {};
      out.preview = {};
      if (item.masks) {
        save_bytes(files, out.plan.mask_path, (*item.masks)[k].png);
        item.written.push_back(out.plan.mask_path);
      }
    }
    files.commit();
  };
  stages.done = [&](const StitchItem& item) {
    if (!item.failed) {
      std::lock_guard<std::mutex> lock(outcome_mutex);
      outcome.work_units += double(item.panorama.width) * item.panorama.height / 1e6;
    }
    ctx.finish_item(item.input, pipeline_result(item, item.written));
  };

  if (!stills.empty()) {  // (an empty run would still set the GPU workers up before the videos)
    Pipeline<StitchItem> pipeline(po, stages);
    outcome.stopped_on_error = pipeline.run(stills.size()).cancelled;
  }

  // A video: its selected frames (input.video), decoded in turn by whichever load thread asks
  // next, then projected and written as stills are. The video is one item of the job: done when
  // every selected frame is; a frame that fails (a damaged or truncated video) fails it, and the
  // files of its other frames are removed, so a failed video leaves nothing behind.
  std::int64_t video_frames = 0;
  nlohmann::ordered_json video_reports = nlohmann::ordered_json::array();  // per video: metadata, frames
  // select sharpest: every decoded frame of an interval is scored, on the GPU when the job has one.
  Runtime* scoring = s.video.mode == VideoSelection::Mode::sharpest && rt.gpu() ? &rt : nullptr;
  // Frames' RGB buffers, back from the compute stage for the next frames: a fresh 88 MB vector per
  // 8K frame cost more in page faults (56 ms) than converting into it (21 ms).
  ByteBufferPool frame_buffers(std::size_t(po.compute_batch * po.compute_workers + po.load_threads));
  const auto run_video = [&](std::size_t v) {
    const std::string& path = inputs[v].path;
    ItemResult result;
    std::shared_ptr<VideoFrameSource> source;
    // The first frame, where it is being decoded early (or why that failed): handed out first.
    std::future<std::optional<SelectedFrame>> early_frame;
    try {
      if (v == videos[0] && early_video) {
        source = early_video->source();  // throws the ItemError of an open that failed
        early_frame = early_video->first_frame();
      } else {
        ScopedStage span("open video");
        source = std::make_shared<VideoFrameSource>(path, s.video, scoring, video_decoders);
      }
      // The video's own 360 metadata, where it contradicts the job, fails it before any frame.
      const std::string problem = video_metadata_problem(s, source->info());
      if (!problem.empty()) throw ItemError(path, "open", problem);
    } catch (const ItemError& e) {
      if (source) video_reports.push_back({{"input", path}, {"metadata", video_metadata_json(source->info())}});
      result.ok = false;
      result.error_stage = e.stage();
      result.error = e.what();
      ctx.finish_item(v, std::move(result));
      return;
    }
    // The first video before any GPU worker is made: the codec set-up sized for its frames.
    const io::VideoStreamInfo opened = source->info();
    if (rt.gpu() && !workers[0]) set_size_hints(s, inputs[v], opened.width, opened.height, shared);
    if (const auto& sp = opened.spherical; sp && (sp->yaw_deg != 0 || sp->pitch_deg != 0 || sp->roll_deg != 0))
      ctx.progress.message("info", fmt::format("{}: the video's spherical metadata gives a pose (yaw {}, pitch {}, roll "
                                               "{} degrees), not applied: views are taken from the picture as stored",
                                               path, sp->yaw_deg, sp->pitch_deg, sp->roll_deg));
    std::int64_t frames_done = 0;
    std::mutex result_mutex;
    bool source_failed = false;
    Pipeline<StitchItem>::Stages frame_stages = stages;
    frame_stages.make = [&](std::size_t) -> std::unique_ptr<StitchItem> {
      std::optional<SelectedFrame> frame;
      std::future<std::optional<SelectedFrame>> early;
      {
        std::lock_guard<std::mutex> lock(result_mutex);
        if (source_failed) return nullptr;
        if (early_frame.valid()) early = std::move(early_frame);
      }
      auto item = std::make_unique<StitchItem>();
      item->input = v;
      try {
        if (early.valid()) {
          frame = early.get();  // decoded before the pipeline started (its span is there)
        } else {
          ScopedStage span("decode video");
          frame = source->next();
        }
      } catch (const std::exception&) {
        std::lock_guard<std::mutex> lock(result_mutex);
        source_failed = true;  // the reader can only be destroyed now: this item carries the error
        throw;
      }
      if (!frame) {
        if (v == videos.back()) {  // the job's last frame decoded: no frame buffer is taken again
          ScopedStage span("release frame buffers");
          frame_buffers.close();
        }
        return nullptr;
      }
      item->name = path + " frame " + std::to_string(frame->index);
      item->frame = FrameTag{std::to_string(frame->index), fmt::format("{:.3f}", frame->time_s)};
      if (rt.gpu() && !float_outputs(s)) {
        // The GPU converts it: only its YUV planes are packed here (half the bytes of RGB).
        ScopedStage span("video frame pack");
        const frames::FrameSource yuv = frames::video_frame_source(frame->frame);
        item->pixels = frame_buffers.take();
        item->pixels.resize(frames::frame_bytes(yuv));
        frames::pack_frame(yuv, item->pixels.data());
        item->yuv = frames::frame_at(yuv, item->pixels.data());  // (a moved vector keeps its buffer)
        item->panorama = packed_view(nullptr, yuv.width, yuv.height, 3, PixelType::u8);
        return item;
      }
      // Out of the decoder's turn: load threads convert their frames at once.
      ScopedStage span("video frame to rgb");
      item->pixels = frame_buffers.take();
      item->panorama = frame_rgb(frame->frame, item->pixels);
      if (float_outputs(s)) {
        std::vector<std::uint8_t> rgb8 = std::move(item->pixels);  // the panorama's view still points into it
        item->panorama = to_linear_f32(item->panorama, item->pixels);
        frame_buffers.give(std::move(rgb8));
      }
      return item;
    };
    // The compute stage releases a panorama's pixels once projected; a frame's buffer goes back to
    // the pool instead (held here meanwhile: the panorama's view points into it).
    const auto holding_buffers = [&](const std::vector<StitchItem*>& items, const auto& compute) {
      std::vector<std::vector<std::uint8_t>> held;
      for (StitchItem* item : items) held.push_back(std::move(item->pixels));
      auto result = compute();
      for (std::vector<std::uint8_t>& buffer : held) frame_buffers.give(std::move(buffer));
      return result;
    };
    if (stages.compute_batch) {
      frame_stages.compute_batch = [&](const std::vector<StitchItem*>& items, int worker) {
        return holding_buffers(items, [&] { return stages.compute_batch(items, worker); });
      };
    } else {
      frame_stages.compute = [&](StitchItem& item, int worker) {
        holding_buffers({&item}, [&] {
          stages.compute(item, worker);
          return 0;
        });
      };
    }
    frame_stages.load = [&](StitchItem& item) { plan_item(item); };
    frame_stages.done = [&](const StitchItem& item) {
      std::lock_guard<std::mutex> lock(result_mutex);
      if (item.failed && result.ok) {
        result.ok = false;
        result.cancelled = item.failure.cancelled;
        result.error_stage = item.failure.stage;
        result.error = item.failure.message;
      }
      result.outputs.insert(result.outputs.end(), item.written.begin(), item.written.end());
      if (!item.failed) {
        ++video_frames;
        ++frames_done;
        std::lock_guard<std::mutex> outcome_lock(outcome_mutex);
        outcome.work_units += double(item.panorama.width) * item.panorama.height / 1e6;
      }
    };
    Pipeline<StitchItem> frames(po, frame_stages);
    const auto run = frames.run(Pipeline<StitchItem>::unbounded);
    outcome.stopped_on_error = outcome.stopped_on_error || run.cancelled;
    if (!result.ok || run.cancelled) {
      if (result.ok) {  // stopped (a signal, or another item's failure with on_error fail) before its end
        result.ok = false;
        result.cancelled = true;
        result.error_stage = "cancelled";
        result.error = path + ": cancelled before its last frame";
      }
      for (const std::string& file : result.outputs) fs::remove(file);
      result.outputs.clear();
    }
    const io::VideoStreamInfo info = source->info();
    nlohmann::ordered_json report{{"input", path},
                                  {"size", std::to_string(info.width) + "x" + std::to_string(info.height)},
                                  {"codec", info.codec},
                                  {"frame_rate", info.frame_rate.value()},
                                  {"metadata", video_metadata_json(info)},
                                  {"frames_decoded", source->frames_decoded()},
                                  {"decoders", source->decoders()},
                                  {"frames_selected", frames_done}};
    if (s.video.mode == VideoSelection::Mode::sharpest) {
      report["frames_scored"] = source->frames_scored();
      report["sharpness_on"] = source->scores_on_gpu() ? "GPU" : "CPU";
    }
    video_reports.push_back(std::move(report));
    ScopedStage span("close video");
    source.reset();
    ctx.finish_item(v, std::move(result));
  };
  for (const std::size_t v : videos) {
    if (outcome.stopped_on_error || stop_requested()) break;  // the rest: not started
    run_video(v);
  }
  outcome.extra = nlohmann::ordered_json::object();
  outcome.extra["mode"] = s.mode;
  if (s.rig_files && s.mode == "views" && !stop_requested()) {
    ScopedStage stage("rig files");
    const std::string rig_problem = write_rig(s, ctx);
    outcome.extra["rig_config"] = rig_problem.empty() ? "rig_config.json" : "none: " + rig_problem;
    if (!rig_problem.empty())
      ctx.progress.message("warning", "stitch-360: no COLMAP rig configuration (rig_config.json): " + rig_problem);
  }
  if (!inputs.empty()) outcome.extra["outputs_per_panorama"] = outputs_per_panorama;
  if (!videos.empty()) outcome.extra["video_frames_selected"] = video_frames;
  if (!videos.empty()) outcome.extra["videos"] = std::move(video_reports);
  outcome.extra["jpeg_decode"] = gpu_codec ? "nvJPEG (GPU)" : "TurboJPEG (CPU)";
  outcome.extra["jpeg_encode"] = GpuWorker::encodes_jpeg(rt, s) ? "nvJPEG (GPU)" : "TurboJPEG (CPU)";
  {
    ScopedStage span("gpu workers teardown");  // nvJPEG states and device memory, in the job's time
    workers.clear();
  }
  return outcome;
}

}  // namespace

std::unique_ptr<BatchCommand> make_command() { return std::make_unique<StitchCommand>(); }

}  // namespace gp::stitch

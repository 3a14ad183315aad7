// gpuproc stitch-360: each panorama is loaded and decoded (load pool), projected on the GPU or
// the CPU (compute workers), and its outputs encoded and written atomically (save pool); the rig
// description (cameras.json, COLMAP cameras.txt / images.txt) is written once per job.
#include "stitch/stitch_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "core/gpu_runtime.hpp"
#include "core/outputs.hpp"
#include "core/pipeline.hpp"
#include "core/text.hpp"
#include "core/trace.hpp"
#include "io/exif.hpp"
#include "io/file_bytes.hpp"
#include "io/image_io.hpp"
#include "io/jpeg_codec.hpp"
#include "io/oiio_module.hpp"
#include "stitch/output_plan.hpp"
#include "stitch/gpu_worker.hpp"
#include "stitch/projector.hpp"
#include "stitch/stitch_item.hpp"
#include "stitch/stitch_settings.hpp"

namespace gp::stitch {
namespace {

bool is_jpeg(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  return ext == ".jpg" || ext == ".jpeg";
}

// PNG, TIFF and other OpenImageIO formats: samples scaled to 0..1 by OIIO, rounded to 8 bits; grey
// is repeated into R, G and B, alpha and further channels dropped.
void load_other_format(StitchItem& item) {
  std::unique_ptr<io::FloatImage> image;
  try {
    image = io::oiio_module().open_float_image(item.name);
  } catch (const std::exception& e) {
    throw ItemError(item.name, "decode", e.what());
  }
  if (image->channels < 1) throw ItemError(item.name, "decode", "no channels");
  item.pixels.resize(std::size_t(image->width) * image->height * 3);
  item.panorama = packed_view(item.pixels.data(), image->width, image->height, 3, PixelType::u8);
  const int c = image->channels, grey = c < 3;
  std::vector<float> row;
  for (int y = 0; y < image->height; ++y) {
    try {
      image->read_row(y, row);
    } catch (const std::exception& e) {
      throw ItemError(item.name, "decode", e.what());
    }
    std::uint8_t* out = item.panorama.row<std::uint8_t>(y);
    for (int x = 0; x < image->width; ++x)
      for (int k = 0; k < 3; ++k) {
        const float v = row[std::size_t(x) * c + (grey ? 0 : k)];
        out[3 * x + k] = std::uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
      }
  }
}

// The panorama as 8-bit RGB (grey JPEGs are expanded by the decoder's colour conversion), or
// only its JPEG bytes and size when the GPU decodes it.
// `buffers` lends the vector the file is read into.
void load_panorama(StitchItem& item, bool gpu_decodes_jpeg, ByteBufferPool& buffers) {
  if (!is_jpeg(item.name)) return load_other_format(item);
  std::vector<std::uint8_t> bytes = buffers.take();
  io::read_file_bytes(item.name, bytes);
  const io::JpegInfo info = io::jpeg_info(bytes, item.name);
  if (gpu_decodes_jpeg) {
    if (!info.has_end_marker) throw ItemError(item.name, "decode", "truncated: no end-of-image marker after the scan");
    item.panorama = packed_view(nullptr, info.width, info.height, 3, PixelType::u8);
    item.file = std::move(bytes);
    return;
  }
  item.pixels.resize(std::size_t(info.width) * info.height * 3);
  item.panorama = packed_view(item.pixels.data(), info.width, info.height, 3, PixelType::u8);
  io::decode_jpeg(bytes.data(), bytes.size(), item.panorama, item.name);
  buffers.give(std::move(bytes));
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
  if (s.format != "jpg") {
    files.write(out.plan.path, [&](const std::string& temp) { io::write_image(temp, out.view(), io::WriteOptions{}); });
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

void write_rig(const Settings& s, const std::vector<std::string>& inputs, const std::vector<std::size_t>& indices,
               std::vector<std::string>& written) {
  std::vector<ViewCamera> views = resolve_views(s);
  std::vector<RigImage> images;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto planned = plan_outputs(s, inputs[i], indices[i], 0, 0);
    for (const PlannedOutput& p : planned) images.push_back({std::filesystem::path(p.path).lexically_relative(s.output_dir).string(), p.view});
    if (i == 0)
      for (const PlannedOutput& p : planned) views[p.view].file_name = images[p.view].name;
  }
  const std::string dir = s.output_dir;
  auto path = [&](const char* name) {
    written.push_back(output_path(dir, name, "/output/dir"));
    return written.back();
  };
  write_cameras_json(path("cameras.json"), views);
  write_colmap_cameras_txt(path("cameras.txt"), views);
  write_colmap_images_txt(path("images.txt"), views, images);
}

// The first input's size (from its JPEG header) and its first output's, for the GPU workers'
// codec set-up; left unknown when the file cannot be read (its error comes with its item).
void set_size_hints(const Settings& s, const std::string& input, std::size_t index, GpuWorkerShared& shared) {
  if (!is_jpeg(input)) return;
  try {
    const io::JpegInfo info = io::jpeg_info(io::read_file_bytes(input), input);
    shared.panorama_width = info.width;
    shared.panorama_height = info.height;
    const std::vector<PlannedOutput> planned = plan_outputs(s, input, index, info.width, info.height);
    if (!planned.empty()) {
      shared.view_width = planned[0].width;
      shared.view_height = planned[0].height;
    }
  } catch (const ItemError&) {
  }
}

class StitchCommand final : public BatchCommand {
 public:
  const config::Schema& schema() const override { return stitch::schema(); }
  std::string summary() const override {
    return "equirect panoramas -> perspective views / cubemaps; dual-fisheye or cubemap -> equirect";
  }
  void check_config(const config::json& config) const override { read_settings(config); }

  InputSpec input_spec(const config::json& config) const override {
    InputSpec spec;
    spec.patterns = config.at("inputs").get<std::vector<std::string>>();
    spec.extensions = {".jpg", ".jpeg", ".png", ".tif", ".tiff"};
    spec.recursive = config.at("input").at("recursive").get<bool>();
    return spec;
  }

  std::vector<std::string> planned_outputs(const config::json& config, const std::string& input,
                                           std::size_t index) const override {
    std::vector<std::string> paths;
    for (const PlannedOutput& p : plan_outputs(read_settings(config), input, index, 0, 0)) {
      paths.push_back(p.path);
      if (!p.mask_path.empty()) paths.push_back(p.mask_path);
    }
    return paths;
  }

  BatchOutcome run(BatchContext& ctx, const std::vector<std::string>& inputs,
                   const std::vector<std::size_t>& input_indices) override;
};

BatchOutcome StitchCommand::run(BatchContext& ctx, const std::vector<std::string>& inputs,
                                const std::vector<std::size_t>& input_indices) {
  const Settings s = read_settings(ctx.config);
  Runtime& rt = ctx.runtime;  // the first device's; every device of a --device list is a GPU like it
  const Projector projector(s);
  const std::vector<ViewCamera> views = resolve_views(s);
  OutputMasks masks(s);
  const unsigned cores = std::max(2u, std::thread::hardware_concurrency());

  PipelineOptions po;
  // Decoding and encoding on the CPU: most cores go to them. With nvJPEG the load threads only
  // read files and the save threads mostly wait for fsync (8 per panorama): more of those.
  const bool gpu_codec = GpuWorker::decodes_jpeg(rt);
  po.load_threads = int(std::max(1u, gpu_codec ? cores / 4 : cores / 2));
  po.save_threads = int(std::max(1u, gpu_codec ? cores : cores / 2));
  // run.gpu_workers per device; with several devices their workers share the compute queue.
  po.compute_workers = rt.gpu() ? s.gpu_workers * ctx.devices() : int(std::max(1u, cores / 4));
  // On the GPU a worker takes up to `batch` loaded panoramas at once; enough stay in flight for
  // the workers' batches, as many loaded and waiting, and the last ones saving. With only one
  // batch per worker waiting, batches averaged 12.5 panoramas instead of 16 (4 workers, H100).
  po.compute_batch = rt.gpu() ? s.batch : 1;
  po.max_in_flight = rt.gpu() ? s.batch * (2 * po.compute_workers + 2) : std::max(4, po.compute_workers * 2);
  po.stop_on_error = s.stop_on_error;

  std::mutex outcome_mutex;
  BatchOutcome outcome;
  outcome.work_unit_name = "megapixels";
  std::vector<std::unique_ptr<GpuWorker>> workers(std::size_t(po.compute_workers));
  const std::size_t outputs_per_panorama = inputs.empty() ? 0 : plan_outputs(s, inputs[0], input_indices[0], 0, 0).size();
  GpuWorkerShared shared(std::size_t(po.max_in_flight), outputs_per_panorama, po.compute_workers);
  if (gpu_codec && !inputs.empty()) set_size_hints(s, inputs[0], input_indices[0], shared);

  Pipeline<StitchItem>::Stages stages;
  stages.make = [&](std::size_t i) {
    auto item = std::make_unique<StitchItem>();
    item->name = inputs[i];
    return item;
  };
  stages.load = [&](StitchItem& item) {
    ScopedStage span(gpu_codec ? "read" : "read+decode");
    load_panorama(item, gpu_codec, shared.file_buffers);
    for (PlannedOutput& p : plan_outputs(s, item.name, input_indices[item.index], item.panorama.width,
                                         item.panorama.height))
      item.outputs.push_back(OutputImage{std::move(p), {}, {}, 3});
    if (s.mask.enabled) {
      std::vector<PlannedOutput> plan;
      for (const OutputImage& o : item.outputs) plan.push_back(o.plan);
      item.masks = masks.masks_for(plan);
    }
  };
  stages.compute_init = [&](int worker) {
    if (!rt.gpu()) return;
    // Arrives also when the set-up throws (a listed GPU that is missing fails bind_thread), so
    // that the other workers do not wait for this one.
    struct SetUpDone {
      GpuWorkerShared& shared;
      ~SetUpDone() { shared.set_up_done(); }
    } set_up_done{shared};
    Runtime& worker_rt = ctx.runtime_for_worker(worker);
    worker_rt.bind_thread();
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
    };
  }
  stages.save = [&](StitchItem& item) {
    ScopedStage span(GpuWorker::encodes_jpeg(rt, s) ? "write" : "encode+write");
    AtomicWriteGroup files;  // the panorama's outputs: their folders synced once, at the end
    for (std::size_t k = 0; k < item.outputs.size(); ++k) {
      OutputImage& out = item.outputs[k];
      save_output(files, out, s, s.mode == "views" ? &views[out.plan.view] : nullptr, shared.encoded_buffers);
      item.written.push_back(out.plan.path);
      out.pixels = {};
      if (item.masks) {
        save_bytes(files, out.plan.mask_path, (*item.masks)[k].png);
        item.written.push_back(out.plan.mask_path);
      }
    }
    files.commit();
  };
  stages.done = [&](const StitchItem& item) {
    {
      std::lock_guard<std::mutex> lock(outcome_mutex);
      outcome.outputs.insert(outcome.outputs.end(), item.written.begin(), item.written.end());
      if (!item.failed) outcome.work_units += double(item.panorama.width) * item.panorama.height / 1e6;
    }
    ctx.progress.item_done(item.name, !item.failed, item.failure.message);
  };

  Pipeline<StitchItem> pipeline(po, stages);
  auto result = pipeline.run(inputs.size());
  outcome.processed = result.processed;
  outcome.failures = std::move(result.failures);
  outcome.cancelled = result.cancelled;
  if (s.rig_files && s.mode == "views" && !inputs.empty()) write_rig(s, inputs, input_indices, outcome.outputs);
  std::sort(outcome.outputs.begin(), outcome.outputs.end());
  outcome.extra = nlohmann::ordered_json::object();
  outcome.extra["mode"] = s.mode;
  if (!inputs.empty()) outcome.extra["outputs_per_panorama"] = outputs_per_panorama;
  outcome.extra["jpeg_decode"] = gpu_codec ? "nvJPEG (GPU)" : "TurboJPEG (CPU)";
  outcome.extra["jpeg_encode"] = GpuWorker::encodes_jpeg(rt, s) ? "nvJPEG (GPU)" : "TurboJPEG (CPU)";
  return outcome;
}

}  // namespace

std::unique_ptr<BatchCommand> make_command() { return std::make_unique<StitchCommand>(); }

}  // namespace gp::stitch

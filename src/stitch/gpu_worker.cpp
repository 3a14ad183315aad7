#include "stitch/gpu_worker.hpp"

#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/trace.hpp"
#include "cuda/frames/preprocess.hpp"
#include "frames/frame_packing.hpp"
#include "io/jpeg_codec.hpp"

namespace gp::stitch {

namespace {

// The views' JPEG settings (used only in builds with nvJPEG).
[[maybe_unused]] io::JpegEncodeOptions jpeg_options(const Settings& settings) {
  io::JpegEncodeOptions options;
  options.quality = settings.jpeg_quality;
  options.subsampling = settings.chroma_444 ? io::ChromaSubsampling::s444 : io::ChromaSubsampling::s420;
  return options;
}

}  // namespace

// Float outputs take every input as linear float, decoded on the host.
bool GpuWorker::decodes_jpeg(const Runtime& runtime, const Settings& settings) {
  return io::gpu_jpeg_available(runtime) && !float_outputs(settings);
}

bool GpuWorker::encodes_jpeg(const Runtime& runtime, const Settings& settings) {
  return io::gpu_jpeg_available(runtime) && settings.format == "jpg";
}

std::shared_ptr<const io::GpuJpegContext> GpuWorkerShared::jpeg_context(Runtime& runtime) {
#ifdef GPUPROC_HAVE_NVJPEG
  std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<const io::GpuJpegContext>& context = contexts_[&runtime];
  if (!context) {
    ScopedStage span("gpu nvjpeg handle");
    io::GpuJpegOptions options;
    options.hardware_decode = jpeg_inputs;
    context = std::make_shared<const io::GpuJpegContext>(runtime, options);
  }
  return context;
#else
  (void)runtime;
  throw Error("stitch-360: this build has no nvJPEG");
#endif
}

void GpuWorkerShared::set_up_done() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (--workers_ <= 0) all_set_up_.notify_all();
  all_set_up_.wait(lock, [this] { return workers_ <= 0; });
}

GpuWorker::GpuWorker(Runtime& runtime, const Settings& settings, const Projector& projector, GpuWorkerShared& shared)
    : runtime_(runtime), settings_(settings), projector_(projector), shared_(shared), stream_(runtime.make_stream()),
      staging_(runtime, std::size_t(16) << 20), previewer_(settings.hdr) {
  if (settings.hdr.preview) {
    const float scale = previewer_.exposure_scale();
    preview_scale_ = runtime.device_alloc(sizeof(float), stream_, "stitch-360 preview exposure");
    staging_.upload(stream_, preview_scale_.get(), &scale, sizeof(float));
    stream_.synchronize("stitch-360 preview exposure");
  }
#ifdef GPUPROC_HAVE_NVJPEG
  if (decodes_jpeg(runtime, settings) || encodes_jpeg(runtime, settings)) {
    std::shared_ptr<const io::GpuJpegContext> context = shared.jpeg_context(runtime);
    ScopedStage span("gpu codec states");
    io::GpuJpegOptions options;
    // Encodes are waited for a group of states at a time. Each state costs about 12 ms to make
    // (0.75 s for 64 at the first batch, measured on the H100); 16 keep 16 views in flight.
    options.encoder_states = encoder_states;
    options.output_headroom = 4096;  // the views' EXIF segment, inserted by the save stage
    options.expected_batch = settings.batch;
    options.expected_width = shared.panorama_width;
    options.expected_height = shared.panorama_height;
    options.prepare_decoder = shared.jpeg_inputs;
    codec_.reset(new io::GpuJpegCodec(std::move(context), options));
    if (encodes_jpeg(runtime, settings)) warm_up_encoder(shared.view_width, shared.view_height);
  }
#endif
}

GpuWorker::~GpuWorker() = default;

void GpuWorker::warm_up_encoder(int width, int height) {
#ifdef GPUPROC_HAVE_NVJPEG
  if (width <= 0 || height <= 0) return;
  // nvJPEG sizes each encoder state's buffers at its first image: one grey view per state now, while
  // the other workers set up too, rather than inside the first batch.
  ScopedStage span("gpu encoder warm-up");
  const std::size_t bytes = std::size_t(width) * std::size_t(height) * 3;
  DeviceBuffer blank = runtime_.device_alloc(bytes, stream_, "stitch-360 encoder warm-up");
  stream_.memset(blank.get(), 128, bytes);
  const std::vector<ImageView> images(encoder_states, packed_view(blank.get(), width, height, 3, PixelType::u8));
  const std::vector<std::string> names(encoder_states, "encoder warm-up");
  std::vector<std::vector<std::uint8_t>> files;
  for (const io::ItemOutcome& outcome : codec_->encode_batch(images, names, jpeg_options(settings_), stream_, files))
    if (outcome) throw *outcome;
#else
  (void)width;
  (void)height;
#endif
}

void GpuWorker::CodecDeleter::operator()(io::GpuJpegCodec* codec) const {
#ifdef GPUPROC_HAVE_NVJPEG
  delete codec;
#else
  (void)codec;  // never made without nvJPEG
#endif
}

std::vector<ImageView> GpuWorker::device_masks(const StitchItem& item) {
  if (!settings_.mask.apply || !item.masks) return {};
  DeviceMasks& d = masks_[item.masks.get()];
  if (!d.set) {
    d.set = item.masks;
    for (const OutputMask& m : *item.masks) {
      d.buffers.push_back(runtime_.device_alloc(m.pixels.size(), stream_, "stitch-360 output mask"));
      d.views.push_back(packed_view(d.buffers.back().get(), m.width, m.height, 1, PixelType::u8));
      staging_.upload(stream_, d.views.back().data, m.pixels.data(), m.pixels.size());
    }
  }
  return d.views;
}

const void* GpuWorker::remap_table(const ImageView& panorama, const std::vector<ImageView>& outputs) {
  if (!projector_.uses_remap_table()) return nullptr;
  if (!remap_table_.get() || panorama.width != remap_width_ || panorama.height != remap_height_) {
    ScopedStage span("gpu remap table");
    remap_table_.reset();
    remap_table_ = runtime_.device_alloc(projector_.remap_table_bytes(outputs), stream_, "stitch-360 remap table");
    projector_.build_remap_device(panorama, outputs, remap_table_.get(), stream_.get());
    remap_width_ = panorama.width;
    remap_height_ = panorama.height;
  }
  return remap_table_.get();
}

std::vector<std::exception_ptr> GpuWorker::run(const std::vector<StitchItem*>& items) {
  std::vector<std::exception_ptr> errors(items.size());
  // The stages' spans end after a stream synchronisation, so the trace shows where a batch's time
  // goes (one wait per stage and batch of many panoramas costs little).
  std::optional<ScopedStage> span(std::in_place, "gpu alloc");
  std::vector<DeviceBuffer> panorama_buffers;
  std::vector<ImageView> panoramas;
  for (StitchItem* item : items) {
    const ImageView& p = item->panorama;
    panorama_buffers.push_back(runtime_.device_alloc(p.row_bytes() * std::size_t(p.height), stream_, "stitch-360 panorama " + item->name));
    panoramas.push_back(packed_view(panorama_buffers.back().get(), p.width, p.height, p.channels, p.type));
  }

  // In: the JPEGs in one batch, pixels decoded on the host through the staging buffer.
  span.emplace("gpu decode");
  std::vector<std::size_t> jpeg_items;
  std::vector<DeviceBuffer> yuv_buffers;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i]->file.empty()) {
      jpeg_items.push_back(i);
    } else if (items[i]->yuv) {  // a video frame: its planes up, converted to RGB here
      const frames::FrameSource& frame = *items[i]->yuv;
      const std::size_t bytes = frames::frame_bytes(frame);
      yuv_buffers.push_back(runtime_.device_alloc(bytes, stream_, "stitch-360 video frame " + items[i]->name));
      staging_.upload(stream_, yuv_buffers.back().get(), frame.planes[0], bytes);  // packed from plane 0 on
      frames::resize_frame_gpu(frames::frame_at(frame, yuv_buffers.back().as<std::uint8_t>()), panoramas[i],
                               stream_.get());
    } else {
      staging_.upload(stream_, panoramas[i].data, items[i]->panorama.data, panoramas[i].bytes());
    }
  }
  if (!jpeg_items.empty()) {
#ifdef GPUPROC_HAVE_NVJPEG
    std::vector<io::JpegSource> sources;
    std::vector<ImageView> targets;
    for (std::size_t i : jpeg_items) {
      sources.push_back({items[i]->file.data(), items[i]->file.size(), items[i]->name});
      targets.push_back(panoramas[i]);
    }
    const std::vector<io::ItemOutcome> decoded = codec_->decode_batch(sources, targets, stream_);
    for (std::size_t k = 0; k < jpeg_items.size(); ++k)
      if (decoded[k]) errors[jpeg_items[k]] = std::make_exception_ptr(*decoded[k]);
#else
    throw Error("stitch-360: " + items[jpeg_items[0]]->name + " left for a GPU JPEG decoder this build does not have");
#endif
  }

  stream_.synchronize("stitch-360 decode");

  // Project every decoded panorama into device outputs.
  span.emplace("gpu project");
  std::vector<DeviceBuffer> output_buffers;
  std::vector<ImageView> outputs;              // of all items, in order
  std::vector<std::size_t> output_item;        // which item each belongs to
  std::vector<OutputImage*> output_images;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (errors[i]) continue;
    std::vector<ImageView> dst;
    for (OutputImage& o : items[i]->outputs) {
      o.channels = panoramas[i].channels;
      o.type = panoramas[i].type;
      output_buffers.push_back(runtime_.device_alloc(o.bytes(), stream_, "stitch-360 output " + o.plan.path));
      dst.push_back(packed_view(output_buffers.back().get(), o.plan.width, o.plan.height, o.channels, o.type));
      output_item.push_back(i);
      output_images.push_back(&o);
    }
    projector_.run_device(panoramas[i], dst, stream_.get(), device_masks(*items[i]), remap_table(panoramas[i], dst));
    outputs.insert(outputs.end(), dst.begin(), dst.end());
  }

  stream_.synchronize("stitch-360 projection");

  // Float outputs' 8-bit previews (the tone operators, cuda/tone), each downloaded beside its output.
  std::vector<DeviceBuffer> preview_buffers;
  if (settings_.hdr.preview) {
    span.emplace("gpu preview");
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      OutputImage& o = *output_images[k];
      const ImageView& rgb = outputs[k];
      const std::size_t scratch_bytes = previewer_.scratch_bytes(rgb.width, rgb.height);
      preview_buffers.push_back(runtime_.device_alloc(scratch_bytes, stream_, "stitch-360 preview scratch"));
      void* scratch = preview_buffers.back().get();
      o.preview.resize(std::size_t(rgb.width) * rgb.height * 3);
      preview_buffers.push_back(runtime_.device_alloc(o.preview.size(), stream_, "stitch-360 preview " + o.plan.preview_path));
      const ImageView preview = packed_view(preview_buffers.back().get(), rgb.width, rgb.height, 3, PixelType::u8);
      previewer_.run_gpu(rgb, preview, preview_scale_.as<float>(), scratch, scratch_bytes, stream_);
      staging_.download(stream_, o.preview.data(), preview.data, o.preview.size());
    }
  }

  // Out: all outputs in one encode batch, or their pixels to the host.
  span.emplace("gpu encode");
  if (encodes_jpeg(runtime_, settings_)) {
#ifdef GPUPROC_HAVE_NVJPEG
    std::vector<std::string> names;
    for (const OutputImage* o : output_images) names.push_back(o->plan.path);
    std::vector<std::vector<std::uint8_t>> files(outputs.size());
    for (std::vector<std::uint8_t>& file : files) file = shared_.encoded_buffers.take();
    const std::vector<io::ItemOutcome> encoded = codec_->encode_batch(outputs, names, jpeg_options(settings_), stream_, files);
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      if (encoded[k] && !errors[output_item[k]]) errors[output_item[k]] = std::make_exception_ptr(*encoded[k]);
      output_images[k]->encoded = std::move(files[k]);
    }
#endif
  } else {
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      OutputImage& o = *output_images[k];
      o.pixels.resize(outputs[k].bytes());
      staging_.download(stream_, o.pixels.data(), outputs[k].data, o.pixels.size());
    }
  }
  // The decode read the items' files and the uploads their pixels until here.
  stream_.synchronize("stitch-360 batch of " + std::to_string(items.size()) + " panoramas, first " + items[0]->name);
  for (StitchItem* item : items) {
    shared_.file_buffers.give(std::move(item->file));
    item->pixels = {};
  }
  return errors;
}

}  // namespace gp::stitch

#include "stitch/gpu_worker.hpp"

#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/jpeg_codec.hpp"

namespace gp::stitch {

bool GpuWorker::decodes_jpeg(const Runtime& runtime) { return io::gpu_jpeg_available(runtime); }

bool GpuWorker::encodes_jpeg(const Runtime& runtime, const Settings& settings) {
  return decodes_jpeg(runtime) && settings.format == "jpg";
}

GpuWorker::GpuWorker(Runtime& runtime, const Settings& settings, const Projector& projector)
    : runtime_(runtime), settings_(settings), projector_(projector), stream_(runtime.make_stream()),
      staging_(runtime, std::size_t(16) << 20) {
#ifdef GPUPROC_HAVE_NVJPEG
  if (decodes_jpeg(runtime)) {
    io::GpuJpegOptions options;
    options.encoder_states = 16;
    codec_.reset(new io::GpuJpegCodec(runtime, options));
  }
#endif
}

GpuWorker::~GpuWorker() = default;

void GpuWorker::CodecDeleter::operator()(io::GpuJpegCodec* codec) const {
#ifdef GPUPROC_HAVE_NVJPEG
  delete codec;
#else
  (void)codec;  // never made without nvJPEG
#endif
}

void GpuWorker::run(StitchItem& item) {
  const ImageView& pano = item.panorama;
  DeviceBuffer d_pano = runtime_.device_alloc(pano.row_bytes() * std::size_t(pano.height), stream_, "stitch-360 panorama");
  const ImageView src = packed_view(d_pano.get(), pano.width, pano.height, pano.channels, PixelType::u8);
  if (!item.file.empty()) {
#ifdef GPUPROC_HAVE_NVJPEG
    codec_->decode({item.file.data(), item.file.size(), item.name}, src, stream_);
#else
    throw Error("stitch-360: " + item.name + " left for a GPU JPEG decoder this build does not have");
#endif
  } else {
    staging_.upload(stream_, src.data, pano.data, src.bytes());
  }

  std::vector<DeviceBuffer> buffers;
  std::vector<ImageView> dst;
  for (OutputImage& o : item.outputs) {
    o.channels = pano.channels;
    const std::size_t bytes = std::size_t(o.plan.width) * o.plan.height * o.channels;
    buffers.push_back(runtime_.device_alloc(bytes, stream_, "stitch-360 output " + o.plan.label));
    dst.push_back(packed_view(buffers.back().get(), o.plan.width, o.plan.height, o.channels, PixelType::u8));
  }
  projector_.run_device(src, dst, stream_.get());

  if (encodes_jpeg(runtime_, settings_)) {
#ifdef GPUPROC_HAVE_NVJPEG
    io::JpegEncodeOptions options;
    options.quality = settings_.jpeg_quality;
    options.subsampling = settings_.chroma_444 ? io::ChromaSubsampling::s444 : io::ChromaSubsampling::s420;
    std::vector<std::string> names;
    for (const OutputImage& o : item.outputs) names.push_back(o.plan.path);
    std::vector<std::vector<std::uint8_t>> files;
    const auto outcomes = codec_->encode_batch(dst, names, options, stream_, files);
    for (std::size_t i = 0; i < item.outputs.size(); ++i) {
      if (outcomes[i]) throw *outcomes[i];
      item.outputs[i].encoded = std::move(files[i]);
    }
#endif
  } else {
    for (std::size_t i = 0; i < item.outputs.size(); ++i) {
      OutputImage& o = item.outputs[i];
      o.pixels.resize(dst[i].bytes());
      staging_.download(stream_, o.pixels.data(), dst[i].data, o.pixels.size());
    }
  }
  // The decode read item.file and the copies item.pixels until here.
  stream_.synchronize("stitch-360 " + item.name);
  item.file = {};
  item.pixels = {};
}

}  // namespace gp::stitch

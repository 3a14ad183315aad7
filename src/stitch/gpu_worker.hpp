#pragma once
// The GPU side of one stitch-360 compute worker: its stream, staging buffer and, in builds with
// nvJPEG, its JPEG codec. A panorama's pixels stay on the device from decode (or upload) to encode
// (or download): with nvJPEG the host only ever holds JPEG bytes.
#include <memory>

#include "core/gpu_runtime.hpp"
#include "stitch/projector.hpp"
#include "stitch/stitch_item.hpp"
#include "stitch/stitch_settings.hpp"

namespace gp::io {
class GpuJpegCodec;
}

namespace gp::stitch {

class GpuWorker {
 public:
  // On the calling (compute worker) thread, which must have the runtime's device bound.
  GpuWorker(Runtime& runtime, const Settings& settings, const Projector& projector);
  ~GpuWorker();
  GpuWorker(const GpuWorker&) = delete;
  GpuWorker& operator=(const GpuWorker&) = delete;

  // Whether the load stage leaves JPEG decoding to the GPU: nvJPEG in this build and a GPU.
  static bool decodes_jpeg(const Runtime& runtime);
  // Whether the outputs are encoded on the GPU (JPEG outputs with nvJPEG).
  static bool encodes_jpeg(const Runtime& runtime, const Settings& settings);

  // Decodes item.file (or uploads item.pixels), projects into item.outputs and encodes them (or
  // downloads their pixels). Throws gp::ItemError for a file nvJPEG cannot decode.
  void run(StitchItem& item);

 private:
  Runtime& runtime_;
  const Settings& settings_;
  const Projector& projector_;
  Stream stream_;
  StagingBuffer staging_;
  // The codec's class exists only in builds with nvJPEG: its deleter lives in the .cpp.
  struct CodecDeleter {
    void operator()(io::GpuJpegCodec* codec) const;
  };
  std::unique_ptr<io::GpuJpegCodec, CodecDeleter> codec_;  // null without nvJPEG
};

}  // namespace gp::stitch

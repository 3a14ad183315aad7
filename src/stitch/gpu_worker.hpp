#pragma once
// The GPU side of one stitch-360 compute worker: its stream, staging buffer and, in builds with
// nvJPEG, its JPEG codec. A panorama's pixels stay on the device from decode (or upload) to encode
// (or download): with nvJPEG the host only ever holds JPEG bytes. Batches let the JPEG engines and
// the encoder work on many images per call; two workers let one decode while the other encodes.
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/byte_buffer_pool.hpp"
#include "core/gpu_runtime.hpp"
#include "core/staging_buffer.hpp"
#include "stitch/hdr_preview.hpp"
#include "stitch/projector.hpp"
#include "stitch/stitch_item.hpp"
#include "stitch/stitch_settings.hpp"

namespace gp::io {
class GpuJpegCodec;
class GpuJpegContext;
}  // namespace gp::io

namespace gp::stitch {

// What the GPU workers of one job share: the nvJPEG library handle of each device (runtime), made by
// the first of its workers that asks (making one takes most of a second; several at once take
// longer each), and the byte buffers
// the JPEG files and encoded views travel in, recycled between the load, GPU and save stages.
class GpuWorkerShared {
 public:
  // in_flight: the most panoramas that exist at once; outputs: views per panorama; workers: GPU workers.
  GpuWorkerShared(std::size_t in_flight, std::size_t outputs, int workers)
      : file_buffers(in_flight), encoded_buffers(in_flight * outputs), workers_(workers) {}

  std::shared_ptr<const io::GpuJpegContext> jpeg_context(Runtime& runtime);

  // Each worker calls this once, after making its codec (or failing to): returns when all have.
  // nvJPEG's decoder states take 0.1-0.35 s each to make, made together 0.48 s for four, but
  // 0.6 s each while other workers already decode (measured on the H100): so none starts early.
  void set_up_done();

  ByteBufferPool file_buffers;     // panoramas' JPEG bytes: filled by the load stage, freed after decode
  ByteBufferPool encoded_buffers;  // views' JPEG bytes: filled by the encoder, freed after the write

  // Sizes the job expects (the first input's and its first output's; 0: unknown), so that each
  // worker sets its codec up for them before the first batch instead of inside it.
  int panorama_width = 0, panorama_height = 0;
  int view_width = 0, view_height = 0;
  // Whether any input is a JPEG file. A job of videos alone (their frames come decoded) only
  // encodes: no hardware decoder nor decoder states are set up (~1 s of a short video's run).
  bool jpeg_inputs = true;

 private:
  std::mutex mutex_;
  std::condition_variable all_set_up_;
  int workers_;
  std::map<const Runtime*, std::shared_ptr<const io::GpuJpegContext>> contexts_;  // the handle works on its device only
};

class GpuWorker {
 public:
  // On the calling (compute worker) thread, which must have the runtime's device bound.
  GpuWorker(Runtime& runtime, const Settings& settings, const Projector& projector, GpuWorkerShared& shared);
  ~GpuWorker();
  GpuWorker(const GpuWorker&) = delete;
  GpuWorker& operator=(const GpuWorker&) = delete;

  // nvJPEG encoder states per worker (the codec limit benchmark uses the same).
  static constexpr int encoder_states = 16;

  // Whether the load stage leaves JPEG decoding to the GPU: nvJPEG in this build, a GPU and 8-bit
  // outputs.
  static bool decodes_jpeg(const Runtime& runtime, const Settings& settings);
  // Whether the outputs are encoded on the GPU (JPEG outputs with nvJPEG).
  static bool encodes_jpeg(const Runtime& runtime, const Settings& settings);

  // For a batch of panoramas: decodes their files in one nvJPEG batch (or uploads their pixels),
  // projects each into its outputs and encodes all outputs in one batch (or downloads their
  // pixels). Returns one error per item (null: done), e.g. gp::ItemError for a file nvJPEG cannot
  // decode; the others go on. Throws what fails the whole batch (a GPU error).
  std::vector<std::exception_ptr> run(const std::vector<StitchItem*>& items);

 private:
  // Encodes a blank width x height view with every encoder state (their buffers made now).
  void warm_up_encoder(int width, int height);
  // The item's masks on the device when /mask/apply (uploaded once per mask set), else none.
  std::vector<ImageView> device_masks(const StitchItem& item);
  // The projector's remap table for panoramas of this one's size (mode views; else null), made
  // at the first panorama of a size and kept until one of another size comes.
  const void* remap_table(const ImageView& panorama, const std::vector<ImageView>& outputs);

  Runtime& runtime_;
  const Settings& settings_;
  const Projector& projector_;
  GpuWorkerShared& shared_;
  Stream stream_;
  StagingBuffer staging_;
  // The codec's class exists only in builds with nvJPEG: its deleter lives in the .cpp.
  struct CodecDeleter {
    void operator()(io::GpuJpegCodec* codec) const;
  };
  std::unique_ptr<io::GpuJpegCodec, CodecDeleter> codec_;  // null without nvJPEG
  struct DeviceMasks {
    std::shared_ptr<const OutputMaskSet> set;  // kept alive: the key is its address
    std::vector<DeviceBuffer> buffers;
    std::vector<ImageView> views;
  };
  std::map<const OutputMaskSet*, DeviceMasks> masks_;
  DeviceBuffer remap_table_;
  HdrPreviewer previewer_;
  DeviceBuffer preview_scale_;  // with /output/preview: 2^ev, read by every preview
  int remap_width_ = 0, remap_height_ = 0;
};

}  // namespace gp::stitch

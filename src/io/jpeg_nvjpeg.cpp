// The GPU JPEG codec through nvJPEG (compiled where CMake found it: GPUPROC_HAVE_NVJPEG).
//
// Decode: files the hardware decoder takes (baseline Huffman, A100/H100-class GPUs) go through one
// nvjpegDecodeBatched call; the rest (progressive, or every file on GPUs without JPEG engines when
// the batched call fails) through nvjpegDecode one by one. nvjpegDecodeBatched reports one status
// for the whole batch, so files are checked on the host first (our marker walk: size, components,
// precision, an end-of-image marker after the data; nvJPEG's header parse), and when the batched
// call still fails, its files are decoded one by one to find out which one was at fault.
//
// Encode: nvjpegEncodeImage from interleaved RGB. An encoder state holds one bitstream, so a batch
// goes through `encoder_states` states: queue that many encodes, wait once, fetch their bytes
// (through one pinned buffer).
//
// Memory: with runtime_allocators (the default), nvJPEG's device scratch comes from the runtime's
// stream-ordered pool (counted against --gpu-memory-limit; out of memory becomes GpuOutOfMemory)
// and its pinned buffers from the runtime's pinned cache, through nvJPEG's V2 (context-carrying)
// allocators. nvJPEG grows these buffers only when an image needs more, so the callbacks run
// rarely; each allocation is made on the codec's own stream and waited for, so nvJPEG may use it
// on any stream, and each free first waits for the stream nvJPEG names. runtime_allocators = false
// leaves nvJPEG on cudaMalloc / cudaHostAlloc (outside the runtime's accounting).
#include <fmt/format.h>
#include <nvjpeg.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/gpu_runtime.hpp"
#include "core/text.hpp"
#include "core/trace.hpp"
#include "io/jpeg_codec.hpp"

namespace gp::io {

namespace {

std::string status_name(nvjpegStatus_t status) {
  switch (status) {
    case NVJPEG_STATUS_SUCCESS: return "NVJPEG_STATUS_SUCCESS";
    case NVJPEG_STATUS_NOT_INITIALIZED: return "NVJPEG_STATUS_NOT_INITIALIZED";
    case NVJPEG_STATUS_INVALID_PARAMETER: return "NVJPEG_STATUS_INVALID_PARAMETER";
    case NVJPEG_STATUS_BAD_JPEG: return "NVJPEG_STATUS_BAD_JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED: return "NVJPEG_STATUS_JPEG_NOT_SUPPORTED";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: return "NVJPEG_STATUS_ALLOCATOR_FAILURE";
    case NVJPEG_STATUS_EXECUTION_FAILED: return "NVJPEG_STATUS_EXECUTION_FAILED";
    case NVJPEG_STATUS_ARCH_MISMATCH: return "NVJPEG_STATUS_ARCH_MISMATCH";
    case NVJPEG_STATUS_INTERNAL_ERROR: return "NVJPEG_STATUS_INTERNAL_ERROR";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM: return "NVJPEG_STATUS_INCOMPLETE_BITSTREAM";
    default: break;
  }
  return "nvJPEG status " + std::to_string(int(status));
}

std::string size_text(int width, int height) { return std::to_string(width) + "x" + std::to_string(height); }

nvjpegChromaSubsampling_t nvjpeg_subsampling(ChromaSubsampling s) {
  switch (s) {
    case ChromaSubsampling::s444: return NVJPEG_CSS_444;
    case ChromaSubsampling::s422: return NVJPEG_CSS_422;
    case ChromaSubsampling::s420: return NVJPEG_CSS_420;
    default: break;
  }
  throw Error(std::string("GPU JPEG encode: chroma subsampling must be 4:4:4, 4:2:2 or 4:2:0, not ") +
              chroma_subsampling_name(s));
}

// nvJPEG's V2 allocators on top of the runtime (see the top of the file).
class RuntimeAllocators {
 public:
  explicit RuntimeAllocators(Runtime& runtime) : runtime_(runtime), stream_(runtime.make_stream()) {}

  nvjpegDevAllocatorV2_t device() { return nvjpegDevAllocatorV2_t{&device_malloc, &device_free, this}; }
  nvjpegPinnedAllocatorV2_t pinned() { return nvjpegPinnedAllocatorV2_t{&pinned_malloc, &pinned_free, this}; }

  bool failed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return !failure_.empty();
  }
  // What the last failed callback said, and whether it ran out of memory; cleared.
  std::pair<std::string, bool> take_failure() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::pair<std::string, bool> failure{std::move(failure_), out_of_memory_};
    failure_.clear();
    out_of_memory_ = false;
    return failure;
  }

 private:
  void fail(const std::string& what, bool out_of_memory) {
    std::lock_guard<std::mutex> lock(mutex_);
    failure_ = what;
    out_of_memory_ = out_of_memory;
  }

  // Work nvJPEG queued on `stream` may still use a block it frees (stream-ordered free); the
  // runtime would hand the block out again at once. A null stream is the legacy one, which our
  // non-blocking streams do not wait for: then the whole device.
  static bool wait_for(cudaStream_t stream, RuntimeAllocators* self) {
    const cudaError_t err = stream ? cudaStreamSynchronize(stream) : cudaDeviceSynchronize();
    if (err == cudaSuccess) return true;
    self->fail(std::string("waiting before a free: ") + cudaGetErrorName(err), false);
    return false;
  }

  static int device_malloc(void* context, void** ptr, size_t size, cudaStream_t) {
    auto* self = static_cast<RuntimeAllocators*>(context);
    try {
      std::lock_guard<std::mutex> lock(self->mutex_);
      DeviceBuffer buffer = self->runtime_.device_alloc(std::max<size_t>(size, 1), self->stream_, "nvJPEG scratch");
      self->stream_.synchronize("nvJPEG scratch allocation");  // usable on any stream from here
      *ptr = buffer.get();
      self->device_.emplace(*ptr, std::move(buffer));
      return 0;
    } catch (const GpuOutOfMemory& e) {
      self->fail(e.what(), true);
    } catch (const std::exception& e) {
      self->fail(e.what(), false);
    }
    return 1;
  }

  static int device_free(void* context, void* ptr, size_t, cudaStream_t stream) {
    auto* self = static_cast<RuntimeAllocators*>(context);
    if (!ptr) return 0;
    DeviceBuffer buffer;
    {
      std::lock_guard<std::mutex> lock(self->mutex_);
      auto it = self->device_.find(ptr);
      if (it == self->device_.end()) {  // said, so that nvJPEG's ALLOCATOR_FAILURE comes with its cause
        self->failure_ = "nvJPEG freed device memory this allocator did not give it";
        return 1;
      }
      buffer = std::move(it->second);
      self->device_.erase(it);
    }
    return wait_for(stream, self) ? 0 : 1;  // `buffer` goes back to the pool on leaving
  }

  static int pinned_malloc(void* context, void** ptr, size_t size, cudaStream_t) {
    auto* self = static_cast<RuntimeAllocators*>(context);
    try {
      PinnedBuffer buffer = self->runtime_.pinned_alloc(std::max<size_t>(size, 1));
      std::lock_guard<std::mutex> lock(self->mutex_);
      *ptr = buffer.get();
      self->pinned_.emplace(*ptr, std::move(buffer));
      return 0;
    } catch (const std::exception& e) {
      self->fail(e.what(), false);
    }
    return 1;
  }

  static int pinned_free(void* context, void* ptr, size_t, cudaStream_t stream) {
    auto* self = static_cast<RuntimeAllocators*>(context);
    if (!ptr) return 0;
    PinnedBuffer buffer;
    {
      std::lock_guard<std::mutex> lock(self->mutex_);
      auto it = self->pinned_.find(ptr);
      if (it == self->pinned_.end()) {
        self->failure_ = "nvJPEG freed pinned memory this allocator did not give it";
        return 1;
      }
      buffer = std::move(it->second);
      self->pinned_.erase(it);
    }
    return wait_for(stream, self) ? 0 : 1;
  }

  Runtime& runtime_;
  Stream stream_;  // allocations are queued here and waited for
  mutable std::mutex mutex_;
  std::unordered_map<void*, DeviceBuffer> device_;
  std::unordered_map<void*, PinnedBuffer> pinned_;
  std::string failure_;
  bool out_of_memory_ = false;
};

// A failed nvJPEG call that is not about one file: GpuError, or GpuOutOfMemory when the
// runtime's pool ran dry under nvJPEG's allocator.
void check_status(nvjpegStatus_t status, const char* call, const std::string& context, RuntimeAllocators* allocators) {
  if (status == NVJPEG_STATUS_SUCCESS) return;
  std::string message = "nvJPEG error " + status_name(status) + " in " + call;
  if (!context.empty()) message += " [" + context + "]";
  if (status == NVJPEG_STATUS_ALLOCATOR_FAILURE && allocators) {
    const auto [what, out_of_memory] = allocators->take_failure();
    message += what.empty() ? ": none of the allocator's calls failed (an allocation nvJPEG makes itself)" : ": " + what;
    if (out_of_memory) throw GpuOutOfMemory(message, 0);
  }
  throw GpuError(message);
}

void check_device_view(const ImageView& view, const char* what) {
  if (view.type != PixelType::u8 || (view.channels != 1 && view.channels != 3) || !view.data || view.width <= 0 ||
      view.height <= 0 || view.pitch < view.row_bytes())
    throw Error(std::string("GPU JPEG ") + what + ": images must be u8 with 1 or 3 channels, non-empty, pitch >= row bytes");
}

}  // namespace

struct GpuJpegContext::Impl {
  ~Impl() {
    if (handle) nvjpegDestroy(handle);  // status ignored: nothing to do about a failed release here
  }
  nvjpegStatus_t create_handle(nvjpegBackend_t backend, unsigned flags) {
    if (allocators) return nvjpegCreateExV2(backend, &device_allocator, &pinned_allocator, flags, &handle);
    return nvjpegCreateEx(backend, nullptr, nullptr, flags, &handle);
  }
  void check(nvjpegStatus_t status, const char* call) { check_status(status, call, {}, allocators.get()); }

  std::unique_ptr<RuntimeAllocators> allocators;  // destroyed after the handle that frees through it
  nvjpegDevAllocatorV2_t device_allocator{};
  nvjpegPinnedAllocatorV2_t pinned_allocator{};
  nvjpegHandle_t handle = nullptr;
  bool hardware = false;
  std::string description;
};

GpuJpegContext::GpuJpegContext(Runtime& runtime, const GpuJpegOptions& options)
    : runtime_(runtime), impl_(std::make_unique<Impl>()) {
  Impl& c = *impl_;
  if (!runtime.gpu()) throw GpuError("GPU JPEG codec: the runtime has no GPU (" + runtime.device_name() + ")");
  runtime.bind_thread();  // nvJPEG handles belong to the device current at creation
  if (options.runtime_allocators) {
    c.allocators = std::make_unique<RuntimeAllocators>(runtime);
    c.device_allocator = c.allocators->device();
    c.pinned_allocator = c.allocators->pinned();
  }
  const unsigned flags = options.strict_bitstream ? NVJPEG_FLAGS_BITSTREAM_STRICT : NVJPEG_FLAGS_DEFAULT;
  if (options.hardware_decode) {
    const nvjpegStatus_t status = c.create_handle(NVJPEG_BACKEND_HARDWARE, flags);
    if (status == NVJPEG_STATUS_SUCCESS) {
      c.hardware = true;
      c.description = "nvJPEG hardware decoder";
    } else {
      if (status == NVJPEG_STATUS_ALLOCATOR_FAILURE) c.check(status, "nvjpegCreateEx (hardware backend)");
      // No JPEG engines (ARCH_MISMATCH), or the driver's part of them missing (e.g. a container
      // without video capabilities): the CUDA decoder does the work.
      c.handle = nullptr;
      c.description = "nvJPEG CUDA decoder (hardware backend: " + status_name(status) + ")";
    }
  } else {
    c.description = "nvJPEG CUDA decoder (hardware decoding off)";
  }
  if (!c.hardware) c.check(c.create_handle(NVJPEG_BACKEND_DEFAULT, flags), "nvjpegCreateEx (default backend)");
}

GpuJpegContext::~GpuJpegContext() = default;

bool GpuJpegContext::hardware_decoder() const { return impl_->hardware; }
const std::string& GpuJpegContext::decoder_description() const { return impl_->description; }

struct GpuJpegCodec::Impl {
  explicit Impl(const GpuJpegOptions& opts) : options(opts) {}
  ~Impl();

  // Fatal (not about one file): see check_status.
  void check(nvjpegStatus_t status, const char* call, const std::string& context) {
    check_status(status, call, context, allocators);
  }
  // About one file: an ItemError, except allocator failures (fatal, see check).
  ItemError item_error(nvjpegStatus_t status, const char* call, const std::string& name, const char* stage) {
    if (status == NVJPEG_STATUS_ALLOCATOR_FAILURE) check(status, call, name);
    return ItemError(name, stage, std::string(call) + " failed: " + status_name(status));
  }

  // Host checks the batched decoder cannot make per file; throws ItemError.
  void check_source(const JpegSource& source, const ImageView& output) const;
  void decode_batched(const std::vector<JpegSource>& sources, const std::vector<ImageView>& outputs,
                      const std::vector<std::size_t>& items, nvjpegOutputFormat_t format, const Stream& stream,
                      std::vector<std::size_t>& fall_back);
  void decode_single(const JpegSource& source, const ImageView& output, nvjpegOutputFormat_t format, const Stream& stream,
                     ItemOutcome& outcome);
  void configure_encoder(const JpegEncodeOptions& options, const Stream& stream);
  // The batched decoder's state, header parser and hardware pool: at construction, or at the first
  // decode (GpuJpegOptions::prepare_decoder).
  void prepare_decoder();

  GpuJpegOptions options;
  std::shared_ptr<const GpuJpegContext> context;  // destroyed after the states made from its handle
  RuntimeAllocators* allocators = nullptr;        // the context's, or null
  nvjpegHandle_t handle = nullptr;                // the context's
  bool hardware = false;
  std::string description;
  GpuJpegCounters counters;
  nvjpegJpegState_t batched_state = nullptr;  // nvjpegDecodeBatched
  nvjpegJpegState_t single_state = nullptr;   // nvjpegDecode; made when first needed
  nvjpegJpegStream_t header = nullptr;        // header parse for the hardware decoder's support check
  nvjpegEncoderParams_t encode_params = nullptr;
  std::vector<nvjpegEncoderState_t> encoder_states;
  PinnedBuffer bitstreams;  // a round's encoded files on their way to the host
  bool encoder_configured = false;
  int encode_quality = 0;
  ChromaSubsampling encode_subsampling = ChromaSubsampling::other;
  bool encode_optimized = false;
  bool encode_progressive = false;
};

GpuJpegCodec::Impl::~Impl() {
  // Statuses ignored: nothing to do about a failed release here.
  for (nvjpegEncoderState_t state : encoder_states) nvjpegEncoderStateDestroy(state);
  if (encode_params) nvjpegEncoderParamsDestroy(encode_params);
  if (header) nvjpegJpegStreamDestroy(header);
  if (single_state) nvjpegJpegStateDestroy(single_state);
  if (batched_state) nvjpegJpegStateDestroy(batched_state);
}

void GpuJpegCodec::Impl::check_source(const JpegSource& source, const ImageView& output) const {
  if (!source.data || source.size == 0) throw ItemError(source.name, "decode", "empty file");
  const JpegInfo info = jpeg_info(source.data, source.size, source.name);
  if (info.precision != 8)
    throw ItemError(source.name, "decode", std::to_string(info.precision) + "-bit JPEGs are not supported");
  if (info.channels != 1 && info.channels != 3)
    throw ItemError(source.name, "decode", std::to_string(info.channels) + "-component (CMYK/YCCK) JPEGs are not supported");
  if (info.arithmetic) throw ItemError(source.name, "decode", "arithmetic-coded JPEGs are not supported by nvJPEG");
  if (info.width != output.width || info.height != output.height)
    throw ItemError(source.name, "decode",
                    "the image is " + size_text(info.width, info.height) + ", not " + size_text(output.width, output.height));
  if (!info.has_end_marker)
    throw ItemError(source.name, "decode", "truncated: no end-of-image marker after the image data");
}

void GpuJpegCodec::Impl::decode_batched(const std::vector<JpegSource>& sources, const std::vector<ImageView>& outputs,
                                        const std::vector<std::size_t>& items, nvjpegOutputFormat_t format,
                                        const Stream& stream, std::vector<std::size_t>& fall_back) {
  if (items.empty()) return;
  std::vector<const unsigned char*> data;
  std::vector<size_t> lengths;
  std::vector<nvjpegImage_t> destinations;
  for (std::size_t i : items) {
    data.push_back(sources[i].data);
    lengths.push_back(sources[i].size);
    nvjpegImage_t image{};  // interleaved output: channel[0] only
    image.channel[0] = static_cast<unsigned char*>(outputs[i].data);
    image.pitch[0] = outputs[i].pitch;
    destinations.push_back(image);
  }
  const std::string what = std::to_string(items.size()) + " images";
  // nvJPEG's hardware decoder does not wait for work queued before it on its stream (reported by
  // torchcodec on H100s: it wrote its outputs while queued kernels still read them). The outputs
  // come from the stream-ordered pool, whose reuse of a block freed on another stream is such
  // queued work: the stream is drained first (it is idle in gpuproc's workers anyway).
  if (hardware) stream.synchronize("before nvJPEG's hardware decode of " + what);
  const auto decode = [&] {
    // Once per call: required whenever the batch size changes or a batch failed.
    check(nvjpegDecodeBatchedInitialize(handle, batched_state, int(items.size()), 1, format),
          "nvjpegDecodeBatchedInitialize", what);
    return nvjpegDecodeBatched(handle, batched_state, data.data(), lengths.data(), destinations.data(), stream.get());
  };
  nvjpegStatus_t status = decode();
  if (status == NVJPEG_STATUS_ALLOCATOR_FAILURE && allocators && !allocators->failed()) {
    // An allocation nvJPEG's hardware decoder makes of its own failed (none of the runtime's
    // allocator calls did): seen now and then (twice on an H100, once in six 1024-panorama runs on
    // the H200) with most of the GPU's memory free, so its cause is inside nvJPEG. The pool's unused
    // memory goes back to the driver (should it be memory after all) and the batch is tried once
    // more; the message says how full the GPU was.
    Runtime& runtime = context->runtime();
    const MemoryStats m = runtime.memory_stats();
    const std::string memory = fmt::format("{} free of {}, the runtime's pool holding {} ({} in use)",
                                           gib_text(m.device_free), gib_text(m.device_total),
                                           gib_text(m.device_reserved), gib_text(m.device_in_use));
    runtime.trim();
    ++counters.allocator_retries;
    status = decode();
    if (status == NVJPEG_STATUS_ALLOCATOR_FAILURE)
      check(status, "nvjpegDecodeBatched", what + "; tried again after returning the pool's unused memory; before: " + memory);
  }
  if (status == NVJPEG_STATUS_SUCCESS) {
    counters.batched += items.size();
    return;
  }
  if (status == NVJPEG_STATUS_ALLOCATOR_FAILURE) check(status, "nvjpegDecodeBatched", what);
  ++counters.failed_batches;
  // One status for the batch: decode its files one by one to tell the bad from the good.
  fall_back.insert(fall_back.end(), items.begin(), items.end());
}

void GpuJpegCodec::Impl::decode_single(const JpegSource& source, const ImageView& output, nvjpegOutputFormat_t format,
                                       const Stream& stream, ItemOutcome& outcome) {
  ++counters.single;
  nvjpegImage_t image{};
  image.channel[0] = static_cast<unsigned char*>(output.data);
  image.pitch[0] = output.pitch;
  if (!single_state) {  // made at the first file that needs it: states are slow to make (~0.3 s each on an H100)
    ScopedStage span("nvjpeg single state");
    check(nvjpegJpegStateCreate(handle, &single_state), "nvjpegJpegStateCreate", "single");
  }
  const nvjpegStatus_t status = nvjpegDecode(handle, single_state, source.data, source.size, format, &image, stream.get());
  if (status != NVJPEG_STATUS_SUCCESS) outcome = item_error(status, "nvjpegDecode", source.name, "decode");
}

void GpuJpegCodec::Impl::configure_encoder(const JpegEncodeOptions& opts, const Stream& stream) {
  if (opts.quality < 1 || opts.quality > 100)
    throw Error("GPU JPEG encode: quality " + std::to_string(opts.quality) + " is outside 1..100");
  const nvjpegChromaSubsampling_t subsampling = nvjpeg_subsampling(opts.subsampling);
  if (encoder_configured && opts.quality == encode_quality && opts.subsampling == encode_subsampling &&
      opts.optimize_huffman == encode_optimized && opts.progressive == encode_progressive)
    return;
  // Parameters must not change while an encode that uses them runs.
  stream.synchronize("nvJPEG encoder parameters");
  check(nvjpegEncoderParamsSetQuality(encode_params, opts.quality, stream.get()), "nvjpegEncoderParamsSetQuality", {});
  check(nvjpegEncoderParamsSetSamplingFactors(encode_params, subsampling, stream.get()),
        "nvjpegEncoderParamsSetSamplingFactors", chroma_subsampling_name(opts.subsampling));
  check(nvjpegEncoderParamsSetOptimizedHuffman(encode_params, opts.optimize_huffman ? 1 : 0, stream.get()),
        "nvjpegEncoderParamsSetOptimizedHuffman", {});
  check(nvjpegEncoderParamsSetEncoding(
            encode_params, opts.progressive ? NVJPEG_ENCODING_PROGRESSIVE_DCT_HUFFMAN : NVJPEG_ENCODING_BASELINE_DCT,
            stream.get()),
        "nvjpegEncoderParamsSetEncoding", opts.progressive ? "progressive" : "baseline");
  encoder_configured = true;
  encode_quality = opts.quality;
  encode_subsampling = opts.subsampling;
  encode_optimized = opts.optimize_huffman;
  encode_progressive = opts.progressive;
}

void GpuJpegCodec::Impl::prepare_decoder() {
  if (batched_state) return;
  // The spans show where a worker's set-up time goes in --trace (several workers' set-ups
  // serialise inside nvJPEG).
  std::optional<ScopedStage> span(std::in_place, "nvjpeg batched state");
  check(nvjpegJpegStateCreate(handle, &batched_state), "nvjpegJpegStateCreate", "batched");
  span.emplace("nvjpeg stream parser");
  check(nvjpegJpegStreamCreate(handle, &header), "nvjpegJpegStreamCreate", {});
  span.emplace("nvjpeg hardware pool");
  if (hardware) {
    // Sets up the hardware decoder's memory pool; sizes are hints it grows past (NVIDIA's
    // nvImageCodec calls it even without hints for the pool's sake). 4:4:4 covers every subsampling.
    check(nvjpegDecodeBatchedPreAllocate(handle, batched_state, std::max(1, options.expected_batch),
                                         std::max(1, options.expected_width), std::max(1, options.expected_height),
                                         NVJPEG_CSS_444, NVJPEG_OUTPUT_RGBI),
          "nvjpegDecodeBatchedPreAllocate", {});
  }
}

GpuJpegCodec::GpuJpegCodec(Runtime& runtime, const GpuJpegOptions& options)
    : GpuJpegCodec(std::make_shared<const GpuJpegContext>(runtime, options), options) {}

GpuJpegCodec::GpuJpegCodec(std::shared_ptr<const GpuJpegContext> context, const GpuJpegOptions& options)
    : impl_(std::make_unique<Impl>(options)) {
  Impl& s = *impl_;
  Runtime& runtime = context->runtime();
  runtime.bind_thread();  // nvJPEG states belong to the device current at creation
  s.context = std::move(context);
  s.allocators = s.context->impl_->allocators.get();
  s.handle = s.context->impl_->handle;
  s.hardware = s.context->impl_->hardware;
  s.description = s.context->impl_->description;

  if (options.prepare_decoder) s.prepare_decoder();
  ScopedStage span("nvjpeg encoder params");
  Stream setup = runtime.make_stream();
  s.check(nvjpegEncoderParamsCreate(s.handle, &s.encode_params, setup.get()), "nvjpegEncoderParamsCreate", {});
  setup.synchronize("nvJPEG setup");
}

GpuJpegCodec::~GpuJpegCodec() = default;

bool GpuJpegCodec::hardware_decoder() const { return impl_->hardware; }
const std::string& GpuJpegCodec::decoder_description() const { return impl_->description; }
GpuJpegCounters GpuJpegCodec::counters() const { return impl_->counters; }

std::vector<ItemOutcome> GpuJpegCodec::decode_batch(const std::vector<JpegSource>& sources,
                                                    const std::vector<ImageView>& outputs, const Stream& stream) {
  Impl& s = *impl_;
  if (sources.size() != outputs.size())
    throw Error("GPU JPEG decode: " + std::to_string(sources.size()) + " files for " + std::to_string(outputs.size()) +
                " outputs");
  std::vector<ItemOutcome> outcomes(sources.size());
  if (sources.empty()) return outcomes;
  s.prepare_decoder();
  for (const ImageView& output : outputs) {
    check_device_view(output, "decode");
    if (output.channels != outputs[0].channels) throw Error("GPU JPEG decode: every output of a batch needs the same channels");
  }
  // Interleaved RGB, or luma (a grey file gives grey RGB; a colour one its Y channel).
  const nvjpegOutputFormat_t format = outputs[0].channels == 3 ? NVJPEG_OUTPUT_RGBI : NVJPEG_OUTPUT_Y;

  std::vector<std::size_t> batched, single;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    try {
      s.check_source(sources[i], outputs[i]);
    } catch (const ItemError& e) {
      outcomes[i] = e;
      continue;
    }
    if (!s.hardware) {
      batched.push_back(i);
      continue;
    }
    const nvjpegStatus_t parsed = nvjpegJpegStreamParseHeader(s.handle, sources[i].data, sources[i].size, s.header);
    if (parsed != NVJPEG_STATUS_SUCCESS) {
      outcomes[i] = s.item_error(parsed, "nvjpegJpegStreamParseHeader", sources[i].name, "decode");
      continue;
    }
    int supported = -1;  // 0: the hardware decoder takes it
    const nvjpegStatus_t asked = nvjpegDecodeBatchedSupported(s.handle, s.header, &supported);
    (asked == NVJPEG_STATUS_SUCCESS && supported == 0 ? batched : single).push_back(i);
  }
  s.decode_batched(sources, outputs, batched, format, stream, single);
  std::sort(single.begin(), single.end());
  for (std::size_t i : single) s.decode_single(sources[i], outputs[i], format, stream, outcomes[i]);
  return outcomes;
}

void GpuJpegCodec::decode(const JpegSource& source, const ImageView& output, const Stream& stream) {
  std::vector<ItemOutcome> outcome = decode_batch({source}, {output}, stream);
  if (outcome[0]) throw *outcome[0];
}

std::vector<ItemOutcome> GpuJpegCodec::encode_batch(const std::vector<ImageView>& images,
                                                    const std::vector<std::string>& names,
                                                    const JpegEncodeOptions& options, const Stream& stream,
                                                    std::vector<std::vector<std::uint8_t>>& outputs) {
  Impl& s = *impl_;
  if (images.size() != names.size())
    throw Error("GPU JPEG encode: " + std::to_string(images.size()) + " images for " + std::to_string(names.size()) + " names");
  for (const ImageView& image : images) {
    check_device_view(image, "encode");
    if (image.channels != 3) throw Error("GPU JPEG encode: images must be RGB (3 channels); grey ones go to the CPU codec");
  }
  std::vector<ItemOutcome> outcomes(images.size());
  outputs.resize(images.size());
  if (images.empty()) return outcomes;
  s.configure_encoder(options, stream);

  const std::size_t states = std::size_t(std::max(1, s.options.encoder_states));
  std::optional<ScopedStage> span;
  if (s.encoder_states.size() < std::min(states, images.size())) span.emplace("nvjpeg encoder states");
  while (s.encoder_states.size() < std::min(states, images.size())) {
    nvjpegEncoderState_t state = nullptr;
    s.check(nvjpegEncoderStateCreate(s.handle, &state, stream.get()), "nvjpegEncoderStateCreate", {});
    s.encoder_states.push_back(state);
  }
  span.reset();
  for (std::size_t first = 0; first < images.size(); first += states) {
    const std::size_t end = std::min(images.size(), first + states);
    std::vector<bool> queued(end - first, false);
    span.emplace("nvjpeg encode round");  // queue the round's images and wait for them
    for (std::size_t i = first; i < end; ++i) {
      nvjpegImage_t source{};  // interleaved input: channel[0] only
      source.channel[0] = static_cast<unsigned char*>(images[i].data);
      source.pitch[0] = images[i].pitch;
      const nvjpegStatus_t status = nvjpegEncodeImage(s.handle, s.encoder_states[i - first], s.encode_params, &source,
                                                      NVJPEG_INPUT_RGBI, images[i].width, images[i].height, stream.get());
      if (status == NVJPEG_STATUS_SUCCESS) {
        queued[i - first] = true;
      } else {
        outcomes[i] = s.item_error(status, "nvjpegEncodeImage", names[i], "encode");
        outputs[i].clear();
      }
    }
    stream.synchronize("nvJPEG encode of " + std::to_string(end - first) + " images");
    // The round's bitstreams to the host: their lengths, then one pinned buffer for all of them
    // (DMA at full speed and one wait; copies into pageable vectors ran at about 1 GB/s, 40% of
    // a stitch-360 batch's encode time on the H100), then into the outputs.
    span.emplace("nvjpeg retrieve");
    std::vector<std::size_t> offsets(end - first + 1, 0);
    for (std::size_t i = first; i < end; ++i) {
      size_t length = 0;
      if (queued[i - first]) {
        const nvjpegStatus_t status =
            nvjpegEncodeRetrieveBitstream(s.handle, s.encoder_states[i - first], nullptr, &length, stream.get());
        if (status != NVJPEG_STATUS_SUCCESS) {
          queued[i - first] = false;
          length = 0;
          outcomes[i] = s.item_error(status, "nvjpegEncodeRetrieveBitstream", names[i], "encode");
          outputs[i].clear();
        }
      }
      offsets[i - first + 1] = offsets[i - first] + length;
    }
    if (s.bitstreams.size() < offsets.back()) s.bitstreams = s.context->runtime().pinned_alloc(offsets.back() + offsets.back() / 4);
    for (std::size_t i = first; i < end; ++i) {
      if (!queued[i - first]) continue;
      size_t length = offsets[i - first + 1] - offsets[i - first];
      const nvjpegStatus_t status = nvjpegEncodeRetrieveBitstream(
          s.handle, s.encoder_states[i - first], s.bitstreams.as<unsigned char>() + offsets[i - first], &length, stream.get());
      if (status != NVJPEG_STATUS_SUCCESS) {
        queued[i - first] = false;
        outcomes[i] = s.item_error(status, "nvjpegEncodeRetrieveBitstream", names[i], "encode");
        outputs[i].clear();
      }
    }
    // The copies are queued on the stream; the next round reuses the states.
    stream.synchronize("nvJPEG encoded bytes to the host");
    for (std::size_t i = first; i < end; ++i) {
      if (!queued[i - first]) continue;
      const std::uint8_t* bytes = s.bitstreams.as<std::uint8_t>() + offsets[i - first];
      outputs[i].reserve(offsets[i - first + 1] - offsets[i - first] + s.options.output_headroom);
      outputs[i].assign(bytes, bytes + (offsets[i - first + 1] - offsets[i - first]));
    }
    span.reset();
  }
  return outcomes;
}

}  // namespace gp::io

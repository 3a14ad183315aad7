#include "segment_body/mask_processor.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "core/error.hpp"
#include "core/trace.hpp"
#include "cuda/segment_body/composite.hpp"
#include "cuda/segment_body/postprocess.hpp"
#include "cuda/frames/preprocess.hpp"
#include "infer/cpu_engine.hpp"
#include "infer/cuda_engine.hpp"
#include "infer/model_locator.hpp"
#include "infer/tflite_model.hpp"
#include "frames/frame_packing.hpp"
#include "frames/rgb_image.hpp"
#include "detection/tracker.hpp"
#include "segment_body/pose_smoothing.hpp"
#include "segment_body/pose_stage.hpp"

namespace gp::segbody {
namespace {

// Device memory on the GPU path, 16-byte aligned host memory on the CPU path.
struct Memory {
  DeviceBuffer device;
  std::vector<std::max_align_t> host;
  void* data = nullptr;
  std::size_t bytes = 0;
};

struct Temporal final : TemporalStream {
  Memory state, prev_luma;
  bool first = true;
  detect::ByteTracker people;  // BlazePose variants: the video's people, by their landmarks' boxes
  PoseSmoother smoother;  // their landmarks' filters, per ID
  std::vector<FollowedPerson> followed;  // streaming mode: the last frame's people, for the next
};

// A video frame's people, in frame order: IDs from the tracker (track-faces' ByteTrack on the
// boxes of the landmarks, scored by the detector), then their landmarks smoothed per ID, then in
// streaming mode the next frame's ROIs from the (smoothed) auxiliary landmarks: MediaPipe's video
// mode. Batches of frames run together, so throughput mode detects every frame; the CPU path,
// one frame at a time anyway, does the same as the GPU's in each mode.
void follow_people(Temporal& t, std::vector<PersonPose>& people, double time_s, bool smooth, bool follow) {
  std::vector<detect::TrackerDetection> boxes;
  for (const PersonPose& p : people) boxes.push_back({{p.box[0], p.box[1], p.box[2], p.box[3]}, p.detection_score});
  for (const detect::TrackView& track : t.people.update(boxes).confirmed)
    if (track.detection >= 0) people[std::size_t(track.detection)].id = track.id;
  if (smooth) t.smoother.smooth(people, time_s);
  if (!follow) return;
  t.followed.clear();
  for (const PersonPose& p : people) t.followed.push_back({pose_roi_from_landmarks(p), p.detection_score});
}

Yuv420Planes yuv_planes_at(std::uint8_t* data, int w, int h) {
  Yuv420Planes p;
  const std::size_t cw = chroma_size(w), ch = chroma_size(h);
  p.width = w;
  p.height = h;
  p.planes[0] = data;
  p.pitches[0] = std::size_t(w);
  p.planes[1] = data + std::size_t(w) * h;
  p.pitches[1] = cw;
  p.planes[2] = p.planes[1] + cw * ch;
  p.pitches[2] = cw;
  return p;
}

// The small copy a strong blur works on (composite.hpp): 1/k of the frame, blurred with sigma/k.
int blur_factor(float sigma) { return std::clamp(int(sigma / 3.0f), 1, 8); }

}  // namespace

struct MaskProcessor::Impl {
  Runtime& rt;
  Settings s;
  bool gpu;
  int batch = 1;
  Stream stream;
  std::unique_ptr<infer::CudaEngine> cuda;
  std::unique_ptr<infer::CpuEngine> cpu;
  std::unique_ptr<PoseStage> pose;  // BlazePose variants instead of cuda / cpu
  Memory pose_sink;                 // the canvas-sized RGB tensor preprocess writes beside the luma
  std::vector<float> cpu_input, cpu_output;
  int model_w = 0, model_h = 0;
  PreprocessParams pre;

  struct Slot {
    Memory frame, luma, mask, rgba, background, canvas;
    PinnedBuffer up, down;
  };
  std::vector<Slot> slots;
  Memory scratch, guide, blur_small, blur_out, blur_scratch, background_image;
  gp::frames::RgbImage background_host;

  Impl(Runtime& runtime, const Settings& settings, int batch_size)
      : rt(runtime), s(settings), gpu(runtime.gpu()), batch(gpu ? batch_size : 1) {
    if (gpu) {
      rt.bind_thread();
      stream = rt.make_stream();
    }
    if (s.is_pose())
      init_pose();
    else
      init_selfie();
    slots.resize(std::size_t(batch));
    if (s.background && s.background_kind == "image") {
      try {
        background_host = gp::frames::load_rgb_image(s.background_image);
      } catch (const std::exception& e) {
        throw UsageError(std::string("/output/background/image: ") + e.what());
      }
      if (gpu) {
        ensure(background_image, background_host.pixels.size(), "background image");
        stream.copy_to_device(background_image.data, background_host.pixels.data(), background_host.pixels.size());
        stream.synchronize("background image upload");
      }
    }
  }

  void init_selfie() {
    infer::Model model = infer::load_model(s.model_path, "/model/path");
    if (gpu) {
      infer::CudaEngineOptions options;
      options.precision = s.fp16 ? infer::Precision::fp16 : infer::Precision::fp32;
      cuda = std::make_unique<infer::CudaEngine>(rt, std::move(model), batch, options);
    } else {
      cpu = std::make_unique<infer::CpuEngine>(std::move(model), 1);
    }
    const infer::Shape in = gpu ? cuda->input_shapes().at(0) : cpu->input_shapes().at(0);
    const infer::Shape out = gpu ? cuda->output_shapes().at(0) : cpu->output_shapes().at(0);
    if (in.size() != 4 || in[3] != 3 || out.size() < 3 || out[1] != in[1] || out[2] != in[2] ||
        (out.size() == 4 && out[3] != 1))
      throw UsageError("/model/path: " + s.model_path +
                       " is not a selfie segmentation model (expected an NHWC RGB input and a 1-channel mask of its size)");
    model_h = in[1];
    model_w = in[2];
    if (!gpu) {
      cpu_input.resize(std::size_t(model_w) * model_h * 3);
      cpu_output.resize(std::size_t(model_w) * model_h);
    }
    pre.width = model_w;
    pre.height = model_h;
    pre.mode = s.resize;
    pre.filter = s.filter;
    pre.type = TensorType::f32;  // the engines take float32 (the FP16 engine converts inside its graph)
  }

  // BlazePose: the pose stage's canvas is the postprocess's model mask (the whole frame, stretched);
  // the preprocess still runs at that size for the temporal smoothing's luma.
  void init_pose() {
    pose = std::make_unique<PoseStage>(rt, gpu ? &stream : nullptr, s, batch);
    model_w = model_h = s.pose.canvas;
    pre.width = model_w;
    pre.height = model_h;
    pre.mode = ResizeMode::stretch;
    pre.type = TensorType::f32;
    ensure(pose_sink, std::size_t(model_w) * model_h * 3 * sizeof(float), "pose preprocess sink");
  }

  void ensure(Memory& m, std::size_t bytes, const char* what) {
    bytes = std::max<std::size_t>(bytes, 16);
    if (m.data && m.bytes >= bytes) return;
    if (gpu) {
      m.device.reset();
      m.device = rt.device_alloc(bytes, stream, what);
      m.data = m.device.get();
    } else {
      m.host.assign((bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t), std::max_align_t{});
      m.data = m.host.data();
    }
    m.bytes = bytes;
  }

  void ensure_pinned(PinnedBuffer& b, std::size_t bytes) {
    if (b.get() && b.size() >= bytes) return;
    b.reset();
    b = rt.pinned_alloc(std::max<std::size_t>(bytes, 16));
  }

  ImageView model_view(void* data) const { return packed_view(data, model_w, model_h, 1, PixelType::f32); }

  std::size_t result_bytes(int w, int h, const FrameWants& wants) const {
    std::size_t n = std::size_t(w) * h;
    if (wants.rgba) n += std::size_t(w) * h * 4;
    if (wants.background_rgb) n += std::size_t(w) * h * 3;
    if (wants.background_yuv) n += gp::frames::yuv420_bytes(w, h);
    return n;
  }

  void reserve(const FrameSource& f, const FrameWants& wants) {
    const int w = f.width, h = f.height;
    const std::size_t pixels = std::size_t(w) * h;
    const std::size_t post = postprocess_scratch_bytes(w, h, s.post);
    ensure(scratch, post, "postprocess scratch");
    if (s.post.refine && f.format != FrameFormat::yuv420) ensure(guide, pixels, "guide luma");
    if (s.background && s.background_kind == "blur") {
      const int k = blur_factor(s.blur_sigma), sw = std::max(1, w / k), sh = std::max(1, h / k);
      ensure(blur_small, std::size_t(sw) * sh * 3, "blur copy");
      ensure(blur_out, std::size_t(sw) * sh * 3, "blurred background");
      ensure(blur_scratch, gaussian_blur_scratch_bytes(sw, sh), "blur scratch");
    }
    for (Slot& slot : slots) {
      ensure(slot.luma, std::size_t(model_w) * model_h * 4, "model luma");
      if (pose) ensure(slot.canvas, std::size_t(model_w) * model_h * 4, "pose canvas");
      ensure(slot.mask, pixels, "mask");
      if (wants.rgba) ensure(slot.rgba, pixels * 4, "rgba");
      if (wants.background_rgb) ensure(slot.background, pixels * 3, "background");
      if (wants.background_yuv) ensure(slot.background, gp::frames::yuv420_bytes(w, h), "background");
      if (gpu) {
        ensure(slot.frame, gp::frames::frame_bytes(f), "frame");
        ensure_pinned(slot.up, gp::frames::frame_bytes(f));
        ensure_pinned(slot.down, result_bytes(w, h, wants));
      }
    }
  }

  Background background_for(const FrameSource& frame) {
    Background bg;
    if (s.background_kind == "colour") {
      bg.kind = Background::Kind::colour;
      std::copy(s.background_colour, s.background_colour + 3, bg.colour);
    } else if (s.background_kind == "image") {
      bg.kind = Background::Kind::image;
      bg.image = packed_view(gpu ? background_image.data : background_host.pixels.data(), background_host.width,
                             background_host.height, 3, PixelType::u8);
    } else {
      const int k = blur_factor(s.blur_sigma), sw = std::max(1, frame.width / k), sh = std::max(1, frame.height / k);
      const ImageView small = packed_view(blur_small.data, sw, sh, 3, PixelType::u8);
      const ImageView blurred = packed_view(blur_out.data, sw, sh, 3, PixelType::u8);
      const FrameSource small_frame =
          packed_frame(FrameFormat::rgb, static_cast<const std::uint8_t*>(small.data), small.pitch, sw, sh);
      if (gpu) {
        resize_frame_gpu(frame, small, stream.get());
        gaussian_blur_gpu(small_frame, s.blur_sigma / k, blurred, blur_scratch.data, blur_scratch.bytes, stream.get());
      } else {
        resize_frame_cpu(frame, small);
        gaussian_blur_cpu(small_frame, s.blur_sigma / k, blurred, blur_scratch.data, blur_scratch.bytes);
      }
      bg.kind = Background::Kind::image;
      bg.image = blurred;
    }
    return bg;
  }

  // Postprocess and composites of one frame whose model mask is ready.
  void finish_frame(const FrameSource& frame, Slot& slot, const Rect& content, const float* model_mask,
                    Temporal* temporal, const FrameWants& wants) {
    const int w = frame.width, h = frame.height;
    PostprocessParams p = s.post;
    p.temporal = p.temporal && temporal;
    ImageView guide_view;
    if (p.refine) {
      if (frame.format == FrameFormat::yuv420) {
        guide_view = ImageView{const_cast<std::uint8_t*>(frame.planes[0]), w, h, 1, PixelType::u8, frame.pitches[0]};
      } else {
        guide_view = packed_view(guide.data, w, h, 1, PixelType::u8);
        gpu ? frame_luma_gpu(frame, guide_view, stream.get()) : frame_luma_cpu(frame, guide_view);
      }
    }
    TemporalState state;
    if (p.temporal) {
      state.state = model_view(temporal->state.data);
      state.prev_luma = model_view(temporal->prev_luma.data);
    }
    const ImageView mask = packed_view(slot.mask.data, w, h, 1, PixelType::u8);
    const ImageView model = model_view(const_cast<float*>(model_mask));
    const ImageView luma = model_view(slot.luma.data);
    const bool first = temporal ? temporal->first : true;
    {
      ScopedStage span("postprocess");
      if (gpu)
        postprocess_gpu(model, luma, state, first, content, guide_view, p, mask, scratch.data, scratch.bytes, stream.get());
      else
        postprocess_cpu(model, luma, state, first, content, guide_view, p, mask, scratch.data, scratch.bytes);
    }
    if (temporal) temporal->first = false;
    ScopedStage span("composite");
    if (wants.rgba) {
      const ImageView rgba = packed_view(slot.rgba.data, w, h, 4, PixelType::u8);
      gpu ? composite_gpu(frame, mask, Background{}, rgba, stream.get()) : composite_cpu(frame, mask, Background{}, rgba);
    }
    if (wants.background_rgb || wants.background_yuv) {
      const Background bg = background_for(frame);
      if (wants.background_rgb) {
        const ImageView rgb = packed_view(slot.background.data, w, h, 3, PixelType::u8);
        gpu ? composite_gpu(frame, mask, bg, rgb, stream.get()) : composite_cpu(frame, mask, bg, rgb);
      } else {
        const Yuv420Planes yuv = yuv_planes_at(static_cast<std::uint8_t*>(slot.background.data), w, h);
        // The source's matrix and range where it has them (video frames), BT.601 limited otherwise.
        if (gpu)
          composite_yuv420_gpu(frame, mask, bg, yuv, frame.matrix, frame.full_range, stream.get());
        else
          composite_yuv420_cpu(frame, mask, bg, yuv, frame.matrix, frame.full_range);
      }
    }
  }

  void copy_results(const Slot& slot, const std::uint8_t* src, int w, int h, const FrameWants& wants, FrameResult& r) {
    r.width = w;
    r.height = h;
    const std::size_t pixels = std::size_t(w) * h;
    auto take = [&](std::vector<std::uint8_t>& dst, std::size_t bytes) {
      dst.assign(src, src + bytes);
      src += bytes;
    };
    take(r.mask, pixels);
    if (wants.rgba) take(r.rgba, pixels * 4);
    else r.rgba.clear();
    if (wants.background_rgb) take(r.background, pixels * 3);
    else if (wants.background_yuv) take(r.background, gp::frames::yuv420_bytes(w, h));
    else r.background.clear();
  }

  void run_cpu(const std::vector<FrameSource>& frames, Temporal* temporal, const std::vector<double>& times_s,
               const FrameWants& wants, std::vector<FrameResult>& results) {
    Slot& slot = slots[0];
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const FrameSource& f = frames[i];
      reserve(f, wants);
      Rect content;
      const float* model_mask = cpu_output.data();
      {
        ScopedStage span("preprocess");
        const ImageView luma = model_view(slot.luma.data);
        content = preprocess_cpu(f, pre, pose ? pose_sink.data : cpu_input.data(), 0, &luma);
      }
      if (pose) {
        std::vector<std::vector<PersonPose>> people;
        const bool follow = temporal && s.streaming;
        pose->run({f}, {model_view(slot.canvas.data)}, people, follow ? &temporal->followed : nullptr);
        results[i].people = std::move(people[0]);
        if (temporal) follow_people(*temporal, results[i].people, times_s.at(i), s.pose.smooth_landmarks, follow);
        model_mask = static_cast<const float*>(slot.canvas.data);
      } else {
        ScopedStage span("model");
        cpu->run({cpu_input.data()}, {cpu_output.data()});
      }
      finish_frame(f, slot, content, model_mask, temporal, wants);
      // The results live in the slot's host memory: copy them out like the GPU path's download.
      FrameResult& r = results[i];
      r.width = f.width;
      r.height = f.height;
      const std::size_t pixels = std::size_t(f.width) * f.height;
      const auto* mask = static_cast<const std::uint8_t*>(slot.mask.data);
      r.mask.assign(mask, mask + pixels);
      const auto* rgba = static_cast<const std::uint8_t*>(slot.rgba.data);
      if (wants.rgba) r.rgba.assign(rgba, rgba + pixels * 4);
      const auto* bg = static_cast<const std::uint8_t*>(slot.background.data);
      if (wants.background_rgb) r.background.assign(bg, bg + pixels * 3);
      if (wants.background_yuv) r.background.assign(bg, bg + gp::frames::yuv420_bytes(f.width, f.height));
    }
  }

  // The engine's first run loads its kernels and its second captures the CUDA graph (0.16 s for
  // selfie segmentation on an H100): done on zeros before the first frames, while the decoder
  // starts, instead of inside the first batch that the encoder waits for.
  void warm_up() {
    if (!gpu || warmed) return;
    if (pose) {
      pose->warm_up();
      warmed = true;
      return;
    }
    ScopedStage span("model warm-up");
    const infer::Shape in = cuda->input_shapes().at(0);
    stream.memset(cuda->input_device(0), 0, std::size_t(infer::element_count(in)) * sizeof(float));
    float* out = const_cast<float*>(cuda->output_device(0));
    for (int run = 0; run < 2; ++run) cuda->run({cuda->input_device(0)}, {out}, stream);
    stream.synchronize("segment-body model warm-up");
    warmed = true;
  }
  bool warmed = false;

  void run_gpu(const std::vector<FrameSource>& frames, Temporal* temporal, const std::vector<double>& times_s,
               const FrameWants& wants, std::vector<FrameResult>& results) {
    const std::size_t n = frames.size();
    std::vector<FrameSource> device_frames(n);
    std::vector<Rect> content(n);
    for (std::size_t i = 0; i < n; ++i) reserve(frames[i], wants);
    {
      ScopedStage span("upload+preprocess");
      for (std::size_t i = 0; i < n; ++i) {
        Slot& slot = slots[i];
        auto* staged = slot.up.as<std::uint8_t>();
        gp::frames::pack_frame(frames[i], staged);
        stream.copy_to_device(slot.frame.data, staged, gp::frames::frame_bytes(frames[i]));
        device_frames[i] = gp::frames::frame_at(frames[i], static_cast<std::uint8_t*>(slot.frame.data));
        const ImageView luma = model_view(slot.luma.data);
        if (pose)
          content[i] = preprocess_gpu(device_frames[i], pre, pose_sink.data, 0, &luma, stream.get());
        else
          content[i] = preprocess_gpu(device_frames[i], pre, cuda->input_device(0), int(i), &luma, stream.get());
      }
    }
    std::vector<const float*> model_masks(n);
    std::vector<std::vector<PersonPose>> people(n);
    if (pose) {
      std::vector<ImageView> canvases(n);
      for (std::size_t i = 0; i < n; ++i) {
        canvases[i] = model_view(slots[i].canvas.data);
        model_masks[i] = static_cast<const float*>(slots[i].canvas.data);
      }
      const bool follow = temporal && s.streaming && n == 1;
      pose->run(device_frames, canvases, people, follow ? &temporal->followed : nullptr);
    } else {
      ScopedStage span("model");
      float* model_out = const_cast<float*>(cuda->output_device(0));
      cuda->run({cuda->input_device(0)}, {model_out}, stream);
      for (std::size_t i = 0; i < n; ++i) model_masks[i] = model_out + std::size_t(model_w) * model_h * i;
    }
    for (std::size_t i = 0; i < n; ++i)
      finish_frame(device_frames[i], slots[i], content[i], model_masks[i], temporal, wants);
    {
      ScopedStage span("download");
      for (std::size_t i = 0; i < n; ++i) {
        Slot& slot = slots[i];
        const int w = frames[i].width, h = frames[i].height;
        const std::size_t pixels = std::size_t(w) * h;
        auto* dst = slot.down.as<std::uint8_t>();
        stream.copy_to_host(dst, slot.mask.data, pixels);
        dst += pixels;
        if (wants.rgba) stream.copy_to_host(dst, slot.rgba.data, pixels * 4), dst += pixels * 4;
        if (wants.background_rgb) stream.copy_to_host(dst, slot.background.data, pixels * 3);
        if (wants.background_yuv) stream.copy_to_host(dst, slot.background.data, gp::frames::yuv420_bytes(w, h));
      }
    }
    {
      ScopedStage span("gpu wait");
      stream.synchronize("segment-body batch");
    }
    for (std::size_t i = 0; i < n; ++i) {
      copy_results(slots[i], slots[i].down.as<std::uint8_t>(), frames[i].width, frames[i].height, wants, results[i]);
      results[i].people = std::move(people[i]);
      if (temporal && pose)
        follow_people(*temporal, results[i].people, times_s.at(i), s.pose.smooth_landmarks, s.streaming && n == 1);
    }
  }
};

MaskProcessor::MaskProcessor(Runtime& runtime, const Settings& settings, int batch)
    : impl_(std::make_unique<Impl>(runtime, settings, batch)) {}
MaskProcessor::~MaskProcessor() {
  if (impl_ && impl_->gpu) {
    try {
      impl_->stream.synchronize("segment-body teardown");
    } catch (...) {
    }
  }
}

bool MaskProcessor::gpu() const { return impl_->gpu; }
int MaskProcessor::batch() const { return impl_->batch; }
int MaskProcessor::model_width() const { return impl_->model_w; }
int MaskProcessor::model_height() const { return impl_->model_h; }

void MaskProcessor::warm_up() { impl_->warm_up(); }

void MaskProcessor::reserve(int width, int height, const FrameWants& wants) {
  FrameSource f;
  f.format = FrameFormat::yuv420;
  f.width = width;
  f.height = height;
  impl_->reserve(f, wants);
}

std::unique_ptr<TemporalStream> MaskProcessor::new_stream() {
  auto t = std::make_unique<Temporal>();
  const std::size_t bytes = std::size_t(impl_->model_w) * impl_->model_h * 4;
  impl_->ensure(t->state, bytes, "temporal state");
  impl_->ensure(t->prev_luma, bytes, "temporal luma");
  return t;
}

void MaskProcessor::run(const std::vector<FrameSource>& frames, TemporalStream* temporal, const FrameWants& wants,
                        std::vector<FrameResult>& results, const std::vector<double>& times_s) {
  if (frames.size() > std::size_t(impl_->batch) && impl_->gpu)
    throw Error("segment-body: " + std::to_string(frames.size()) + " frames for a batch of " +
                std::to_string(impl_->batch));
  results.resize(frames.size());
  if (temporal && times_s.size() != frames.size())
    throw Error("segment-body: " + std::to_string(times_s.size()) + " frame times for " + std::to_string(frames.size()) +
                " video frames");
  auto* t = static_cast<Temporal*>(temporal);
  if (impl_->gpu)
    impl_->run_gpu(frames, t, times_s, wants, results);
  else
    impl_->run_cpu(frames, t, times_s, wants, results);
}

}  // namespace gp::segbody

#include "track_faces/face_processor.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/trace.hpp"
#include "cuda/detection/detection_gpu.hpp"
#include "cuda/detection/roi_warp.hpp"
#include "infer/cpu_engine.hpp"
#include "infer/cuda_engine.hpp"
#include "infer/engine_ladder.hpp"
#include "cuda/infer/op_geometry.hpp"
#include "infer/model_locator.hpp"
#include "infer/tflite_model.hpp"
#include "frames/frame_packing.hpp"

namespace gp::track {

using namespace gp::detect;  // the shared detection module
namespace {

constexpr int kLandmarkInput = 192;          // face_landmark.tflite: 1 x 192 x 192 x 3, values in [0, 1]
constexpr int kFacesReservedPerFrame = 8;  // landmark buffers made up front; more faces grow them

using infer::load_model;

// face_landmark.tflite's outputs, found by size: 468 x 3 landmarks and the face flag (a logit).
struct LandmarkOutputs {
  int landmarks = -1, flag = -1;
};

LandmarkOutputs landmark_outputs(const std::vector<infer::Shape>& inputs, const std::vector<infer::Shape>& outputs,
                                 const std::string& path) {
  LandmarkOutputs o;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto per_item = infer::element_count(outputs[i]) / outputs[i][0];
    if (per_item == kFaceLandmarks * 3) o.landmarks = int(i);
    if (per_item == 1 && o.flag < 0) o.flag = int(i);
  }
  const bool input_ok = inputs.size() == 1 && inputs[0].size() == 4 && inputs[0][1] == kLandmarkInput &&
                        inputs[0][2] == kLandmarkInput && inputs[0][3] == 3;
  if (!input_ok || o.landmarks < 0 || o.flag < 0)
    throw UsageError("landmark model: " + path + " is not MediaPipe's face_landmark.tflite (a 192x192 RGB input, 468 x 3 landmarks and a face flag)");
  return o;
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

using infer::EngineLadder;
using infer::output_pointers;

}  // namespace

Roi roi_from_face(const FrameFace& face, float scale) {
  const float rotation = rotation_from_points(face.keypoints[0].x, face.keypoints[0].y, face.keypoints[1].x, face.keypoints[1].y);
  return square_roi(0.5f * (face.box.x0 + face.box.x1), 0.5f * (face.box.y0 + face.box.y1), face.box.x1 - face.box.x0,
                    face.box.y1 - face.box.y0, rotation, scale);
}

struct FaceProcessor::Impl {
  Runtime& rt;
  FaceProcessorOptions o;
  bool gpu;
  Stream stream;
  EngineLadder det_gpu, mesh_gpu;
  std::unique_ptr<infer::CpuEngine> det_cpu, mesh_cpu;
  int det_batch = 1, mesh_batch = 1;
  std::size_t det_boxes_per_item = 0, det_scores_per_item = 0;
  LandmarkOutputs mesh_out;
  frames::PreprocessParams det_pre;
  RoiWarpParams warp;
  bool warmed = false;

  // The step's frames: host views, and on the GPU their packed copies on the device.
  std::vector<frames::FrameSource> host_frames, frames;
  PinnedBuffer frames_up;
  DeviceBuffer frames_device;
  std::size_t frames_capacity = 0;

  // GPU detection: anchors uploaded once, decoding and suppression on the device, the frames'
  // detections (17 floats each, up to det_max_out a frame) and counts back through pinned memory.
  DeviceBuffer anchors_device, det_scratch, det_records;
  int det_max_out = 0;
  DecodeOptions det_decode;
  NmsOptions det_nms;
  // GPU results come back through pinned memory; the CPU path's engines write host vectors.
  PinnedBuffer det_down, mesh_down;
  DeviceBuffer rois_device;
  PinnedBuffer rois_up;
  std::vector<float> cpu_input, cpu_boxes, cpu_scores, cpu_mesh_input;
  std::vector<std::vector<float>> cpu_mesh_outputs;

  Impl(Runtime& runtime, const FaceProcessorOptions& options)
      : rt(runtime), o(options), gpu(runtime.gpu()) {
    infer::Model det_model = load_model(o.detector_path, "face detector");
    const int size = detector_input_size(o.detector.model);
    det_pre = detector_preprocess(o.detector.model, frames::TensorType::f32, o.detector.filter);
    warp.size = kLandmarkInput;
    warp.scale = 1.0f;
    warp.offset = 0.0f;
    warp.type = frames::TensorType::f32;
    if (gpu) {
      rt.bind_thread();
      stream = rt.make_stream();
      infer::CudaEngineOptions eo;
      eo.precision = o.fp16 ? infer::Precision::fp16 : infer::Precision::fp32;
      det_batch = std::max(1, o.max_frames);
      det_gpu = EngineLadder(rt, det_model, det_batch, eo);
      if (!o.landmark_path.empty()) {
        mesh_batch = std::clamp(o.landmark_batch, 1, 64);
        mesh_gpu = EngineLadder(rt, load_model(o.landmark_path, "landmark model"), mesh_batch, eo);
        mesh_out = landmark_outputs(mesh_gpu.largest().input_shapes(), mesh_gpu.largest().output_shapes(), o.landmark_path);
      }
    } else {
      det_cpu = std::make_unique<infer::CpuEngine>(std::move(det_model), 1);
      if (!o.landmark_path.empty()) {
        mesh_cpu = std::make_unique<infer::CpuEngine>(load_model(o.landmark_path, "landmark model"), 1);
        mesh_out = landmark_outputs(mesh_cpu->input_shapes(), mesh_cpu->output_shapes(), o.landmark_path);
        cpu_mesh_input.resize(std::size_t(kLandmarkInput) * kLandmarkInput * 3);
        for (const infer::Shape& s : mesh_cpu->output_shapes()) cpu_mesh_outputs.emplace_back(std::size_t(infer::element_count(s)));
      }
    }
    const auto in = gpu ? det_gpu.largest().input_shapes() : det_cpu->input_shapes();
    const auto out = gpu ? det_gpu.largest().output_shapes() : det_cpu->output_shapes();
    const bool fits = in.size() == 1 && in[0].size() == 4 && in[0][1] == size && in[0][2] == size && in[0][3] == 3 &&
                      out.size() == 2 && infer::element_count(out[0]) == 16 * infer::element_count(out[1]);
    if (!fits)
      throw UsageError("face detector: " + o.detector_path + " is not a BlazeFace " + std::to_string(size) + "x" +
                       std::to_string(size) + " model (" + detector_model_file(o.detector.model) + ")");
    det_boxes_per_item = std::size_t(infer::element_count(out[0]) / out[0][0]);
    det_scores_per_item = std::size_t(infer::element_count(out[1]) / out[1][0]);
    if (det_scores_per_item != detector_anchors(o.detector.model).size())
      throw UsageError("face detector: " + o.detector_path + " has " + std::to_string(det_scores_per_item) + " boxes, " +
                       detector_model_file(o.detector.model) + " " + std::to_string(detector_anchors(o.detector.model).size()));
    if (gpu) {
      set_up_gpu_detection();
    } else {
      cpu_input.resize(std::size_t(infer::element_count(in[0])));
      cpu_boxes.resize(det_boxes_per_item);
      cpu_scores.resize(det_scores_per_item);
    }
  }

  void set_up_gpu_detection() {
    det_decode = detector_decode_options(o.detector);
    det_nms = detector_nms_options(o.detector);
    det_max_out = o.detector.max_faces > 0 ? o.detector.max_faces : 64;
    const std::vector<Anchor>& anchors = detector_anchors(o.detector.model);
    std::vector<float4> packed;
    for (const Anchor& a : anchors) packed.push_back(float4{a.x_center, a.y_center, a.w, a.h});
    anchors_device = rt.device_alloc(packed.size() * sizeof(float4), stream, "detector anchors");
    stream.copy_to_device(anchors_device.get(), packed.data(), packed.size() * sizeof(float4));
    det_scratch = rt.device_alloc(detection_scratch_bytes(det_batch, int(anchors.size())), stream, "detection scratch");
    const std::size_t record_bytes = std::size_t(det_batch) * det_max_out * kDetectionFloats * sizeof(float);
    det_records = rt.device_alloc(record_bytes + std::size_t(det_batch) * sizeof(int), stream, "detections");
    det_down = rt.pinned_alloc(record_bytes + std::size_t(det_batch) * sizeof(int));
    stream.synchronize("track-faces detector set-up");  // the anchors' host copy goes out of scope
  }

  // The landmark step's ROI and result buffers for `faces` faces (grown to twice that). Pinned
  // allocations are slow (about 0.1 s each on the H100 with 64 cameras starting), so warm_up makes
  // them for a generous count before the clock starts.
  void reserve_faces(std::size_t faces) {
    const std::size_t roi_bytes = faces * sizeof(Roi);
    if (!rois_up.get() || rois_up.size() < roi_bytes) {
      rois_up.reset();
      rois_device.reset();
      rois_up = rt.pinned_alloc(roi_bytes * 2);
      rois_device = rt.device_alloc(roi_bytes * 2, stream, "face ROIs");
    }
    const std::size_t result_bytes = faces * (std::size_t(kFaceLandmarks) * 3 + 1) * sizeof(float);
    if (!mesh_down.get() || mesh_down.size() < result_bytes) {
      mesh_down.reset();
      mesh_down = rt.pinned_alloc(result_bytes * 2);
    }
  }

  void warm_up() {
    if (!gpu || warmed) return;
    ScopedStage span("model warm-up");
    if (mesh_gpu) reserve_faces(std::size_t(std::max(1, o.max_frames)) * kFacesReservedPerFrame);
    for (const EngineLadder* ladder : {&det_gpu, &mesh_gpu})
      for (const auto& e : ladder->all()) {
        stream.memset(e->input_device(0), 0, std::size_t(infer::element_count(e->input_shapes().at(0))) * sizeof(float));
        for (int run = 0; run < 2; ++run) e->run({e->input_device(0)}, output_pointers(*e), stream);
      }
    stream.synchronize("track-faces model warm-up");
    warm_up_step();
    warmed = true;
  }

  // One step on grey 720p frames: launches every kernel of a step once (CUDA loads a kernel's
  // module at its first launch, under a lock all workers share) and grows the frame buffer, so
  // neither happens in the first timed steps.
  void warm_up_step() {
    constexpr int kWidth = 1280, kHeight = 720;
    std::vector<std::uint8_t> grey(frames::yuv420_bytes(kWidth, kHeight), 128);
    const int cw = frames::chroma_size(kWidth), ch = frames::chroma_size(kHeight);
    std::uint8_t* u = grey.data() + std::size_t(kWidth) * kHeight;
    const frames::FrameSource frame = frames::yuv420_frame(grey.data(), kWidth, u, std::size_t(cw),
                                                             u + std::size_t(cw) * ch, std::size_t(cw), kWidth, kHeight);
    const std::vector<frames::FrameSource> step(std::size_t(std::max(1, o.max_frames)), frame);
    set_frames(step, true);  // the copies finish within detect()'s synchronisation, before `grey` goes
    detect(std::vector<bool>(step.size(), true));
    std::vector<std::vector<Roi>> rois(step.size());
    rois[0].push_back(square_roi(0.5f * kWidth, 0.5f * kHeight, 200, 240, 0.0f, 1.5f));
    landmarks(rois);
    stream.synchronize("track-faces warm-up step");
  }

  void set_frames(const std::vector<frames::FrameSource>& in, bool packed_pinned) {
    if (int(in.size()) > std::max(1, o.max_frames))
      throw Error("track-faces: " + std::to_string(in.size()) + " frames in one step, the processor takes " +
                  std::to_string(o.max_frames));
    host_frames = in;
    if (!gpu) {
      frames = in;
      return;
    }
    ScopedStage span("upload");
    std::size_t total = 0;
    for (const auto& f : in) total += (frames::frame_bytes(f) + 255) / 256 * 256;
    if (total > frames_capacity) {
      frames_device.reset();
      frames_capacity = total + total / 4;
      frames_device = rt.device_alloc(frames_capacity, stream, "track-faces frames");
    }
    if (!packed_pinned && frames_up.size() < total) {
      frames_up.reset();
      frames_up = rt.pinned_alloc(frames_capacity);
    }
    frames.resize(in.size());
    std::size_t offset = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      auto* device = static_cast<std::uint8_t*>(frames_device.get()) + offset;
      const std::size_t bytes = frames::frame_bytes(in[i]);
      if (packed_pinned) {
        stream.copy_to_device(device, in[i].planes[0], bytes);
      } else {
        frames::pack_frame(in[i], frames_up.as<std::uint8_t>() + offset);
      }
      frames[i] = frames::frame_at(in[i], device);
      offset += (bytes + 255) / 256 * 256;
    }
    if (!packed_pinned) stream.copy_to_device(frames_device.get(), frames_up.get(), offset);
  }

  std::vector<std::vector<FrameFace>> detect(const std::vector<bool>& wanted) {
    std::vector<std::vector<FrameFace>> faces(frames.size());
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < frames.size() && i < wanted.size(); ++i)
      if (wanted[i]) which.push_back(i);
    if (which.empty()) return faces;
    ScopedStage span("detect");
    std::vector<frames::Rect> content(which.size());
    if (!gpu) {
      for (std::size_t k = 0; k < which.size(); ++k) {
        const frames::FrameSource& f = frames[which[k]];
        content[k] = frames::preprocess_cpu(f, det_pre, cpu_input.data(), 0, nullptr);
        det_cpu->run({cpu_input.data()}, {cpu_boxes.data(), cpu_scores.data()});
        faces[which[k]] = faces_from_outputs(cpu_boxes.data(), cpu_scores.data(), o.detector, content[k], f.width, f.height);
      }
      return faces;
    }
    const int n = int(which.size());
    infer::CudaEngine& engine = det_gpu.fitting(n);
    for (std::size_t k = 0; k < which.size(); ++k)
      content[k] = frames::preprocess_gpu(frames[which[k]], det_pre, engine.input_device(0), int(k), nullptr, stream.get());
    float* boxes = const_cast<float*>(engine.output_device(0));
    float* scores = const_cast<float*>(engine.output_device(1));
    engine.run({engine.input_device(0)}, {boxes, scores}, stream);
    float* records = static_cast<float*>(det_records.get());
    int* counts = reinterpret_cast<int*>(records + std::size_t(det_batch) * det_max_out * kDetectionFloats);
    decode_detections_gpu(boxes, scores, static_cast<const float4*>(anchors_device.get()), n, det_decode, det_nms,
                     det_max_out, det_scratch.get(), det_scratch.size(), records, counts, stream.get());
    const std::size_t record_bytes = std::size_t(n) * det_max_out * kDetectionFloats * sizeof(float);
    float* host_records = det_down.as<float>();
    int* host_counts = reinterpret_cast<int*>(host_records + std::size_t(det_batch) * det_max_out * kDetectionFloats);
    stream.copy_to_host(host_records, records, record_bytes);
    stream.copy_to_host(host_counts, counts, std::size_t(n) * sizeof(int));
    stream.synchronize("track-faces detection");
    for (int k = 0; k < n; ++k) {
      const frames::FrameSource& f = host_frames[which[std::size_t(k)]];
      for (int i = 0; i < host_counts[k]; ++i) {
        const float* r = host_records + (std::size_t(k) * det_max_out + std::size_t(i)) * kDetectionFloats;
        detmath::Record record;
        std::copy(r, r + kDetectionFloats, record.v);
        faces[which[std::size_t(k)]].push_back(
            face_in_frame(detmath::to_detection(record), o.detector.model, content[std::size_t(k)], f.width, f.height));
      }
    }
    return faces;
  }

  // Landmarks of one model output item: project into the frame, sigmoid the flag.
  static FaceLandmarks landmarks_of(const Roi& roi, const float* mesh, float flag_logit) {
    FaceLandmarks l;
    l.roi = roi;
    l.score = sigmoid(flag_logit);
    l.xyz.resize(std::size_t(kFaceLandmarks) * 3);
    project_landmarks(roi, kLandmarkInput, mesh, kFaceLandmarks, l.xyz.data());
    return l;
  }

  std::vector<std::vector<FaceLandmarks>> landmarks(const std::vector<std::vector<Roi>>& rois) {
    std::vector<std::vector<FaceLandmarks>> out(rois.size());
    if (!mesh_gpu && !mesh_cpu) return out;
    struct Job {
      std::size_t frame;
      Roi roi;
    };
    std::vector<Job> jobs;
    for (std::size_t f = 0; f < rois.size() && f < frames.size(); ++f)
      for (const Roi& r : rois[f]) jobs.push_back({f, r});
    if (jobs.empty()) return out;
    ScopedStage span("landmarks");
    const std::size_t mesh_values = std::size_t(kFaceLandmarks) * 3;
    if (!gpu) {
      for (const Job& j : jobs) {
        warp_rois_cpu(frames[j.frame], &j.roi, 1, warp, cpu_mesh_input.data());
        std::vector<float*> outs;
        for (auto& v : cpu_mesh_outputs) outs.push_back(v.data());
        mesh_cpu->run({cpu_mesh_input.data()}, outs);
        out[j.frame].push_back(landmarks_of(j.roi, cpu_mesh_outputs[std::size_t(mesh_out.landmarks)].data(),
                                            cpu_mesh_outputs[std::size_t(mesh_out.flag)][0]));
      }
      return out;
    }
    // ROIs up once per step; each engine run takes up to mesh_batch faces, frame by frame.
    const std::size_t roi_bytes = jobs.size() * sizeof(Roi);
    reserve_faces(jobs.size());
    Roi* staged = rois_up.as<Roi>();
    for (std::size_t k = 0; k < jobs.size(); ++k) staged[k] = jobs[k].roi;
    stream.copy_to_device(rois_device.get(), staged, roi_bytes);
    const Roi* d_rois = static_cast<const Roi*>(rois_device.get());
    float* host_mesh = mesh_down.as<float>();
    float* host_flags = host_mesh + jobs.size() * mesh_values;
    const std::size_t item_bytes = std::size_t(kLandmarkInput) * kLandmarkInput * 3 * sizeof(float);
    for (std::size_t first = 0; first < jobs.size(); first += std::size_t(mesh_batch)) {
      const std::size_t last = std::min(jobs.size(), first + std::size_t(mesh_batch));
      infer::CudaEngine& engine = mesh_gpu.fitting(int(last - first));
      // Consecutive jobs of one frame go in one launch.
      for (std::size_t k = first; k < last;) {
        std::size_t end = k + 1;
        while (end < last && jobs[end].frame == jobs[k].frame) ++end;
        warp_rois_gpu(frames[jobs[k].frame], d_rois + k, int(end - k), warp,
                      static_cast<std::uint8_t*>(static_cast<void*>(engine.input_device(0))) + (k - first) * item_bytes,
                      stream.get());
        k = end;
      }
      const std::vector<float*> outs = output_pointers(engine);
      engine.run({engine.input_device(0)}, outs, stream);
      stream.copy_to_host(host_mesh + first * mesh_values, outs[std::size_t(mesh_out.landmarks)],
                          (last - first) * mesh_values * sizeof(float));
      stream.copy_to_host(host_flags + first, outs[std::size_t(mesh_out.flag)], (last - first) * sizeof(float));
    }
    stream.synchronize("track-faces landmarks");
    for (std::size_t k = 0; k < jobs.size(); ++k)
      out[jobs[k].frame].push_back(landmarks_of(jobs[k].roi, host_mesh + k * mesh_values, host_flags[k]));
    return out;
  }
};

FaceProcessor::FaceProcessor(Runtime& runtime, const FaceProcessorOptions& options)
    : impl_(std::make_unique<Impl>(runtime, options)) {}
FaceProcessor::~FaceProcessor() = default;
bool FaceProcessor::gpu() const { return impl_->gpu; }
bool FaceProcessor::has_landmarks() const { return bool(impl_->mesh_gpu) || impl_->mesh_cpu; }
void FaceProcessor::warm_up() { impl_->warm_up(); }
void FaceProcessor::set_frames(const std::vector<frames::FrameSource>& frames, bool packed_pinned) {
  impl_->set_frames(frames, packed_pinned);
}
void FaceProcessor::wait_uploads() {
  if (impl_->gpu) impl_->stream.synchronize("track-faces frame upload");
}
std::vector<std::vector<FrameFace>> FaceProcessor::detect(const std::vector<bool>& detect) { return impl_->detect(detect); }
std::vector<std::vector<FaceLandmarks>> FaceProcessor::landmarks(const std::vector<std::vector<Roi>>& rois) {
  return impl_->landmarks(rois);
}

}  // namespace gp::track

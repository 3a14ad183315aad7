#include "segment_body/pose_stage.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/trace.hpp"
#include "cuda/detection/roi_warp.hpp"
#include "cuda/frames/preprocess.hpp"
#include "cuda/segment_body/person_masks.hpp"
#include "detection/anchors.hpp"
#include "detection/detection_decode.hpp"
#include "infer/cpu_engine.hpp"
#include "infer/engine_ladder.hpp"
#include "infer/model_locator.hpp"
#include "infer/tflite_model.hpp"

namespace gp::segbody {
namespace {

constexpr std::size_t kMaskValues = std::size_t(kPoseInput) * kPoseInput;
constexpr std::size_t kInputValues = kMaskValues * 3;
constexpr std::size_t kLandmarkValues = kPoseModelLandmarks * 5;
constexpr std::size_t kHeatmapValues = std::size_t(kPoseHeatmap) * kPoseHeatmap * kPoseModelLandmarks;
constexpr std::size_t kWorldValues = kPoseModelLandmarks * 3;
// What the host decodes of one person: landmarks, heatmap, world landmarks, flag.
constexpr std::size_t kPersonValues = kLandmarkValues + kHeatmapValues + kWorldValues + 1;
constexpr int kLandmarkBatch = 16;  // largest landmark engine (GPU)
constexpr int kDetectorBatch = 32;  // largest detector engine (GPU): views of frames

using infer::load_model;

std::vector<long long> per_item_elements(const std::vector<infer::Shape>& shapes) {
  std::vector<long long> out;
  for (const infer::Shape& s : shapes) out.push_back(infer::element_count(s) / std::max<std::int64_t>(1, s.at(0)));
  return out;
}

// The detector's two outputs: boxes (2254 x 12) and scores (2254).
struct DetectorOutputs {
  int boxes = -1, scores = -1;
};

DetectorOutputs detector_outputs(const std::vector<infer::Shape>& inputs, const std::vector<infer::Shape>& outputs,
                                 const detect::DecodeOptions& o, const std::string& path) {
  DetectorOutputs d;
  const std::vector<long long> n = per_item_elements(outputs);
  for (int i = 0; i < int(n.size()); ++i) {
    if (n[std::size_t(i)] == (long long)o.num_boxes * o.num_coords) d.boxes = i;
    if (n[std::size_t(i)] == o.num_boxes) d.scores = i;
  }
  const bool input_ok = inputs.size() == 1 && inputs[0].size() == 4 && inputs[0][1] == kPoseDetectorInput &&
                        inputs[0][2] == kPoseDetectorInput && inputs[0][3] == 3;
  if (!input_ok || d.boxes < 0 || d.scores < 0)
    throw UsageError("/pose/detector_path: " + path +
                     " is not BlazePose's person detector (a 224x224 RGB input, 2254 boxes of 12 values and their scores)");
  return d;
}

// A detection in the letterboxed detector input -> normalised to the view it was detected in
// (DetectionLetterboxRemovalCalculator).
detect::Detection remove_letterbox(detect::Detection d, const frames::Rect& content) {
  const float in = float(kPoseDetectorInput);
  auto fx = [&](float x) { return (x * in - float(content.x)) / float(content.width); };
  auto fy = [&](float y) { return (y * in - float(content.y)) / float(content.height); };
  d.xmin = fx(d.xmin);
  d.ymin = fy(d.ymin);
  d.width = d.width * in / float(content.width);
  d.height = d.height * in / float(content.height);
  for (detect::Keypoint& k : d.keypoints) k = {fx(k.x), fy(k.y)};
  return d;
}

struct Person {
  int frame = 0;
  float score = 0;
  detect::Roi roi;
};

// One detector input: a view of a frame (pose_model.hpp detector_views) and where it landed in
// the letterboxed input.
struct DetectorItem {
  int frame = 0;
  frames::Rect view, content;
};

}  // namespace

struct PoseStage::Impl {
  Runtime& rt;
  const Stream* stream;
  bool gpu;
  PoseSettings s;
  int max_frames;
  std::vector<detect::Anchor> anchors = detect::generate_ssd_anchors(detect::pose_anchor_options());
  detect::DecodeOptions decode = detect::pose_decode_options();
  detect::NmsOptions nms;
  frames::PreprocessParams detector_input;
  detect::RoiWarpParams warp;
  DetectorOutputs det_out;
  PoseOutputs lm_out;

  // GPU
  infer::EngineLadder detector_gpu, landmarks_gpu;
  std::size_t detections_capacity = 0;  // detector items detections_down holds
  PinnedBuffer detections_down, rois_up, people_down;
  DeviceBuffer rois_device, logits_device;
  std::size_t people_capacity = 0;
  // CPU
  std::unique_ptr<infer::CpuEngine> detector_cpu, landmarks_cpu;
  std::vector<float> cpu_detector_in, cpu_boxes, cpu_scores, cpu_landmark_in;
  std::vector<float> cpu_logits;

  Impl(Runtime& runtime, const Stream* st, const Settings& settings, int frames)
      : rt(runtime), stream(st), gpu(st != nullptr), s(settings.pose), max_frames(std::max(1, frames)) {
    decode.min_score_thresh = s.min_detection_score;
    infer::Model detector = load_model(s.detector_path, "/pose/detector_path");
    infer::Model landmarks = load_model(settings.model_path, "/model/path");
    if (gpu) {
      infer::CudaEngineOptions o;
      o.precision = settings.fp16 ? infer::Precision::fp16 : infer::Precision::fp32;
      detector_gpu = infer::EngineLadder(rt, detector, kDetectorBatch, o);
      landmarks_gpu = infer::EngineLadder(rt, landmarks, kLandmarkBatch, o);
      det_out = detector_outputs(detector_gpu.largest().input_shapes(), detector_gpu.largest().output_shapes(), decode,
                                 s.detector_path);
      check_landmark_model(landmarks_gpu.largest().input_shapes(), landmarks_gpu.largest().output_shapes(),
                           settings.model_path);
    } else {
      detector_cpu = std::make_unique<infer::CpuEngine>(std::move(detector), 1);
      landmarks_cpu = std::make_unique<infer::CpuEngine>(std::move(landmarks), 1);
      det_out = detector_outputs(detector_cpu->input_shapes(), detector_cpu->output_shapes(), decode, s.detector_path);
      check_landmark_model(landmarks_cpu->input_shapes(), landmarks_cpu->output_shapes(), settings.model_path);
      cpu_detector_in.resize(std::size_t(kPoseDetectorInput) * kPoseDetectorInput * 3);
      cpu_landmark_in.resize(kInputValues);
    }
    // pose_detection_cpu.pbtxt: letterboxed 224 x 224 in [-1, 1], BORDER_ZERO (black: -1).
    detector_input.width = detector_input.height = kPoseDetectorInput;
    detector_input.mode = frames::ResizeMode::letterbox;
    detector_input.filter = settings.filter;
    for (int c = 0; c < 3; ++c) {
      detector_input.scale[c] = 2.0f / 255.0f;
      detector_input.offset[c] = -1.0f;
      detector_input.pad[c] = -1.0f;
    }
    detector_input.type = frames::TensorType::f32;
    // pose_landmark_by_roi: the rotated square ROI at 256 x 256 in [0, 1] (edge pixels outside).
    warp.size = kPoseInput;
    warp.scale = 1.0f;
    warp.offset = 0.0f;
    warp.type = frames::TensorType::f32;
  }

  void check_landmark_model(const std::vector<infer::Shape>& inputs, const std::vector<infer::Shape>& outputs,
                            const std::string& path) {
    const bool input_ok = inputs.size() == 1 && inputs[0].size() == 4 && inputs[0][1] == kPoseInput &&
                          inputs[0][2] == kPoseInput && inputs[0][3] == 3;
    if (!input_ok)
      throw UsageError("/model/path: " + path + " is not a BlazePose landmark model (expected a 256x256 RGB input)");
    lm_out = pose_outputs(per_item_elements(outputs), path);
  }

  void reserve_people(std::size_t n) {
    if (n <= people_capacity) return;
    n = std::max(n, people_capacity * 2);
    rois_up.reset();
    people_down.reset();
    rois_device.reset();
    logits_device.reset();
    rois_up = rt.pinned_alloc(n * sizeof(detect::Roi));
    people_down = rt.pinned_alloc(n * kPersonValues * sizeof(float));
    rois_device = rt.device_alloc(n * sizeof(detect::Roi), *stream, "pose ROIs");
    logits_device = rt.device_alloc(n * kMaskValues * sizeof(float), *stream, "pose masks");
    people_capacity = n;
  }

  std::vector<DetectorItem> detector_items(const std::vector<frames::FrameSource>& frames) const {
    std::vector<DetectorItem> items;
    for (std::size_t i = 0; i < frames.size(); ++i)
      for (const frames::Rect& v : detector_views(frames[i].width, frames[i].height, s.detector_tiles))
        items.push_back({int(i), v, {}});
    return items;
  }

  // A frame's detections from all its views (item.content set), in the frame -> its people (at
  // most max_people, best first). Each view's detections are suppressed as MediaPipe does; across
  // views a detection is dropped when a better one's face box overlaps it (IoU > 0.3, the same
  // threshold) or when it comes from another view and the smaller of the two ROIs lies mostly
  // inside the other (over 80% of it: one person seen in the whole frame and in a tile, whose
  // face boxes and body sizes can differ more). Two people of one view are never merged by their
  // ROIs: people side by side have overlapping ROIs.
  void add_people(int frame, const std::vector<DetectorItem>& items, const float* boxes, const float* scores,
                  const frames::FrameSource& f, std::vector<Person>& people) const {
    struct Candidate {
      detect::Detection d;
      std::size_t view;
      detect::Roi roi;
    };
    std::vector<Candidate> found;
    const std::size_t per_box = std::size_t(decode.num_boxes) * decode.num_coords;
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (items[k].frame != frame) continue;
      for (const detect::Detection& d : detect::weighted_non_max_suppression(
               detect::decode_detections(boxes + k * per_box, scores + k * decode.num_boxes, anchors, decode), nms)) {
        const detect::Detection in_frame = detection_in_frame(remove_letterbox(d, items[k].content), items[k].view, f.width, f.height);
        found.push_back({in_frame, k, pose_roi_from_detection(in_frame, f.width, f.height)});
      }
    }
    std::stable_sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) { return a.d.score > b.d.score; });
    std::vector<const Candidate*> kept;
    for (const Candidate& c : found) {
      if (int(kept.size()) >= s.max_people) break;
      const bool duplicate = std::any_of(kept.begin(), kept.end(), [&](const Candidate* k) {
        return detect::box_iou(k->d, c.d) > nms.min_suppression_threshold || (k->view != c.view && roi_overlap(k->roi, c.roi) > 0.8f);
      });
      if (!duplicate) kept.push_back(&c);
    }
    for (const Candidate* c : kept) people.push_back({frame, c->d.score, c->roi});
  }

  // The previous frame's people first (their landmark ROIs), then the detections that are not one
  // of them (frame 0 of a one-frame run), at most max_people.
  void follow(std::vector<Person>& people, const std::vector<FollowedPerson>* followed) const {
    if (!followed || followed->empty()) return;
    std::vector<Person> merged;
    for (const FollowedPerson& f : *followed)
      if (int(merged.size()) < s.max_people) merged.push_back({0, f.score, f.roi});
    for (const Person& p : people) {
      if (int(merged.size()) >= s.max_people) break;
      const bool known = std::any_of(followed->begin(), followed->end(),
                                     [&](const FollowedPerson& f) { return roi_overlap(f.roi, p.roi) > 0.5f; });
      if (!known) merged.push_back(p);
    }
    people.swap(merged);
  }

  // The share of the smaller of two ROIs' squares (rotations ignored) inside the other.
  static float roi_overlap(const detect::Roi& a, const detect::Roi& b) {
    const float ix = std::max(0.0f, std::min(a.cx + a.size / 2, b.cx + b.size / 2) - std::max(a.cx - a.size / 2, b.cx - b.size / 2));
    const float iy = std::max(0.0f, std::min(a.cy + a.size / 2, b.cy + b.size / 2) - std::max(a.cy - a.size / 2, b.cy - b.size / 2));
    const float smaller = std::min(a.size, b.size);
    return smaller > 0 ? ix * iy / (smaller * smaller) : 0.0f;
  }

  void warm_up() {
    if (!gpu) return;
    ScopedStage span("pose warm-up");
    const Stream& st = *stream;
    for (const infer::EngineLadder* ladder : {&detector_gpu, &landmarks_gpu})
      for (const auto& e : ladder->all()) {
        st.memset(e->input_device(0), 0, std::size_t(infer::element_count(e->input_shapes().at(0))) * sizeof(float));
        for (int run = 0; run < 2; ++run) e->run({e->input_device(0)}, infer::output_pointers(*e), st);
      }
    st.synchronize("segment-body pose warm-up");
  }

  void run_gpu(const std::vector<frames::FrameSource>& frames, const std::vector<ImageView>& canvases,
               std::vector<std::vector<PersonPose>>& out, const std::vector<FollowedPerson>* followed) {
    const Stream& st = *stream;
    const std::size_t n = frames.size();
    std::vector<DetectorItem> items = detector_items(frames);
    const std::size_t per_item = std::size_t(decode.num_boxes) * (decode.num_coords + 1);
    if (items.size() > detections_capacity) {
      detections_down.reset();
      detections_down = rt.pinned_alloc(items.size() * per_item * sizeof(float));
      detections_capacity = items.size();
    }
    float* boxes = detections_down.as<float>();
    float* scores = boxes + items.size() * decode.num_boxes * decode.num_coords;
    {
      ScopedStage span("pose detector");
      for (std::size_t first = 0; first < items.size(); first += kDetectorBatch) {
        const std::size_t last = std::min(items.size(), first + std::size_t(kDetectorBatch));
        infer::CudaEngine& engine = detector_gpu.fitting(int(last - first));
        for (std::size_t k = first; k < last; ++k)
          items[k].content = frames::preprocess_gpu(frames::crop_frame(frames[std::size_t(items[k].frame)], items[k].view),
                                                    detector_input, engine.input_device(0), int(k - first), nullptr, st.get());
        const std::vector<float*> outs = infer::output_pointers(engine);
        engine.run({engine.input_device(0)}, outs, st);
        st.copy_to_host(boxes + first * decode.num_boxes * decode.num_coords, outs[std::size_t(det_out.boxes)],
                        (last - first) * decode.num_boxes * decode.num_coords * sizeof(float));
        st.copy_to_host(scores + first * decode.num_boxes, outs[std::size_t(det_out.scores)],
                        (last - first) * decode.num_boxes * sizeof(float));
      }
      st.synchronize("segment-body pose detector");
    }
    std::vector<Person> people;
    for (std::size_t i = 0; i < n; ++i) add_people(int(i), items, boxes, scores, frames[i], people);
    if (n == 1) follow(people, followed);
    const std::size_t count = people.size();
    if (count > 0) {
      ScopedStage span("pose landmarks");
      reserve_people(count);
      auto* staged = rois_up.as<detect::Roi>();
      for (std::size_t k = 0; k < count; ++k) staged[k] = people[k].roi;
      st.copy_to_device(rois_device.get(), staged, count * sizeof(detect::Roi));
      const auto* d_rois = static_cast<const detect::Roi*>(rois_device.get());
      float* host = people_down.as<float>();
      for (std::size_t first = 0; first < count; first += kLandmarkBatch) {
        const std::size_t last = std::min(count, first + std::size_t(kLandmarkBatch));
        infer::CudaEngine& engine = landmarks_gpu.fitting(int(last - first));
        for (std::size_t k = first; k < last;) {  // a frame's consecutive people in one launch
          std::size_t end = k + 1;
          while (end < last && people[end].frame == people[k].frame) ++end;
          detect::warp_rois_gpu(frames[std::size_t(people[k].frame)], d_rois + k, int(end - k), warp,
                                engine.input_device(0) + (k - first) * kInputValues, st.get());
          k = end;
        }
        const std::vector<float*> outs = infer::output_pointers(engine);
        engine.run({engine.input_device(0)}, outs, st);
        const std::size_t items = last - first;
        float* at = host + first * kPersonValues;  // this chunk: landmarks, heatmaps, world, flags
        st.copy_to_host(at, outs[std::size_t(lm_out.landmarks)], items * kLandmarkValues * sizeof(float));
        st.copy_to_host(at + items * kLandmarkValues, outs[std::size_t(lm_out.heatmap)], items * kHeatmapValues * sizeof(float));
        st.copy_to_host(at + items * (kLandmarkValues + kHeatmapValues), outs[std::size_t(lm_out.world)],
                        items * kWorldValues * sizeof(float));
        st.copy_to_host(at + items * (kLandmarkValues + kHeatmapValues + kWorldValues), outs[std::size_t(lm_out.flag)],
                        items * sizeof(float));
        st.copy_2d(static_cast<float*>(logits_device.get()) + first * kMaskValues, kMaskValues * sizeof(float),
                   outs[std::size_t(lm_out.segmentation)], kMaskValues * sizeof(float), kMaskValues * sizeof(float), items);
      }
      st.synchronize("segment-body pose landmarks");
    }
    // Poses on the host; people without a pose keep a zero-size ROI, which the paste skips.
    auto* paste_rois = rois_up.as<detect::Roi>();
    for (std::size_t first = 0; first < count; first += kLandmarkBatch) {
      const std::size_t last = std::min(count, first + std::size_t(kLandmarkBatch)), items = last - first;
      const float* at = people_down.as<float>() + first * kPersonValues;
      for (std::size_t k = first; k < last; ++k) {
        const std::size_t j = k - first;
        const float flag = at[items * (kLandmarkValues + kHeatmapValues + kWorldValues) + j];
        paste_rois[k] = accept(people[k], at + j * kLandmarkValues, at + items * kLandmarkValues + j * kHeatmapValues,
                               at + items * (kLandmarkValues + kHeatmapValues) + j * kWorldValues, flag, out);
      }
    }
    if (count > 0) st.copy_to_device(rois_device.get(), paste_rois, count * sizeof(detect::Roi));
    ScopedStage span("pose masks");
    std::size_t first = 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t end = first;
      while (end < count && people[end].frame == int(i)) ++end;
      PersonMasks masks;
      masks.logits = static_cast<const float*>(logits_device.get()) + first * kMaskValues;
      masks.rois = static_cast<const detect::Roi*>(rois_device.get()) + first;
      masks.count = int(end - first);
      masks.size = kPoseInput;
      masks.frame_width = frames[i].width;
      masks.frame_height = frames[i].height;
      paste_person_masks_gpu(masks, canvases[i], st.get());
      first = end;
    }
  }

  // The person's pose into out[frame] when the landmark model confirms it; returns the ROI its
  // mask is pasted with (size 0: not pasted).
  detect::Roi accept(const Person& p, const float* landmarks, const float* heatmap, const float* world, float flag,
                     std::vector<std::vector<PersonPose>>& out) const {
    if (!(flag >= s.min_presence)) return detect::Roi{p.roi.cx, p.roi.cy, 0.0f, 0.0f};
    PersonPose pose = decode_pose(landmarks, heatmap, world, flag, p.roi);
    pose.detection_score = p.score;
    out[std::size_t(p.frame)].push_back(pose);
    return p.roi;
  }

  void run_cpu(const std::vector<frames::FrameSource>& frames, const std::vector<ImageView>& canvases,
               std::vector<std::vector<PersonPose>>& out, const std::vector<FollowedPerson>* followed) {
    for (std::size_t i = 0; i < frames.size(); ++i) {
      std::vector<Person> people;
      {
        ScopedStage span("pose detector");
        std::vector<DetectorItem> items = detector_items({frames[i]});
        const std::size_t per_box = std::size_t(decode.num_boxes) * decode.num_coords;
        cpu_boxes.resize(items.size() * per_box);
        cpu_scores.resize(items.size() * std::size_t(decode.num_boxes));
        for (std::size_t k = 0; k < items.size(); ++k) {
          items[k].content = frames::preprocess_cpu(frames::crop_frame(frames[i], items[k].view), detector_input,
                                                    cpu_detector_in.data(), 0, nullptr);
          const auto result = detector_cpu->run({cpu_detector_in});
          std::copy(result[std::size_t(det_out.boxes)].begin(), result[std::size_t(det_out.boxes)].end(),
                    cpu_boxes.begin() + std::ptrdiff_t(k * per_box));
          std::copy(result[std::size_t(det_out.scores)].begin(), result[std::size_t(det_out.scores)].end(),
                    cpu_scores.begin() + std::ptrdiff_t(k * std::size_t(decode.num_boxes)));
        }
        add_people(0, items, cpu_boxes.data(), cpu_scores.data(), frames[i], people);
        if (frames.size() == 1) follow(people, followed);
        for (Person& p : people) p.frame = int(i);
      }
      std::vector<detect::Roi> rois;
      cpu_logits.resize(people.size() * kMaskValues);
      {
        ScopedStage span("pose landmarks");
        for (std::size_t k = 0; k < people.size(); ++k) {
          detect::warp_rois_cpu(frames[i], &people[k].roi, 1, warp, cpu_landmark_in.data());
          const auto r = landmarks_cpu->run({cpu_landmark_in});
          const auto& seg = r[std::size_t(lm_out.segmentation)];
          std::copy(seg.begin(), seg.end(), cpu_logits.begin() + std::ptrdiff_t(k * kMaskValues));
          rois.push_back(accept(people[k], r[std::size_t(lm_out.landmarks)].data(), r[std::size_t(lm_out.heatmap)].data(),
                                r[std::size_t(lm_out.world)].data(), r[std::size_t(lm_out.flag)][0], out));
        }
      }
      ScopedStage span("pose masks");
      PersonMasks masks;
      masks.logits = cpu_logits.data();
      masks.rois = rois.data();
      masks.count = int(rois.size());
      masks.size = kPoseInput;
      masks.frame_width = frames[i].width;
      masks.frame_height = frames[i].height;
      paste_person_masks_cpu(masks, canvases[i]);
    }
  }
};

PoseStage::PoseStage(Runtime& runtime, const Stream* stream, const Settings& settings, int frames)
    : impl_(std::make_unique<Impl>(runtime, stream, settings, frames)) {}
PoseStage::~PoseStage() = default;

void PoseStage::warm_up() { impl_->warm_up(); }

void PoseStage::run(const std::vector<frames::FrameSource>& frames, const std::vector<ImageView>& canvases,
                    std::vector<std::vector<PersonPose>>& people, const std::vector<FollowedPerson>* followed) {
  if (frames.size() != canvases.size()) throw Error("segment-body pose: frames and canvases differ in number");
  if (impl_->gpu && int(frames.size()) > impl_->max_frames)
    throw Error("segment-body pose: " + std::to_string(frames.size()) + " frames for a batch of " +
                std::to_string(impl_->max_frames));
  people.assign(frames.size(), {});
  if (frames.empty()) return;
  if (impl_->gpu)
    impl_->run_gpu(frames, canvases, people, followed);
  else
    impl_->run_cpu(frames, canvases, people, followed);
}

}  // namespace gp::segbody

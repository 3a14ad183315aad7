#include "track_faces/face_detector.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "infer/cpu_engine.hpp"
#include "cuda/infer/op_geometry.hpp"
#include "infer/tflite_model.hpp"
#include "detection/anchors.hpp"

namespace gp::track {

using namespace gp::detect;  // the shared detection module

DetectorModel parse_detector_model(const std::string& text, const std::string& field) {
  if (text == "short") return DetectorModel::short_range;
  if (text == "full") return DetectorModel::full_range;
  throw UsageError(field + ": \"" + text + "\" is not a face detector (expected short or full)");
}

const char* detector_model_file(DetectorModel model) {
  return model == DetectorModel::short_range ? "face_detection_short_range.tflite" : "face_detection_full_range.tflite";
}

int detector_input_size(DetectorModel model) { return model == DetectorModel::short_range ? 128 : 192; }

frames::PreprocessParams detector_preprocess(DetectorModel model, frames::TensorType type, frames::ResizeFilter filter) {
  frames::PreprocessParams p;
  p.width = p.height = detector_input_size(model);
  p.mode = frames::ResizeMode::letterbox;
  p.filter = filter;
  for (int c = 0; c < 3; ++c) {
    p.scale[c] = 2.0f / 255.0f;
    p.offset[c] = -1.0f;
    p.pad[c] = -1.0f;  // black, as MediaPipe's BORDER_ZERO padding before the range conversion
  }
  p.type = type;
  return p;
}

const std::vector<Anchor>& detector_anchors(DetectorModel model) {
  static const std::vector<Anchor> short_range = generate_ssd_anchors(short_range_anchor_options());
  static const std::vector<Anchor> full_range = generate_ssd_anchors(full_range_anchor_options());
  return model == DetectorModel::short_range ? short_range : full_range;
}

DecodeOptions detector_decode_options(const DetectorOptions& options) {
  DecodeOptions d = options.model == DetectorModel::short_range ? short_range_decode_options() : full_range_decode_options();
  if (options.min_score >= 0) d.min_score_thresh = options.min_score;
  return d;
}

NmsOptions detector_nms_options(const DetectorOptions& options) {
  NmsOptions nms;
  nms.min_suppression_threshold = options.nms_iou;
  nms.max_num_detections = options.max_faces;
  return nms;
}

FrameFace face_in_frame(const Detection& d, DetectorModel model, const frames::Rect& content, int frame_width,
                        int frame_height) {
  // Model-input normalized coordinates -> frame pixels: undo the letterbox.
  const float input = float(detector_input_size(model));
  const float sx = float(frame_width) / float(content.width), sy = float(frame_height) / float(content.height);
  auto px = [&](float x) { return (x * input - float(content.x)) * sx; };
  auto py = [&](float y) { return (y * input - float(content.y)) * sy; };
  FrameFace f;
  f.box = {px(d.xmin), py(d.ymin), px(d.xmin + d.width), py(d.ymin + d.height)};
  f.score = d.score;
  for (int k = 0; k < kMaxKeypoints; ++k)
    f.keypoints[std::size_t(k)] = {px(d.keypoints[std::size_t(k)].x), py(d.keypoints[std::size_t(k)].y)};
  return f;
}

std::vector<FrameFace> faces_from_outputs(const float* raw_boxes, const float* raw_scores, const DetectorOptions& options,
                                          const frames::Rect& content, int frame_width, int frame_height) {
  const std::vector<Detection> decoded =
      decode_detections(raw_boxes, raw_scores, detector_anchors(options.model), detector_decode_options(options));
  std::vector<FrameFace> faces;
  for (const Detection& d : weighted_non_max_suppression(decoded, detector_nms_options(options)))
    faces.push_back(face_in_frame(d, options.model, content, frame_width, frame_height));
  return faces;
}

CpuFaceDetector::CpuFaceDetector(const std::string& model_path, const DetectorOptions& options) : options_(options) {
  try {
    engine_ = std::make_unique<infer::CpuEngine>(infer::Model::load(model_path), 1);
  } catch (const std::exception& e) {
    throw UsageError(std::string("face detector: ") + e.what());
  }
  const int size = detector_input_size(options.model);
  const auto inputs = engine_->input_shapes();
  const auto outputs = engine_->output_shapes();
  const std::size_t anchors = detector_anchors(options.model).size();
  const bool fits = inputs.size() == 1 && inputs[0].size() == 4 && inputs[0][1] == size && inputs[0][2] == size &&
                    inputs[0][3] == 3 && outputs.size() == 2 && std::size_t(infer::element_count(outputs[0])) == anchors * 16 &&
                    std::size_t(infer::element_count(outputs[1])) == anchors;
  if (!fits)
    throw UsageError("face detector: " + model_path + " is not a BlazeFace " + std::to_string(size) + "x" +
                     std::to_string(size) + " model with " + std::to_string(anchors) + " anchors (" +
                     detector_model_file(options.model) + ")");
  input_.resize(std::size_t(infer::element_count(inputs[0])));
  boxes_.resize(std::size_t(infer::element_count(outputs[0])));
  scores_.resize(std::size_t(infer::element_count(outputs[1])));
}

CpuFaceDetector::~CpuFaceDetector() = default;

std::vector<FrameFace> CpuFaceDetector::detect(const frames::FrameSource& frame) {
  const frames::PreprocessParams p = detector_preprocess(options_.model, frames::TensorType::f32, options_.filter);
  const frames::Rect content = frames::preprocess_cpu(frame, p, input_.data(), 0, nullptr);
  engine_->run({input_.data()}, {boxes_.data(), scores_.data()});
  return faces_from_outputs(boxes_.data(), scores_.data(), options_, content, frame.width, frame.height);
}

}  // namespace gp::track

#pragma once
// BlazeFace face detection on a decoded frame, as MediaPipe's face_detection graphs run it: the
// frame letterboxed into the model input (128x128 short range, 192x192 full range; aspect kept,
// black padding) with values in [-1, 1], the model, box and keypoint decoding against the SSD
// anchors, weighted non-maximum suppression, and the letterbox undone. Detections come out in the
// frame's pixels.
//
// The pieces are free functions so that the GPU path (preprocess and engine on the device) shares
// them; CpuFaceDetector is the CPU path (CpuEngine, batch 1) and the reference.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "cuda/frames/frame.hpp"
#include "cuda/frames/preprocess.hpp"
#include "detection/detection_decode.hpp"
#include "detection/tracker.hpp"

namespace gp::infer {
class CpuEngine;
}

namespace gp::track {

using namespace gp::detect;  // the shared detection module

enum class DetectorModel { short_range, full_range };

// "short" or "full" (config values); throws gp::UsageError naming `field`.
DetectorModel parse_detector_model(const std::string& text, const std::string& field);
const char* detector_model_file(DetectorModel model);  // face_detection_{short,full}_range.tflite
int detector_input_size(DetectorModel model);          // 128 or 192

struct DetectorOptions {
  DetectorModel model = DetectorModel::short_range;
  float min_score = -1;        // < 0: the model's MediaPipe default (0.5 short, 0.6 full range)
  float nms_iou = 0.3f;        // weighted NMS: IoU above this merges
  int max_faces = -1;          // -1: no limit
  frames::ResizeFilter filter = frames::ResizeFilter::bilinear;  // MediaPipe's; area as an option
};

// A face in frame pixels.
struct FrameFace {
  PixelBox box;
  float score = 0;
  std::array<Keypoint, kMaxKeypoints> keypoints{};  // pixels; 0 right eye, 1 left eye, 2 nose tip...
};

// The model input's preprocessing: letterbox, rgb / 127.5 - 1, padding -1 (black).
frames::PreprocessParams detector_preprocess(DetectorModel model, frames::TensorType type, frames::ResizeFilter filter);

// The model's SSD anchors, decoding options (min_score applied) and suppression options.
const std::vector<Anchor>& detector_anchors(DetectorModel model);
DecodeOptions detector_decode_options(const DetectorOptions& options);
NmsOptions detector_nms_options(const DetectorOptions& options);

// A detection (model-input normalized) in frame pixels, the letterbox undone. content: where
// preprocessing put the frame in the model input (frames::content_rect).
FrameFace face_in_frame(const Detection& d, DetectorModel model, const frames::Rect& content, int frame_width,
                        int frame_height);

// Raw model outputs of one frame -> its faces in frame pixels (decoding, suppression, face_in_frame):
// the CPU path; the GPU path decodes and suppresses on the device (cuda/detection/detection_gpu.hpp).
std::vector<FrameFace> faces_from_outputs(const float* raw_boxes, const float* raw_scores, const DetectorOptions& options,
                                          const frames::Rect& content, int frame_width, int frame_height);

class CpuFaceDetector {
 public:
  // model_path: the .tflite of options.model; throws gp::UsageError when it cannot be read or is
  // not a BlazeFace model of that input size.
  CpuFaceDetector(const std::string& model_path, const DetectorOptions& options);
  ~CpuFaceDetector();

  std::vector<FrameFace> detect(const frames::FrameSource& frame);

 private:
  DetectorOptions options_;
  std::unique_ptr<infer::CpuEngine> engine_;
  std::vector<float> input_;
  std::vector<float> boxes_, scores_;
};

}  // namespace gp::track

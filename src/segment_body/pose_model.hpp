#pragma once
// BlazePose on the host side, as MediaPipe's pose graphs define it (pose_detection_cpu.pbtxt,
// pose_detection_to_roi.pbtxt, pose_landmark_by_roi_cpu.pbtxt and its post-processing,
// tensors_to_pose_landmarks_and_segmentation.pbtxt), for any number of people:
//   - person detections (detector input 224 x 224 letterboxed, [-1, 1]) -> one ROI each:
//     AlignmentPointsRectsCalculator from keypoint 0 (hip centre) to 1 (full-body point), target
//     angle 90 degrees, then RectTransformationCalculator square_long x1.25;
//   - the landmark model's outputs in a ROI -> 33 landmarks in frame pixels (TensorsToLandmarks
//     with sigmoid visibility and presence, RefineLandmarksFromHeatmap with kernel 7 and minimum
//     confidence 0.5, LandmarkProjection), 33 world landmarks in metres (rotated by the ROI as
//     WorldLandmarkProjectionCalculator does), the two auxiliary landmarks, the pose flag.
#include <array>
#include <string>
#include <vector>

#include "cuda/detection/detection_types.hpp"
#include "cuda/detection/roi.hpp"
#include "cuda/frames/frame.hpp"

namespace gp::segbody {

constexpr int kPoseLandmarks = 33;
constexpr int kPoseModelLandmarks = 39;  // 33, 2 auxiliary (ROI of the next frame), 4 unused
constexpr int kPoseInput = 256;          // the landmark model's input and mask side
constexpr int kPoseHeatmap = 64;         // heatmap side (64 x 64 x 39)
constexpr int kPoseDetectorInput = 224;

struct PoseLandmark {
  float x = 0, y = 0, z = 0;         // frame pixels; z in the same scale as x, hips ~0, smaller nearer
  float visibility = 0, presence = 0;  // probabilities
};

struct WorldLandmark {
  float x = 0, y = 0, z = 0;  // metres, origin between the hips
};

struct PersonPose {
  int id = 0;                 // videos: the person's track (1, 2, ...); 0 until confirmed, and for images
  float detection_score = 0;  // the person detector's
  float presence = 0;         // the landmark model's pose flag
  detect::Roi roi;            // the landmark model's input, frame pixels
  std::array<PoseLandmark, kPoseLandmarks> landmarks{};
  std::array<WorldLandmark, kPoseLandmarks> world{};
  std::array<PoseLandmark, 2> auxiliary{};
  float box[4] = {0, 0, 0, 0};  // x0, y0, x1, y1: the landmarks' bounding box, frame pixels
};

// Where the person detector looks in a frame: the whole frame (MediaPipe's only view), then for
// each of `tile_levels` levels a grid of square tiles, neighbours overlapping by at least a
// quarter: level 1 of half the frame's short side (at least the detector's 224), level 2 of a
// quarter (at least 128), so that people too small for the detector in the whole frame (a
// pedestrian 90 px tall in 768x576 is 26 px in the 224 input) are seen two or four times larger.
// Tile corners are even (YUV 4:2:0 crops).
std::vector<frames::Rect> detector_views(int frame_width, int frame_height, int tile_levels);

// A detection normalized to `view` (letterbox removed) -> normalized to the whole frame.
detect::Detection detection_in_frame(const detect::Detection& d, const frames::Rect& view, int frame_width,
                                     int frame_height);

// A detection normalised to the FRAME (letterbox removed) -> its landmark ROI in frame pixels.
detect::Roi pose_roi_from_detection(const detect::Detection& d, int frame_width, int frame_height);
// The next frame's ROI from this frame's auxiliary landmarks (pose_landmarks_to_roi.pbtxt).
detect::Roi pose_roi_from_landmarks(const PersonPose& pose);

// One landmark model run: landmarks [39 x 5], heatmap [64 x 64 x 39] (logits, HWC), world [39 x 3],
// flag (the pose flag, already a probability) -> the person in frame pixels.
PersonPose decode_pose(const float* landmarks, const float* heatmap, const float* world, float flag,
                       const detect::Roi& roi);

// The landmarks' bounding box into pose.box.
void update_box(PersonPose& pose);

// The landmark model's five outputs, by their element counts: landmarks 195, pose flag 1,
// segmentation 256 x 256, heatmap 64 x 64 x 39, world landmarks 117.
struct PoseOutputs {
  int landmarks = -1, flag = -1, segmentation = -1, heatmap = -1, world = -1;
};
// Throws UsageError naming `path` when the model does not have them.
PoseOutputs pose_outputs(const std::vector<long long>& output_elements, const std::string& path);

}  // namespace gp::segbody

#pragma once
// One camera's tracking between the processor's calls: which frames need the detector (every
// K-th, the frame after a followed face was lost, and every frame while none is followed), which ROIs the landmark model gets (around
// this frame's detections, or where each followed face's landmarks were in the previous frame),
// and the ByteTracker update that turns detections or landmark-followed faces into stable IDs.
//
// Between detections a face's box comes from its landmarks, mapped into the detector's box
// convention with the offsets measured at its last detection (face-mesh points and BlazeFace boxes
// frame a face differently), so the tracker sees one kind of box throughout.
#include <map>
#include <vector>

#include "cuda/track_faces/face_roi.hpp"
#include "track_faces/face_detector.hpp"
#include "track_faces/face_frame.hpp"
#include "track_faces/face_processor.hpp"
#include "detection/tracker.hpp"

namespace gp::track {

using namespace gp::detect;  // the shared detection module

struct CameraTrackerOptions {
  int detect_every = 10;             // frames; 1 = every frame (also every frame while no face is followed)
  // Frames of the detect_every cycle skipped before the first periodic detection: cameras given
  // different phases run the detector on different steps, so no step detects on every camera.
  int detect_phase = 0;
  float min_landmark_score = 0.5f;   // below: the face is lost and the next frame runs the detector
  float roi_scale = 1.5f;            // landmark ROI around a detection or the previous landmarks
  bool landmarks = true;             // the landmark model runs (else every frame is a detection frame)
  TrackerOptions tracker;
};

class CameraTracker {
 public:
  explicit CameraTracker(const CameraTrackerOptions& options);

  // Whether the coming frame needs the detector.
  bool wants_detection() const;
  // The landmark ROIs for the coming frame, given its detections (empty unless wants_detection()).
  std::vector<Roi> rois(const std::vector<FrameFace>& detections) const;
  // The frame's results: its detections (if it was a detection frame) and the landmarks of rois()
  // in order. Returns the faces of confirmed tracks seen in this frame.
  std::vector<TrackedFace> update(const std::vector<FrameFace>& detections, const std::vector<FaceLandmarks>& landmarks,
                                  bool detection_frame);

  int frames() const { return frame_; }

 private:
  struct Followed {
    Roi roi;               // where to crop in the next frame
    float box_offsets[4]{};    // detector box minus landmark box, in landmark-box widths/heights
    bool has_offsets = false;
  };
  CameraTrackerOptions options_;
  ByteTracker tracker_;
  std::vector<Followed> followed_;  // faces followed into the next frame, in rois() order
  bool lost_face_ = false;
  int frame_ = 0;
};

}  // namespace gp::track

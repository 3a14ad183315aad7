#pragma once
// ByteTrack-style multi-object tracker for one camera: a box Kalman filter per track, IoU costs
// solved by the Hungarian algorithm in two stages (high-score detections against every live
// track, then low-score detections against the confirmed tracks still unmatched, which keeps
// faces through blur or partial occlusion without letting weak detections start tracks).
//
// States: tentative (new, not reported) -> confirmed after min_hits consecutive matches, lost
// when a confirmed track misses a frame (kept and predicted, re-found with its ID), removed when
// a tentative track misses a frame or a lost one stays unmatched for more than max_lost_frames.
// IDs are given at confirmation (1, 2, ...), so reported IDs have no gaps from false starts.
#include <vector>

#include "detection/kalman.hpp"

namespace gp::detect {

// Pixel box, corners.
struct PixelBox {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

float box_iou(const PixelBox& a, const PixelBox& b);

struct TrackerDetection {
  PixelBox box;
  float score = 0;
};

struct TrackerOptions {
  float high_score = 0.5f;        // first stage; below it (and >= low_score) the second stage
  float low_score = 0.1f;         // weaker detections are ignored
  float new_track_score = 0.6f;   // an unmatched detection starts a track from this score
  float first_stage_iou = 0.2f;   // minimum IoU of a pair (ByteTrack's distances 0.8, 0.5, 0.7)
  float second_stage_iou = 0.5f;
  float tentative_iou = 0.3f;
  int min_hits = 2;               // consecutive matches (creation included) to confirm
  int max_lost_frames = 30;       // a lost track is removed after this many frames unmatched
};

enum class TrackState { tentative, confirmed, lost, removed };

struct TrackView {
  int id = 0;             // 0 while tentative
  TrackState state = TrackState::tentative;
  PixelBox box;           // Kalman estimate after this frame
  float score = 0;        // last matched detection's score
  int detection = -1;     // index of the detection matched in this frame, -1 if none
  int hits = 0;           // matches so far
  int frames_since_update = 0;
};

struct TrackerFrame {
  std::vector<TrackView> confirmed;  // confirmed tracks matched in this frame (the output)
  std::vector<int> removed_ids;      // confirmed IDs removed in this frame
};

class ByteTracker {
 public:
  explicit ByteTracker(TrackerOptions options = {});

  TrackerFrame update(const std::vector<TrackerDetection>& detections);

  // Every live track (tentative, confirmed, lost) after the last update.
  std::vector<TrackView> tracks() const;

 private:
  struct Track {
    BoxKalmanFilter filter;
    TrackView view;
  };
  void match(Track& track, const TrackerDetection& detection, int index);

  TrackerOptions options_;
  std::vector<Track> tracks_;
  int next_id_ = 1;
};

}  // namespace gp::detect

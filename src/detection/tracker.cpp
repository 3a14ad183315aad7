#include "detection/tracker.hpp"

#include <algorithm>

#include "detection/hungarian.hpp"

namespace gp::detect {

float box_iou(const PixelBox& a, const PixelBox& b) {
  const float ix0 = std::max(a.x0, b.x0), iy0 = std::max(a.y0, b.y0);
  const float ix1 = std::min(a.x1, b.x1), iy1 = std::min(a.y1, b.y1);
  if (ix1 <= ix0 || iy1 <= iy0) return 0.0f;
  const float inter = (ix1 - ix0) * (iy1 - iy0);
  const float uni = (a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter;
  return uni > 0.0f ? inter / uni : 0.0f;
}

namespace {

BoxXyah to_xyah(const PixelBox& b) {
  const double w = b.x1 - b.x0, h = b.y1 - b.y0;
  return {b.x0 + w / 2, b.y0 + h / 2, h > 0 ? w / h : 0.0, h};
}

PixelBox to_corners(const BoxXyah& b) {
  const double w = b.a * b.h;
  return {static_cast<float>(b.cx - w / 2), static_cast<float>(b.cy - b.h / 2),
          static_cast<float>(b.cx + w / 2), static_cast<float>(b.cy + b.h / 2)};
}

// Hungarian matching of tracks (rows) and detections (columns) on 1 - IoU, gated by min_iou.
Assignment associate(const std::vector<PixelBox>& track_boxes, const std::vector<PixelBox>& detection_boxes,
                     float min_iou) {
  const int rows = static_cast<int>(track_boxes.size()), columns = static_cast<int>(detection_boxes.size());
  std::vector<double> cost(static_cast<std::size_t>(rows) * columns);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < columns; ++c)
      cost[static_cast<std::size_t>(r) * columns + c] = 1.0 - box_iou(track_boxes[r], detection_boxes[c]);
  return solve_assignment(cost, rows, columns, 1.0 - min_iou);
}

}  // namespace

ByteTracker::ByteTracker(TrackerOptions options) : options_(options) {}

void ByteTracker::match(Track& track, const TrackerDetection& detection, int index) {
  track.filter.update(to_xyah(detection.box));
  track.view.box = to_corners(track.filter.box());
  track.view.score = detection.score;
  track.view.detection = index;
  track.view.hits += 1;
  track.view.frames_since_update = 0;
  if (track.view.state == TrackState::lost) track.view.state = TrackState::confirmed;
  if (track.view.state == TrackState::tentative && track.view.hits >= options_.min_hits) {
    track.view.state = TrackState::confirmed;
    track.view.id = next_id_++;
  }
}

TrackerFrame ByteTracker::update(const std::vector<TrackerDetection>& detections) {
  for (Track& t : tracks_) {
    t.filter.predict();
    t.view.box = to_corners(t.filter.box());
    t.view.detection = -1;
    t.view.frames_since_update += 1;
  }
  std::vector<int> high, low;
  for (int i = 0; i < static_cast<int>(detections.size()); ++i) {
    if (detections[i].score >= options_.high_score) high.push_back(i);
    else if (detections[i].score >= options_.low_score) low.push_back(i);
  }
  auto boxes_of_detections = [&](const std::vector<int>& indices) {
    std::vector<PixelBox> boxes;
    for (int i : indices) boxes.push_back(detections[i].box);
    return boxes;
  };
  auto boxes_of_tracks = [&](const std::vector<int>& indices) {
    std::vector<PixelBox> boxes;
    for (int i : indices) boxes.push_back(tracks_[i].view.box);
    return boxes;
  };
  auto tracks_in = [&](std::initializer_list<TrackState> states) {
    std::vector<int> indices;
    for (int i = 0; i < static_cast<int>(tracks_.size()); ++i)
      if (std::find(states.begin(), states.end(), tracks_[i].view.state) != states.end()) indices.push_back(i);
    return indices;
  };

  // Stage 1: high-score detections against confirmed and lost tracks.
  const std::vector<int> pool = tracks_in({TrackState::confirmed, TrackState::lost});
  const Assignment first = associate(boxes_of_tracks(pool), boxes_of_detections(high), options_.first_stage_iou);
  for (auto [r, c] : first.matches) match(tracks_[pool[r]], detections[high[c]], high[c]);
  std::vector<int> high_left;
  for (int c : first.unmatched_columns) high_left.push_back(high[c]);

  // Stage 2: low-score detections against the confirmed tracks stage 1 left (not lost ones: a
  // weak detection is trusted only where a track is currently being followed).
  std::vector<int> still_tracked;
  for (int r : first.unmatched_rows)
    if (tracks_[pool[r]].view.state == TrackState::confirmed) still_tracked.push_back(pool[r]);
  const Assignment second =
      associate(boxes_of_tracks(still_tracked), boxes_of_detections(low), options_.second_stage_iou);
  for (auto [r, c] : second.matches) match(tracks_[still_tracked[r]], detections[low[c]], low[c]);
  for (int r : second.unmatched_rows) tracks_[still_tracked[r]].view.state = TrackState::lost;

  // Stage 3: tentative tracks against the high-score detections left; a miss ends them.
  const std::vector<int> tentative = tracks_in({TrackState::tentative});
  const Assignment third =
      associate(boxes_of_tracks(tentative), boxes_of_detections(high_left), options_.tentative_iou);
  for (auto [r, c] : third.matches) match(tracks_[tentative[r]], detections[high_left[c]], high_left[c]);
  for (int r : third.unmatched_rows) tracks_[tentative[r]].view.state = TrackState::removed;

  // New tracks from confident detections nobody took.
  for (int c : third.unmatched_columns) {
    const int index = high_left[c];
    if (detections[index].score < options_.new_track_score) continue;
    Track t{BoxKalmanFilter(to_xyah(detections[index].box)), TrackView{}};
    t.view.box = detections[index].box;
    t.view.score = detections[index].score;
    t.view.detection = index;
    t.view.hits = 1;
    if (options_.min_hits <= 1) {
      t.view.state = TrackState::confirmed;
      t.view.id = next_id_++;
    }
    tracks_.push_back(t);
  }

  TrackerFrame frame;
  for (Track& t : tracks_) {
    if (t.view.state == TrackState::lost && t.view.frames_since_update > options_.max_lost_frames)
      t.view.state = TrackState::removed;
    if (t.view.state == TrackState::removed && t.view.id != 0) frame.removed_ids.push_back(t.view.id);
    if (t.view.state == TrackState::confirmed && t.view.frames_since_update == 0) frame.confirmed.push_back(t.view);
  }
  tracks_.erase(std::remove_if(tracks_.begin(), tracks_.end(),
                               [](const Track& t) { return t.view.state == TrackState::removed; }),
                tracks_.end());
  return frame;
}

std::vector<TrackView> ByteTracker::tracks() const {
  std::vector<TrackView> views;
  for (const Track& t : tracks_) views.push_back(t.view);
  return views;
}

}  // namespace gp::detect

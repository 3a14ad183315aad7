#pragma once
// segment-body's pose output (BlazePose variants): one JSON object per frame,
//   {"frame": 12, "time_s": 0.4, "people": [{"id": 3, "detection_score": .., "presence": ..,
//     "box": [x0, y0, x1, y1], "roi": {"cx", "cy", "size", "rotation"},
//     "landmarks": [[x, y, z, visibility, presence] x 33], "world_landmarks": [[x, y, z] x 33]}]}
// Pixels of the frame (x right, y down; z in the scale of x, negative towards the camera, 0 at
// the hips' depth) and metres for the world landmarks (origin between the hips), as MediaPipe's
// NormalizedLandmark and Landmark define them (here multiplied by the frame size). Videos get a
// JSON line per frame ({stem}_pose.jsonl), images one object ({stem}_pose.json). "id": the
// person's track in a video (1, 2, ... as each is confirmed after two frames, kept through up to
// 30 frames without the person), 0 before confirmation and in images.
#include <cstdint>
#include <string>
#include <vector>

#include "segment_body/pose_model.hpp"

namespace gp::segbody {

// One frame's object, compact (no newline). time_s < 0: omitted (images).
std::string pose_frame_json(std::int64_t frame, double time_s, const std::vector<PersonPose>& people);

// The same as CSV ({stem}_pose.csv): the header line, then a row per person of a frame: frame,
// time_s (empty for images), id, detection_score, presence, box_x0..box_y1, then lm<i>_x, _y, _z,
// _visibility, _presence for the 33 landmarks and world<i>_x, _y, _z for the world landmarks.
std::string pose_csv_header();
std::string pose_csv_rows(std::int64_t frame, double time_s, const std::vector<PersonPose>& people);

// `text` into `file` atomically (ItemError naming `input` when it cannot be written).
void write_text_file(const std::string& file, const std::string& text, const std::string& input);

}  // namespace gp::segbody

// ByteTrack tracker on synthetic trajectories: state rules, zero identity switches on noisy
// non-crossing faces with missed and weak detections, and crossing faces keeping their IDs.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>
#include <vector>

#include "detection/tracker.hpp"

using namespace gp::detect;

namespace {

TrackerDetection square(float cx, float cy, float size, float score) {
  return {{cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2}, score};
}

// Which ground-truth face each reported ID showed and which IDs each face got.
struct IdentityLog {
  std::map<int, std::set<int>> faces_of_id, ids_of_face;
  std::map<int, int> frames_reported;  // per face
  void add(int id, int face) {
    faces_of_id[id].insert(face);
    ids_of_face[face].insert(id);
    frames_reported[face] += 1;
  }
  int switches() const {
    int n = 0;
    for (const auto& [face, ids] : ids_of_face) n += static_cast<int>(ids.size()) - 1;
    for (const auto& [id, faces] : faces_of_id) n += static_cast<int>(faces.size()) - 1;
    return n;
  }
};

}  // namespace

TEST_CASE("tracker: tentative, confirmed, lost, re-found and removed", "[detection]") {
  TrackerOptions options;
  options.min_hits = 3;
  options.max_lost_frames = 5;
  ByteTracker tracker(options);

  CHECK(tracker.update({square(100, 100, 50, 0.9f)}).confirmed.empty());  // tentative, hit 1
  REQUIRE(tracker.tracks().size() == 1);
  CHECK(tracker.tracks()[0].state == TrackState::tentative);
  CHECK(tracker.tracks()[0].id == 0);
  CHECK(tracker.update({square(102, 100, 50, 0.9f)}).confirmed.empty());  // hit 2
  auto frame = tracker.update({square(104, 100, 50, 0.9f)});              // hit 3: confirmed
  REQUIRE(frame.confirmed.size() == 1);
  CHECK(frame.confirmed[0].id == 1);
  CHECK(frame.confirmed[0].detection == 0);

  // A weak detection (second stage) keeps it; a weak detection alone starts nothing.
  frame = tracker.update({square(106, 100, 50, 0.3f), square(400, 400, 50, 0.3f)});
  REQUIRE(frame.confirmed.size() == 1);
  CHECK(frame.confirmed[0].detection == 0);
  CHECK(frame.confirmed[0].score == Approx(0.3f));
  CHECK(tracker.tracks().size() == 1);

  // Missed: lost, not reported, still predicted forward.
  frame = tracker.update({});
  CHECK(frame.confirmed.empty());
  REQUIRE(tracker.tracks().size() == 1);
  CHECK(tracker.tracks()[0].state == TrackState::lost);
  const float lost_center = (tracker.tracks()[0].box.x0 + tracker.tracks()[0].box.x1) / 2;
  CHECK(lost_center > 106.0f);
  // A weak detection does not revive a lost track; a confident one does, with the same ID.
  CHECK(tracker.update({square(110, 100, 50, 0.3f)}).confirmed.empty());
  frame = tracker.update({square(112, 100, 50, 0.9f)});
  REQUIRE(frame.confirmed.size() == 1);
  CHECK(frame.confirmed[0].id == 1);

  // A tentative track that misses one frame is dropped.
  tracker.update({square(112, 100, 50, 0.9f), square(400, 100, 50, 0.9f)});
  CHECK(tracker.tracks().size() == 2);
  tracker.update({square(112, 100, 50, 0.9f)});
  CHECK(tracker.tracks().size() == 1);

  // Lost for more than max_lost_frames: removed, reported once.
  std::vector<int> removed;
  for (int i = 0; i < 7; ++i) {
    const auto f = tracker.update({});
    removed.insert(removed.end(), f.removed_ids.begin(), f.removed_ids.end());
  }
  CHECK(removed == std::vector<int>{1});
  CHECK(tracker.tracks().empty());
  // A new face after that gets a new ID.
  for (int i = 0; i < 2; ++i) tracker.update({square(300, 300, 50, 0.9f)});
  frame = tracker.update({square(300, 300, 50, 0.9f)});
  REQUIRE(frame.confirmed.size() == 1);
  CHECK(frame.confirmed[0].id == 2);
}

TEST_CASE("tracker: zero identity switches on noisy non-crossing faces with misses", "[detection]") {
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(0.0f, 1.5f);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  struct Face {
    float x, y, vx, vy, size;
  };
  // Four faces in separate lanes, different speeds and sizes.
  const std::vector<Face> faces = {{50, 80, 4.0f, 0.5f, 60},
                                   {600, 260, -3.0f, 0.0f, 80},
                                   {200, 450, 2.0f, -0.3f, 50},
                                   {900, 650, -5.0f, 0.2f, 70}};
  ByteTracker tracker;
  IdentityLog log;
  const int frames = 150;
  std::map<int, int> detected;
  int confident_dropped = 0;
  for (int t = 0; t < frames; ++t) {
    std::vector<TrackerDetection> dets;
    std::vector<int> face_of_det;
    for (int f = 0; f < static_cast<int>(faces.size()); ++f) {
      const Face& face = faces[f];
      const bool gap = f == 1 && t >= 60 && t < 68;  // face 1 unseen for 8 frames
      if (gap || uniform(rng) < 0.1f) continue;       // and 10% random misses
      const float score = uniform(rng) < 0.15f ? 0.3f : 0.85f;  // some blurred, weak frames
      TrackerDetection d = square(face.x + face.vx * t, face.y + face.vy * t, face.size, score);
      d.box.x0 += noise(rng);
      d.box.y0 += noise(rng);
      d.box.x1 += noise(rng);
      d.box.y1 += noise(rng);
      dets.push_back(d);
      face_of_det.push_back(f);
      detected[f] += 1;
    }
    // Detections arrive in no particular order.
    std::vector<int> order(dets.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<TrackerDetection> shuffled;
    for (int i : order) shuffled.push_back(dets[i]);
    std::set<int> reported_now;
    for (const TrackView& v : tracker.update(shuffled).confirmed) {
      log.add(v.id, face_of_det[order[v.detection]]);
      reported_now.insert(face_of_det[order[v.detection]]);
    }
    // Once a face has an ID, every confident detection of it is reported (weak ones only while
    // its track is not lost, as ByteTrack).
    for (std::size_t i = 0; i < dets.size(); ++i)
      if (dets[i].score >= 0.5f && log.ids_of_face.count(face_of_det[i]) && !reported_now.count(face_of_det[i]))
        confident_dropped += 1;
  }
  CHECK(log.switches() == 0);
  CHECK(log.faces_of_id.size() == faces.size());
  CHECK(confident_dropped == 0);
  for (int f = 0; f < static_cast<int>(faces.size()); ++f) {
    INFO("face " << f << ": detected in " << detected[f] << " frames");
    CHECK(log.frames_reported[f] >= detected[f] * 0.85);
  }
}

TEST_CASE("tracker: crossing faces keep their IDs by constant velocity", "[detection]") {
  std::mt19937 rng(5);
  std::normal_distribution<float> noise(0.0f, 1.0f);
  for (const bool occluded : {false, true}) {
    INFO("face B hidden while crossing: " << occluded);
    ByteTracker tracker;
    IdentityLog log;
    for (int t = 0; t < 80; ++t) {
      // A moves right, B left, 10 px apart vertically, 10 px a frame each: they overlap around
      // t = 20. Without the velocity a track waits where it was last seen, half-way between
      // the two detections at the crossing, and far behind B when B comes out of hiding.
      std::vector<TrackerDetection> dets = {square(100 + 10.0f * t, 200, 60, 0.9f)};
      std::vector<int> face_of_det = {0};
      const bool hidden = occluded && t >= 18 && t < 24;
      if (!hidden) {
        dets.push_back(square(500 - 10.0f * t, 210, 60, 0.9f));
        face_of_det.push_back(1);
      }
      for (TrackerDetection& d : dets) {
        d.box.x0 += noise(rng);
        d.box.x1 += noise(rng);
      }
      for (const TrackView& v : tracker.update(dets).confirmed) log.add(v.id, face_of_det[v.detection]);
    }
    CHECK(log.switches() == 0);
    CHECK(log.faces_of_id.size() == 2);
    CHECK(log.frames_reported[0] >= 78);
    CHECK(log.frames_reported[1] >= (occluded ? 72 : 78));
  }
}

// Landmark smoothing per person (MediaPipe's pose_landmark_filtering): jitter of a still person
// goes down, a moving person is followed closely, filters start again after a gap, people without
// an ID pass unchanged.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "segment_body/pose_smoothing.hpp"

using namespace gp::segbody;

namespace {

// A person 200 px tall at (x0, 300), every landmark and world landmark shaken by `jitter`
// (alternating sign from frame to frame), visibility 1 on even frames and 0 on odd ones.
PersonPose person(int id, float x0, int frame, float jitter) {
  PersonPose p;
  p.id = id;
  const float shake = (frame % 2 ? -jitter : jitter);
  for (int i = 0; i < kPoseLandmarks; ++i) {
    p.landmarks[std::size_t(i)] = {x0 + float(i % 5) * 10 + shake, 200 + float(i) * 6 - shake, float(i) + shake,
                                   frame % 2 ? 0.0f : 1.0f, 1.0f};
    p.world[std::size_t(i)] = {0.01f * float(i % 5) + shake * 0.005f, 0.02f * float(i), shake * 0.005f};
  }
  p.auxiliary[0] = {x0 + 20, 300, 0, 1, 1};
  p.auxiliary[1] = {x0 + 20, 200, 0, 1, 1};  // alignment box 200 px: the speed scale
  update_box(p);
  return p;
}

double mean_step(const std::vector<PersonPose>& track, bool world) {
  double sum = 0;
  int n = 0;
  for (std::size_t f = 1; f < track.size(); ++f)
    for (int i = 0; i < kPoseLandmarks; ++i, ++n)
      sum += world ? std::abs(track[f].world[std::size_t(i)].x - track[f - 1].world[std::size_t(i)].x)
                   : std::abs(track[f].landmarks[std::size_t(i)].x - track[f - 1].landmarks[std::size_t(i)].x);
  return sum / n;
}

}  // namespace

TEST_CASE("pose smoothing: a still person's jitter goes down, visibility low-passed", "[segment_body]") {
  PoseSmoother smoother;
  std::vector<PersonPose> raw, smoothed;
  for (int f = 0; f < 60; ++f) {
    std::vector<PersonPose> people{person(1, 100, f, 0.5f)};
    raw.push_back(people[0]);
    smoother.smooth(people, 1.0 + f / 30.0);
    smoothed.push_back(people[0]);
  }
  // Raw: every landmark moves 1 px a frame (0.5% of the person's size). Smoothed, once settled: a
  // fifth of that (the slow jitter raises the cutoff only to about 1 Hz).
  const std::vector<PersonPose> settled(smoothed.begin() + 30, smoothed.end());
  INFO("steps: landmarks " << mean_step(settled, false) << " px, world " << mean_step(settled, true) << " m (raw "
                           << mean_step(raw, true) << ")");
  CHECK(mean_step(raw, false) == Approx(1.0));
  CHECK(mean_step(settled, false) < 0.2);
  CHECK(mean_step(settled, true) < 0.3 * mean_step(raw, true));
  CHECK(std::abs(settled.back().landmarks[7].x - (100 + 20)) < 0.5);  // the centre of the shaking
  // Visibility 1, 0, 1, 0...: low-passed with alpha 0.1 it stays near its start and moves slowly.
  CHECK(smoothed[0].landmarks[0].visibility == 1.0f);
  CHECK(smoothed[1].landmarks[0].visibility == Approx(0.9f));
  CHECK(smoothed[2].landmarks[0].visibility == Approx(0.91f));
  // The box follows the smoothed landmarks.
  CHECK(settled.back().box[0] == Approx(settled.back().landmarks[0].x).margin(1.0));
  CHECK(smoother.people_followed() == 1);
}

TEST_CASE("pose smoothing: a moving person is followed closely", "[segment_body]") {
  PoseSmoother smoother;
  double worst = 0;
  for (int f = 0; f < 40; ++f) {
    // 300 px/s to the right (10 px a frame at 30 frames/s), 0.5 px of jitter.
    std::vector<PersonPose> people{person(3, 100 + 10.0f * float(f), f, 0.5f)};
    const PersonPose raw = people[0];
    smoother.smooth(people, f / 30.0);
    if (f >= 10) worst = std::max(worst, double(std::abs(people[0].landmarks[0].x - raw.landmarks[0].x)));
  }
  // 1.5 person-sizes a second raise the cutoff to about 120 Hz: a lag of well under a pixel.
  CHECK(worst < 1.5);
}

TEST_CASE("pose smoothing: filters start again after a gap; people without an ID pass", "[segment_body]") {
  PoseSmoother smoother;
  for (int f = 0; f < 10; ++f) {
    std::vector<PersonPose> people{person(1, 100, f, 2.0f), person(2, 400, f, 2.0f)};
    smoother.smooth(people, 1.0 + f / 30.0);
  }
  CHECK(smoother.people_followed() == 2);
  // Person 2 missing for a frame: their filters go.
  std::vector<PersonPose> one{person(1, 100, 10, 2.0f)};
  smoother.smooth(one, 1.0 + 10 / 30.0);
  CHECK(smoother.people_followed() == 1);
  // Back, 300 px away: the first value passes as it is.
  std::vector<PersonPose> back{person(1, 100, 11, 2.0f), person(2, 700, 11, 2.0f)};
  const PersonPose raw = back[1];
  smoother.smooth(back, 1.0 + 11 / 30.0);
  CHECK(back[1].landmarks[5].x == raw.landmarks[5].x);
  CHECK(back[1].landmarks[5].visibility == raw.landmarks[5].visibility);
  // No ID yet: unchanged.
  std::vector<PersonPose> unconfirmed{person(0, 100, 12, 2.0f)};
  const PersonPose before = unconfirmed[0];
  smoother.smooth(unconfirmed, 1.0 + 12 / 30.0);
  CHECK(unconfirmed[0].landmarks[5].x == before.landmarks[5].x);
  CHECK(smoother.people_followed() == 0);
}

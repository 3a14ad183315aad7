// Which video frames stitch-360 takes (issue 27): all, every N, one per interval, the sharpest of
// each interval, within a time range; and the sharpness score itself (CPU reference).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "cuda/stitch/sharpness.hpp"
#include "stitch/frame_selection.hpp"

using gp::stitch::FrameSelector;
using gp::stitch::VideoSelection;

namespace {

// Offers `count` frames at `fps`; returns the kept indices (for Mode::sharpest with `scores`).
std::vector<std::int64_t> run(const VideoSelection& s, int count, double fps, const std::vector<double>& scores = {}) {
  FrameSelector selector(s);
  std::vector<std::int64_t> kept;
  for (int i = 0; i < count; ++i) {
    const double t = i / fps;
    const FrameSelector::Verdict v = selector.offer(t);
    if (v == FrameSelector::Verdict::past_end) break;
    if (v == FrameSelector::Verdict::keep) kept.push_back(i);
    if (v == FrameSelector::Verdict::score) {
      const FrameSelector::Scored r = selector.scored(i, t, scores.at(std::size_t(i)));
      if (r.closed) kept.push_back(*r.closed);
    }
  }
  if (const auto last = selector.finish()) kept.push_back(*last);
  return kept;
}

}  // namespace

TEST_CASE("frame selection: all, every N, one per interval, within a time range", "[stitch]") {
  VideoSelection s;
  s.start_s = 1.0;
  s.end_s = 2.0;
  const auto all = run(s, 90, 30);
  REQUIRE(all.size() == 30);
  CHECK((all.front() == 30 && all.back() == 59));
  s.mode = VideoSelection::Mode::every;
  s.every = 7;
  CHECK(run(s, 90, 30) == std::vector<std::int64_t>{30, 37, 44, 51, 58});
  s = VideoSelection{};
  s.mode = VideoSelection::Mode::interval;
  s.interval_s = 0.5;
  CHECK(run(s, 61, 30) == std::vector<std::int64_t>{0, 15, 30, 45, 60});
  // 29.97 fps: the first frame at or after each second.
  s.interval_s = 1.0;
  CHECK(run(s, 100, 30000.0 / 1001.0) == std::vector<std::int64_t>{0, 30, 60, 90});
}

TEST_CASE("frame selection: all and every N judged by the frame number alone, as in order", "[stitch]") {
  for (const int every : {1, 3, 7}) {
    VideoSelection s;
    s.mode = every == 1 ? VideoSelection::Mode::all : VideoSelection::Mode::every;
    s.every = every;
    const FrameSelector alone(s);
    std::vector<std::int64_t> kept;
    for (std::int64_t i = 99; i >= 0; --i)  // out of order, as parts decoded at once give them
      if (alone.offer_alone(i) == FrameSelector::Verdict::keep) kept.insert(kept.begin(), i);
    CHECK(kept == run(s, 100, 30));
  }
}

TEST_CASE("frame selection: the sharpest frame of each interval, holding one candidate", "[stitch]") {
  VideoSelection s;
  s.mode = VideoSelection::Mode::sharpest;
  s.interval_s = 1.0;
  s.start_s = 0.5;
  // 10 fps, 4 s: every frame blurred (score 1) but one per interval; ties keep the first.
  std::vector<double> scores(40, 1.0);
  scores[12] = 9;  // interval [0.5, 1.5): frames 5..14
  scores[22] = 5;  // [1.5, 2.5): 15..24
  scores[33] = 7;  // [2.5, 3.5): 25..34; [3.5, 4): 35..39 all 1: the first, 35
  CHECK(run(s, 40, 10, scores) == std::vector<std::int64_t>{12, 22, 33, 35});
  s.end_s = 2.5;
  CHECK(run(s, 40, 10, scores) == std::vector<std::int64_t>{12, 22});
}

TEST_CASE("sharpness: variance of the Laplacian, higher for a sharp frame than its blur", "[stitch]") {
  const int w = 64, h = 48;
  std::vector<std::uint8_t> flat(std::size_t(w) * h, 90), checker(flat), blurred(flat);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) checker[std::size_t(y) * w + x] = ((x / 4 + y / 4) % 2) ? 200 : 40;
  for (int y = 1; y + 1 < h; ++y)  // a 3x3 box blur of the checker
    for (int x = 1; x + 1 < w; ++x) {
      int sum = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) sum += checker[std::size_t(y + dy) * w + x + dx];
      blurred[std::size_t(y) * w + x] = std::uint8_t(sum / 9);
    }
  const auto view = [&](std::vector<std::uint8_t>& v) { return gp::packed_view(v.data(), w, h, 1, gp::PixelType::u8); };
  const auto score = [&](std::vector<std::uint8_t>& v) {
    return gp::stitch::laplacian_variance(gp::stitch::laplacian_sums_cpu(view(v)), w, h);
  };
  CHECK(score(flat) == 0.0);
  CHECK(score(checker) > 4 * score(blurred));
  // By hand: a single bright pixel in a flat field: L = -4d at it, +d at its four neighbours.
  std::vector<std::uint8_t> dot(flat);
  dot[std::size_t(20) * w + 30] = 190;  // d = 100
  const gp::stitch::LaplacianSums sums = gp::stitch::laplacian_sums_cpu(view(dot));
  CHECK(sums.sum == 0);
  CHECK(sums.sum_squares == 16 * 10000 + 4 * 10000);
}

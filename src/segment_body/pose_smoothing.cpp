#include "segment_body/pose_smoothing.hpp"

#include <cmath>
#include <cstdint>
#include <set>

namespace gp::segbody {
namespace {

constexpr float kVisibilityAlpha = 0.1f;
constexpr detect::OneEuroOptions kLandmarkFilter{30, 0.05, 80, 1};
constexpr detect::OneEuroOptions kWorldFilter{30, 0.1, 40, 1};
constexpr detect::OneEuroOptions kAuxiliaryFilter{30, 0.01, 10, 1};
constexpr float kMinObjectScale = 1e-6f;  // LandmarksSmoothingCalculator's min_allowed_object_scale

}  // namespace

PoseSmoother::PersonFilters::PersonFilters()
    : visibility(kPoseLandmarks, detect::LowPassFilter(kVisibilityAlpha)),
      auxiliary_visibility(2, detect::LowPassFilter(kVisibilityAlpha)),
      landmarks(kPoseLandmarks, Xyz(kLandmarkFilter)),
      world(kPoseLandmarks, Xyz(kWorldFilter)),
      auxiliary(2, Xyz(kAuxiliaryFilter)) {}

template <class Point>
void PoseSmoother::filter_points(std::vector<Xyz>& filters, Point* points, std::size_t count, std::int64_t time_ns,
                                 double value_scale) {
  for (std::size_t i = 0; i < count; ++i) {
    points[i].x = float(filters[i].x.apply(time_ns, value_scale, points[i].x));
    points[i].y = float(filters[i].y.apply(time_ns, value_scale, points[i].y));
    points[i].z = float(filters[i].z.apply(time_ns, value_scale, points[i].z));
  }
}

void PoseSmoother::smooth(std::vector<PersonPose>& people, double time_s) {
  const auto ns = std::int64_t(std::llround(time_s * 1e9));
  std::set<int> seen;
  for (PersonPose& p : people) {
    if (p.id <= 0) continue;
    seen.insert(p.id);
    PersonFilters& f = filters_[p.id];
    // The object scale of both image-landmark filters: the alignment box of the unfiltered
    // auxiliary landmarks (AlignmentPointsRectsCalculator: twice the centre-to-scale-point distance).
    const double object_scale =
        2.0 * std::hypot(p.auxiliary[1].x - p.auxiliary[0].x, p.auxiliary[1].y - p.auxiliary[0].y);
    for (int i = 0; i < kPoseLandmarks; ++i) p.landmarks[i].visibility = f.visibility[i].apply(p.landmarks[i].visibility);
    for (int i = 0; i < 2; ++i) p.auxiliary[i].visibility = f.auxiliary_visibility[i].apply(p.auxiliary[i].visibility);
    if (object_scale >= kMinObjectScale) {
      filter_points(f.landmarks, p.landmarks.data(), p.landmarks.size(), ns, 1.0 / object_scale);
      filter_points(f.auxiliary, p.auxiliary.data(), p.auxiliary.size(), ns, 1.0 / object_scale);
    }
    filter_points(f.world, p.world.data(), p.world.size(), ns, 1.0);
    update_box(p);
  }
  for (auto it = filters_.begin(); it != filters_.end();) it = seen.count(it->first) ? std::next(it) : filters_.erase(it);
}

}  // namespace gp::segbody

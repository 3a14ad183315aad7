#pragma once
// Landmark smoothing for the people of a video, as MediaPipe's pose_landmark_filtering.pbtxt does
// it for its one person, here per person ID (the video's tracker gives them):
//   - landmark visibilities: low-pass, alpha 0.1;
//   - landmarks (pixels, z as x): 1-euro, min_cutoff 0.05, beta 80, derivate_cutoff 1, the speed
//     scaled by the person's size (the side of the auxiliary landmarks' alignment box, in pixels);
//   - world landmarks (metres): 1-euro, min_cutoff 0.1, beta 40, derivate_cutoff 1, unscaled;
//   - auxiliary landmarks (the next frame's ROI in streaming mode): 1-euro, min_cutoff 0.01,
//     beta 10, derivate_cutoff 1, scaled as the landmarks.
// A person's filters start again when the person is missing from a frame (MediaPipe resets on an
// empty frame); people without an ID yet (an unconfirmed track) pass unsmoothed.
#include <cstdint>
#include <map>
#include <vector>

#include "detection/landmark_filters.hpp"
#include "segment_body/pose_model.hpp"

namespace gp::segbody {

class PoseSmoother {
 public:
  // people: one frame's, in frame order, at `time_s` (increasing from frame to frame).
  void smooth(std::vector<PersonPose>& people, double time_s);
  std::size_t people_followed() const { return filters_.size(); }

 private:
  struct Xyz {
    explicit Xyz(const detect::OneEuroOptions& o) : x(o), y(o), z(o) {}
    detect::OneEuroFilter x, y, z;
  };
  struct PersonFilters {
    PersonFilters();
    std::vector<detect::LowPassFilter> visibility, auxiliary_visibility;
    std::vector<Xyz> landmarks, world, auxiliary;
  };
  template <class Point>
  static void filter_points(std::vector<Xyz>& filters, Point* points, std::size_t count, std::int64_t time_ns,
                            double value_scale);
  std::map<int, PersonFilters> filters_;
};

}  // namespace gp::segbody

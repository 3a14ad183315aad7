#include "detection/landmark_filters.hpp"

#include <cmath>

namespace gp::detect {

float LowPassFilter::apply(float value) {
  // float arithmetic with a double (1.0 - alpha) as MediaPipe's low_pass_filter.cc
  const float result = initialized_ ? float(alpha_ * value + (1.0 - alpha_) * stored_) : value;
  initialized_ = true;
  raw_ = value;
  stored_ = result;
  return result;
}

double OneEuroFilter::alpha(double cutoff) const {
  const double te = 1.0 / frequency_;
  const double tau = 1.0 / (2 * M_PI * cutoff);
  return 1.0 / (1.0 + tau / te);
}

double OneEuroFilter::apply(std::int64_t time_ns, double value_scale, double value) {
  if (last_ns_ >= time_ns) return value;
  if (last_ns_ != 0 && time_ns != 0) frequency_ = 1.0 / (double(time_ns - last_ns_) * 1e-9);
  last_ns_ = time_ns;
  const double speed = x_.has_last_raw() ? (value - x_.last_raw()) * value_scale * frequency_ : 0.0;
  const double smoothed_speed = dx_.apply(float(speed), float(alpha(o_.derivate_cutoff)));
  const double cutoff = o_.min_cutoff + o_.beta * std::fabs(smoothed_speed);
  return x_.apply(float(value), float(alpha(cutoff)));
}

}  // namespace gp::detect

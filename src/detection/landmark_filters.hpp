#pragma once
// MediaPipe's temporal filters for landmarks (mediapipe/util/filtering), as its graphs use them to
// take the jitter out of landmarks in video (LandmarksSmoothingCalculator,
// VisibilitySmoothingCalculator): the same arithmetic, so smoothed landmarks match its builds.
#include <cstdint>

namespace gp::detect {

// Exponential smoothing: the first value passes; then alpha * value + (1 - alpha) * previous.
class LowPassFilter {
 public:
  explicit LowPassFilter(float alpha = 1.0f) : alpha_(alpha) {}
  float apply(float value);
  float apply(float value, float alpha) {
    alpha_ = alpha;
    return apply(value);
  }
  bool has_last_raw() const { return initialized_; }
  float last_raw() const { return raw_; }

 private:
  float alpha_;
  float raw_ = 0, stored_ = 0;
  bool initialized_ = false;
};

struct OneEuroOptions {
  double frequency = 30;  // frames/s until two timestamps give the real rate
  double min_cutoff = 1;  // Hz: the smoothing of a still value
  double beta = 0;        // how fast the cutoff rises with the value's speed
  double derivate_cutoff = 1;
};

// The 1-euro filter (Casiez et al. 2012) as MediaPipe's OneEuroFilter computes it: the speed is
// (value - last raw value) * value_scale * frequency, low-passed at derivate_cutoff; the value is
// low-passed at min_cutoff + beta * |speed|. value_scale makes the speed independent of the
// object's size in the image (1 / its size in pixels for image landmarks, 1 for metres).
// Timestamps must increase; a value at a timestamp not after the last one passes unfiltered.
class OneEuroFilter {
 public:
  explicit OneEuroFilter(const OneEuroOptions& options) : o_(options), frequency_(options.frequency) {}
  double apply(std::int64_t time_ns, double value_scale, double value);

 private:
  double alpha(double cutoff) const;
  OneEuroOptions o_;
  double frequency_;
  LowPassFilter x_, dx_;
  std::int64_t last_ns_ = 0;
};

}  // namespace gp::detect

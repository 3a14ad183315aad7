#pragma once
// Numbers as run reports give them: rounded to 3 decimals, and latency percentiles.
#include <algorithm>
#include <cmath>
#include <vector>

namespace gp {

inline double round3(double x) { return std::round(x * 1000.0) / 1000.0; }
// Microseconds: a fast stage of a small job takes well under a millisecond.
inline double round6(double x) { return std::round(x * 1e6) / 1e6; }

// Nearest-rank percentile (q in [0, 1]) of the values; 0 when there are none.
inline double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t rank = std::size_t(std::ceil(q * double(values.size())));
  return values[std::min(values.size() - 1, rank > 0 ? rank - 1 : 0)];
}

}  // namespace gp

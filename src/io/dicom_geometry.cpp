#include "io/dicom_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "core/error.hpp"

namespace gp::io::dicom {
namespace {

using Vec3 = std::array<double, 3>;

Vec3 normalised(Vec3 v) {
  const double length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (length > 0)
    for (double& c : v) c /= length;
  return v;
}

Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

Vec3 slice_normal(const FrameGeometry& g) {
  const auto& o = g.orientation;
  return normalised(cross({o[0], o[1], o[2]}, {o[3], o[4], o[5]}));
}

std::string mm(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.6g", v);
  return s;
}

std::string label(const FrameRecord& f) {
  return f.multi_frame ? f.path + " (frame " + std::to_string(f.frame) + ")" : f.path;
}

std::string vector_text(const double* v, int n) {
  std::string s = "(";
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + mm(v[i]);
  return s + ")";
}

void check_same_plane_grid(const std::vector<FrameRecord>& frames, const std::string& name) {
  const FrameRecord& ref = frames.front();
  for (const auto& f : frames) {
    const auto& a = ref.geometry;
    const auto& b = f.geometry;
    bool same = a.has_orientation == b.has_orientation;
    for (int i = 0; i < 6 && same; ++i) same = std::abs(a.orientation[std::size_t(i)] - b.orientation[std::size_t(i)]) <= 1e-4;
    if (!same)
      throw ItemError(name, "load", "image orientations differ: " + label(ref) + " " +
                                        (a.has_orientation ? vector_text(a.orientation.data(), 6) : "(none)") + ", " +
                                        label(f) + " " + (b.has_orientation ? vector_text(b.orientation.data(), 6) : "(none)"));
    same = a.has_spacing == b.has_spacing && std::abs(a.row_spacing - b.row_spacing) <= 1e-4 * a.row_spacing &&
           std::abs(a.column_spacing - b.column_spacing) <= 1e-4 * a.column_spacing;
    if (!same)
      throw ItemError(name, "load", "pixel spacings differ: " + label(ref) + " " +
                                        (a.has_spacing ? mm(a.row_spacing) + "\\" + mm(a.column_spacing) : "(none)") + ", " +
                                        label(f) + " " + (b.has_spacing ? mm(b.row_spacing) + "\\" + mm(b.column_spacing) : "(none)"));
  }
}

// Positions along the normal, sorted, must be distinct and evenly spaced.
void check_positions(const std::vector<FrameRecord>& frames, const std::vector<std::size_t>& order,
                     const std::vector<double>& key, const std::string& name) {
  const std::size_t n = order.size();
  std::vector<double> gaps(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i) gaps[i] = key[order[i + 1]] - key[order[i]];
  std::vector<double> sorted = gaps;
  std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(sorted.size() / 2), sorted.end());
  const double typical = sorted[sorted.size() / 2];
  auto between = [&](std::size_t i) { return label(frames[order[i]]) + " and " + label(frames[order[i + 1]]); };
  for (std::size_t i = 0; i + 1 < n; ++i)
    if (gaps[i] <= std::max(1e-9, 1e-3 * typical))
      throw ItemError(name, "load", between(i) + " are at the same slice position (" + mm(key[order[i]]) +
                                        " mm along the slice normal)");
  // The gap furthest from the typical one; 20% leeway for positions rounded in the files.
  std::size_t worst = 0;
  for (std::size_t i = 1; i + 1 < n; ++i)
    if (std::abs(gaps[i] - typical) > std::abs(gaps[worst] - typical)) worst = i;
  const double ratio = gaps[worst] / typical;
  if (std::abs(ratio - 1) > 0.2) {
    const long missing = std::lround(ratio) - 1;
    if (ratio > 1.5 && std::abs(ratio - std::round(ratio)) < 0.2)
      throw ItemError(name, "load", "about " + std::to_string(missing) + " slice" + (missing > 1 ? "s" : "") +
                                        " missing between " + between(worst) + ": they are " + mm(gaps[worst]) +
                                        " mm apart, the other slices " + mm(typical) + " mm");
    throw ItemError(name, "load", "slice spacing is not uniform: " + mm(gaps[worst]) + " mm between " + between(worst) +
                                      ", " + mm(typical) + " mm between most slices");
  }
  // Small deviations that add up (a slowly changing spacing) also leave the grid.
  const double step = (key[order[n - 1]] - key[order[0]]) / double(n - 1);
  for (std::size_t k = 0; k < n; ++k)
    if (std::abs(key[order[k]] - (key[order[0]] + double(k) * step)) > 0.2 * typical) {
      const auto [low, high] = std::minmax_element(gaps.begin(), gaps.end());
      throw ItemError(name, "load", "slice spacing is not uniform: from " + mm(*low) + " mm (" +
                                        between(std::size_t(low - gaps.begin())) + ") to " + mm(*high) + " mm (" +
                                        between(std::size_t(high - gaps.begin())) + ")");
    }
}

}  // namespace

void place_legacy_frame(const FrameGeometry& top, const std::vector<double>& grid_offsets, int k, FrameGeometry& frame) {
  double offset;
  if (grid_offsets.size() > std::size_t(k))
    offset = grid_offsets[std::size_t(k)] - (grid_offsets.empty() ? 0 : grid_offsets[0]);
  else if (top.between > 0)
    offset = k * top.between;
  else if (top.thickness > 0)
    offset = k * top.thickness;
  else
    return;
  const Vec3 normal = slice_normal(top);
  for (int c = 0; c < 3; ++c) frame.position[std::size_t(c)] = top.position[std::size_t(c)] + offset * normal[std::size_t(c)];
  frame.has_position = true;
}

SeriesLayout lay_out_frames(const std::vector<FrameRecord>& frames, const std::string& name) {
  if (frames.empty()) throw ItemError(name, "load", "no frames");
  check_same_plane_grid(frames, name);
  const FrameGeometry& ref = frames.front().geometry;
  SeriesLayout layout;
  const auto& o = ref.orientation;
  layout.axes = {normalised({o[0], o[1], o[2]}), normalised({o[3], o[4], o[5]}), slice_normal(ref)};
  if (ref.has_spacing) {
    layout.spacing.x = ref.column_spacing;
    layout.spacing.y = ref.row_spacing;
  } else {
    layout.notes.push_back("no PixelSpacing (1 assumed)");
  }

  const std::size_t n = frames.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  const bool positioned = std::all_of(frames.begin(), frames.end(), [](const auto& f) { return f.geometry.has_position; });
  bool z_from_positions = false;
  if (positioned) {
    std::vector<double> key(n);
    for (std::size_t i = 0; i < n; ++i) key[i] = dot(frames[i].geometry.position, layout.axes[2]);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    if (n > 1) {
      check_positions(frames, order, key, name);
      layout.spacing.z = (key[order[n - 1]] - key[order[0]]) / double(n - 1);
      z_from_positions = true;
    }
    layout.origin = frames[order[0]].geometry.position;
  } else {
    // Without positions the files' InstanceNumbers (then frame numbers) give the order.
    const bool several_files =
        std::any_of(frames.begin(), frames.end(), [&](const auto& f) { return f.file != frames.front().file; });
    for (const auto& f : frames)
      if (several_files && !f.has_instance)
        throw ItemError(name, "load", "cannot order the slices: " + label(f) + " has neither ImagePositionPatient nor InstanceNumber");
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return std::make_pair(frames[a].instance, frames[a].frame) < std::make_pair(frames[b].instance, frames[b].frame);
    });
    for (std::size_t i = 0; i + 1 < n; ++i) {
      const auto& a = frames[order[i]];
      const auto& b = frames[order[i + 1]];
      if (a.instance == b.instance && a.frame == b.frame)
        throw ItemError(name, "load", a.path + " and " + b.path + " have the same InstanceNumber " +
                                          std::to_string(a.instance) + " and no ImagePositionPatient to order them");
    }
    if (n > 1) layout.notes.push_back("ordered by InstanceNumber (no ImagePositionPatient)");
    if (frames[order[0]].geometry.has_position) layout.origin = frames[order[0]].geometry.position;
  }
  if (!z_from_positions) {
    if (ref.between > 0) {
      layout.spacing.z = ref.between;
    } else if (ref.thickness > 0) {
      layout.spacing.z = ref.thickness;
    } else {
      layout.spacing.z = layout.spacing.x;
      if (n > 1) layout.notes.push_back("no slice spacing (x spacing assumed)");
    }
  }
  for (std::size_t i : order) layout.order.push_back({frames[i].file, frames[i].frame});
  return layout;
}

}  // namespace gp::io::dicom

// The slice-layout rules on their own: tolerance to rounded positions, drift, mixed planes, oblique
// orientations, legacy multi-frame placement.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/error.hpp"
#include "io/dicom_geometry.hpp"

using Catch::Matchers::Contains;
using gp::io::dicom::FrameGeometry;
using gp::io::dicom::FrameRecord;
using gp::io::dicom::lay_out_frames;

namespace {

// Single-frame files at the given positions along z, axial orientation.
std::vector<FrameRecord> along_z(const std::vector<double>& z) {
  std::vector<FrameRecord> frames;
  for (std::size_t i = 0; i < z.size(); ++i) {
    FrameRecord f;
    f.file = int(i);
    f.path = "f" + std::to_string(i);
    f.has_instance = true;
    f.instance = long(i);
    f.geometry.has_orientation = true;
    f.geometry.has_spacing = true;
    f.geometry.row_spacing = 0.5;
    f.geometry.column_spacing = 0.25;
    f.geometry.has_position = true;
    f.geometry.position = {1, 2, z[i]};
    frames.push_back(f);
  }
  return frames;
}

std::string layout_error(const std::vector<FrameRecord>& frames) {
  try {
    lay_out_frames(frames, "series");
  } catch (const gp::ItemError& e) {
    return e.what();
  }
  FAIL("no error");
  return {};
}

}  // namespace

TEST_CASE("positions rounded in the files are accepted; the mean step is the spacing", "[io][dicom]") {
  std::vector<double> z;
  for (int i = 0; i < 20; ++i) z.push_back(std::round(i * 0.625 * 10) / 10);  // 0, 0.6, 1.2, 1.9, 2.5, ...
  auto frames = along_z(z);
  std::swap(frames[3].geometry.position, frames[11].geometry.position);  // file 3 now lies where slice 11 belongs
  const auto layout = lay_out_frames(frames, "series");
  CHECK(layout.spacing.z == Approx((z.back() - z.front()) / 19));
  CHECK(layout.spacing.x == 0.25);
  CHECK(layout.spacing.y == 0.5);
  REQUIRE(layout.order.size() == 20);
  CHECK(layout.order[3].file == 11);
  CHECK(layout.order[11].file == 3);
}

TEST_CASE("a slowly changing spacing is refused", "[io][dicom]") {
  std::vector<double> z{0};
  for (int i = 1; i < 12; ++i) z.push_back(z.back() + 1 + 0.03 * i);  // each gap within 20%, the sum is not
  const std::string what = layout_error(along_z(z));
  CHECK_THAT(what, Contains("slice spacing is not uniform: from 1.03 mm (f0 and f1) to 1.33 mm (f10 and f11)"));
}

TEST_CASE("frames of different planes or pixel spacings are refused", "[io][dicom]") {
  auto frames = along_z({0, 1, 2});
  SECTION("orientation") {
    frames[2].geometry.orientation = {1, 0, 0, 0, 0.8, 0.6};
    CHECK_THAT(layout_error(frames), Contains("image orientations differ: f0 (1, 0, 0, 0, 1, 0), f2 (1, 0, 0, 0, 0.8, 0.6)"));
  }
  SECTION("pixel spacing") {
    frames[1].geometry.row_spacing = 0.6;
    CHECK_THAT(layout_error(frames), Contains("pixel spacings differ: f0 0.5\\0.25, f1 0.6\\0.25"));
  }
}

TEST_CASE("oblique orientation: order and spacing along the slice normal", "[io][dicom]") {
  // Rows along x, columns along (0, cos, sin): the normal is (0, -sin, cos).
  const double c = 0.8, s = 0.6;
  std::vector<FrameRecord> frames;
  for (int i : {2, 0, 1}) {
    FrameRecord f;
    f.file = i;
    f.path = "o" + std::to_string(i);
    f.geometry.has_orientation = true;
    f.geometry.orientation = {1, 0, 0, 0, c, s};
    f.geometry.has_position = true;
    f.geometry.position = {0, -s * 1.5 * i, c * 1.5 * i};
    frames.push_back(f);
  }
  const auto layout = lay_out_frames(frames, "series");
  CHECK(layout.spacing.z == Approx(1.5));
  CHECK(layout.order[0].file == 0);
  CHECK(layout.order[2].file == 2);
  CHECK(layout.axes[2][1] == Approx(-s));
  CHECK(layout.axes[2][2] == Approx(c));
  CHECK(layout.axes[1][2] == Approx(s));
}

TEST_CASE("legacy multi-frame placement: GridFrameOffsetVector, then SpacingBetweenSlices", "[io][dicom]") {
  FrameGeometry top;
  top.has_position = true;
  top.position = {0, 0, 10};
  top.between = 2;
  FrameGeometry frame;
  gp::io::dicom::place_legacy_frame(top, {100, 103, 107}, 2, frame);  // absolute offsets: relative to the first
  REQUIRE(frame.has_position);
  CHECK(frame.position[2] == Approx(17));
  FrameGeometry by_spacing;
  gp::io::dicom::place_legacy_frame(top, {}, 3, by_spacing);
  CHECK(by_spacing.position[2] == Approx(16));
  FrameGeometry unknown;
  top.between = 0;
  gp::io::dicom::place_legacy_frame(top, {}, 3, unknown);
  CHECK_FALSE(unknown.has_position);
}

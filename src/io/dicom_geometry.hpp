#pragma once
// Where DICOM frames lie and how they form one volume: ordering by position along the slice normal
// (InstanceNumber when positions are missing) and the checks that they make one regular grid.
// Free of DCMTK, so the rules can be tested on their own.
#include <array>
#include <string>
#include <vector>

#include "io/volume.hpp"

namespace gp::io::dicom {

// One frame's plane and rescale, merged from the dataset, shared and per-frame functional groups.
struct FrameGeometry {
  bool has_orientation = false;
  std::array<double, 6> orientation{1, 0, 0, 0, 1, 0};  // ImageOrientationPatient: row then column direction
  bool has_position = false;
  std::array<double, 3> position{0, 0, 0};  // ImagePositionPatient: centre of the first pixel
  bool has_spacing = false;
  double row_spacing = 1, column_spacing = 1;  // PixelSpacing: between rows (y), between columns (x)
  double thickness = 0, between = 0;           // SliceThickness, SpacingBetweenSlices; 0 = not given
  double slope = 1, intercept = 0;             // RescaleSlope, RescaleIntercept
};

// Frame k of a legacy multi-frame object without per-frame positions: `top`'s position moved along
// the slice normal by GridFrameOffsetVector[k] (when it has a value per frame), else by k *
// SpacingBetweenSlices, else by k * SliceThickness. Leaves `frame` without a position otherwise.
void place_legacy_frame(const FrameGeometry& top, const std::vector<double>& grid_offsets, int k, FrameGeometry& frame);

struct FrameRecord {
  int file = 0, frame = 0;
  std::string path;          // for messages
  bool multi_frame = false;  // messages then name the frame too
  bool has_instance = false;
  long instance = 0;         // InstanceNumber of the file
  FrameGeometry geometry;
};

struct FramePlace {
  int file = 0, frame = 0;
};

struct SeriesLayout {
  std::vector<FramePlace> order;  // frames in z order
  Spacing3 spacing;
  std::array<double, 3> origin{0, 0, 0};
  std::array<std::array<double, 3>, 3> axes{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  std::vector<std::string> notes;  // for the description: fallbacks taken
};

// Orders `frames` and checks that they make one volume: one orientation and pixel spacing, no two
// frames at one position, and evenly spaced positions (a gap of about k spacings reads as k - 1
// missing slices). Throws gp::ItemError(name, "load", ...) naming the frames concerned.
SeriesLayout lay_out_frames(const std::vector<FrameRecord>& frames, const std::string& name);

}  // namespace gp::io::dicom

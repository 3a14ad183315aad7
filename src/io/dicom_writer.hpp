#pragma once
// Volumes written as DICOM (DCMTK): a series of CT Image Storage files, one per slice, or one
// Enhanced CT multi-frame object; int16 stored values with a slope/intercept. Every UID derives
// from a seed and no date or time comes from the clock, so the files are byte-identical run to run.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "io/volume.hpp"

namespace gp::io {

struct DicomWriteOptions {
  // explicit (explicit VR little endian) | rle (RLE lossless) | jpeg-ls (JPEG-LS lossless) |
  // jpeg-lossless (JPEG lossless, first-order prediction, SV1)
  std::string transfer_syntax = "explicit";
  bool multi_frame = false;  // one Enhanced CT object (per-frame positions) instead of a file per slice
  // stored = round((value - intercept) / slope), clamped to int16; readers get value back within slope / 2.
  double slope = 1, intercept = 0;
  std::array<double, 6> orientation{1, 0, 0, 0, 1, 0};  // ImageOrientationPatient: row, column direction
  std::uint64_t seed = 1;  // study, series, frame of reference and instance UIDs derive from it
  std::string modality = "CT";
  std::string series_description = "gpuproc synthetic volume";
  // Series: <prefix>0001.dcm, <prefix>0002.dcm, ... in slice order; multi-frame: <prefix>.dcm.
  std::string file_prefix = "slice";
  // InstanceNumber of slice z (series) = first + z * step; the multi-frame object has `first`.
  // SOPInstanceUIDs derive from the seed and the instance number.
  int first_instance_number = 1, instance_number_step = 1;
  bool write_positions = true;  // ImagePositionPatient (per frame); false: readers order by InstanceNumber
  int threads = 0;              // files encoded at once; 0 = gp::cpu_thread_count()
};

// Writes `volume` (its spacing; its origin as the position of voxel 0, 0, 0; slices along the
// normal of the orientation) into `folder` (created if needed), each file atomically. Returns the
// paths in slice order. Throws gp::UsageError for bad options, gp::Error when encoding or writing fails.
std::vector<std::string> write_dicom(const Volume& volume, const std::string& folder, const DicomWriteOptions& options);

// A DICOM UID ("2.25.<decimal>") that is a pure function of (seed, kind, index).
std::string deterministic_uid(std::uint64_t seed, std::uint64_t kind, std::uint64_t index);

}  // namespace gp::io

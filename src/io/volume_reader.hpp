#pragma once
// Volume inputs for segment-pnm: DICOM series and multi-frame objects (DCMTK), TIFF stacks and
// multi-page TIFFs (OpenImageIO module), and raw files, cropped and block-averaged on the way in.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/slice_source.hpp"
#include "io/volume.hpp"

namespace gp::io {

// A headerless volume file: x fastest, then y, then z, no padding between slices.
struct RawFormat {
  Dims3 dims;
  std::string dtype = "uint16";  // uint8 int8 uint16 int16 uint32 int32 float32 float64
  bool big_endian = false;
  std::uint64_t header_bytes = 0;  // skipped at the start of the file
};

struct VolumeReadOptions {
  std::string format = "auto";  // auto | dicom | tiff | raw | nrrd | metaimage
  RawFormat raw;                // format raw (auto picks raw for a single file when raw.dims are given)
  // Voxel size for raw and TIFF inputs (default 1, 1, 1); for DICOM, which has its own, given = override.
  Spacing3 spacing;
  bool spacing_given = false;
  double slope = 1, intercept = 0;  // raw/TIFF: value = stored * slope + intercept (DICOM uses its tags)
  // Region of the source in voxels (after DICOM slices are sorted); size 0 = to the end.
  std::array<int, 3> crop_begin{0, 0, 0}, crop_size{0, 0, 0};
  // Mean over factor^3 blocks after cropping; spacing is scaled by the factor. The cropped size
  // is rounded down to whole blocks (the far remainder is dropped).
  int downsample = 1;
  int threads = 0;  // 0 = gp::cpu_thread_count()
  // Refused from the header's (or config's) dims after crop and downsample, before any sample is
  // read: more voxels than this (0 = no limit), or values (4 bytes a voxel) larger than the
  // machine's physical memory.
  std::uint64_t max_voxels = 0;
  std::string max_voxels_reason;  // why, for the message: "markers are 32-bit voxel indices"
  // Non-empty: a volume of one slice (a single DICOM or one-page TIFF, or a crop one slice deep)
  // is refused with this reason, before it is read ("a pore network needs a 3D volume").
  std::string single_slice_refusal;
};

// One volume from: a folder (a DICOM series, or a TIFF stack, told apart by content; or the one
// NRRD or MetaImage header it holds), one file (DICOM, possibly multi-frame; TIFF, possibly
// multi-page; NRRD .nrrd/.nhdr; MetaImage .mhd/.mha; raw), or several files forming one DICOM
// series or TIFF stack. Folders are not searched recursively; files in a folder that are not
// of the volume's kind (README, DICOMDIR, thumbnails) are skipped and counted in the description.
// TIFF stacks are ordered by file name, numbers compared by value (slice2 before slice10); every
// file's header is checked first (one page, the first file's size and sample type), and when the
// names carry numbers a gap in them is refused as a missing slice.
// NRRD and MetaImage: dims, sample type, byte order, spacing, origin and axis directions from the
// header; raw or gzip/zlib data, attached or in one data file (see volume_headers.hpp).
// DICOM: slices ordered by ImagePositionPatient along the slice normal (InstanceNumber when
// positions are missing), rescaled by RescaleSlope/Intercept (per frame where given); spacing from
// PixelSpacing and the slice positions. Inconsistent series (several series, mixed sizes,
// duplicate positions, missing slices, non-uniform spacing) are refused naming the files.
// Volume::origin: DICOM: patient coordinates (mm) of voxel (0, 0, 0); NRRD/MetaImage: the
// header's origin; others: crop offset * spacing. Volume::direction: DICOM ImageOrientationPatient
// and the slice normal, NRRD space directions, MetaImage TransformMatrix; else the identity.
// DICOM PixelPaddingValue (and PixelPaddingRangeLimit): padding voxels read as NaN (see Volume).
// Throws gp::ItemError(path, "load", what) for unreadable or inconsistent inputs and
// gp::UsageError for invalid options.
Volume read_volume(const std::vector<std::string>& paths, const VolumeReadOptions& options);

// The same volume opened for reading slab by slab (slice_source.hpp): headers and the size limits
// are read and checked now, the slices when asked for. read_volume is open_volume(...)->read_all().
std::unique_ptr<VolumeStream> open_volume(const std::vector<std::string>& paths, const VolumeReadOptions& options);

// Size in bytes of one sample of a RawFormat dtype; throws gp::UsageError for unknown names.
std::size_t raw_dtype_bytes(const std::string& dtype);

}  // namespace gp::io

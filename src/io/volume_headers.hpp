#pragma once
// Volumes with a text header: NRRD (.nrrd with the data attached, .nhdr detached; teem's NRRD0001
// to NRRD0005) and MetaImage (.mhd with a data file, .mha with LOCAL data; ITK's MetaIO). The
// headers are parsed here; the samples are read by raw_volume (open_sample_file).
#include <memory>
#include <string>

#include "io/raw_volume.hpp"
#include "io/slice_source.hpp"

namespace gp::io {

// True when the file starts with NRRD's magic ("NRRD000").
bool looks_like_nrrd(const std::string& path);
// True for a file named *.mhd or *.mha whose first non-blank line is a MetaImage "Key = value".
bool looks_like_metaimage(const std::string& path);

// A parsed header: where the samples are, and the geometry it states.
struct HeaderVolume {
  SampleFile samples;
  Spacing3 spacing;
  std::array<double, 3> origin{0, 0, 0};
  std::array<std::array<double, 3>, 3> axes{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  bool lps = false;
  std::string length_unit;
  std::string description;  // "NRRD uint16 gzip, 64x64x40"
};

// Parse the header only (nothing of the data is read). Throws gp::ItemError(path, "load", ...)
// naming the field for headers that are malformed or ask for what is not supported (other
// encodings, more than 3 dimensions, several data files, several channels).
HeaderVolume read_nrrd_header(const std::string& path);
HeaderVolume read_metaimage_header(const std::string& path);

// The volume of a header file, spacing overridable by the options. Values are stored * slope +
// intercept from the options, as for raw files.
std::unique_ptr<SliceSource> open_header_volume(const std::string& path, bool nrrd, const VolumeReadOptions& options);

}  // namespace gp::io

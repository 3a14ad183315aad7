#pragma once
// Headerless volume files (RawFormat), read a slice at a time with pread.
#include <memory>
#include <string>

#include "io/slice_source.hpp"
#include "io/volume_reader.hpp"

namespace gp::io {

// Checks the file's size against the format (it must hold exactly header + voxels * sample bytes).
// Values are stored * options.slope + options.intercept; spacing from options (default 1).
std::unique_ptr<SliceSource> open_raw_volume(const std::string& path, const VolumeReadOptions& options);

}  // namespace gp::io

#pragma once
// TIFF stacks (one page per file, in the given order) and multi-page TIFFs, through the
// OpenImageIO module (GreyPages). Any single-channel format OpenImageIO reads works the same way.
#include <memory>
#include <string>
#include <vector>

#include "io/slice_source.hpp"
#include "io/volume_reader.hpp"

namespace gp::io {

// One file: its pages are the slices. Several files: one page each, slices in the given order.
// Values are stored * options.slope + options.intercept; spacing from options (default 1).
std::unique_ptr<SliceSource> open_tiff_stack(const std::vector<std::string>& files, const VolumeReadOptions& options);

}  // namespace gp::io

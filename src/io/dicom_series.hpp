#pragma once
// DICOM series and multi-frame objects (DCMTK) as a SliceSource for read_volume.
#include <memory>
#include <string>
#include <vector>

#include "io/slice_source.hpp"

namespace gp::io {

// True when the file starts like DICOM: "DICM" after the 128-byte preamble, or (when
// `preambleless` is allowed) a dataset without preamble whose first element is in group 0002 or 0008.
bool looks_like_dicom(const std::string& path, bool preambleless = true);

// The image frames of `files` as one volume (see read_volume for the rules). Headers are parsed
// and frames decoded on up to `threads` threads. Files without pixel data (DICOMDIR, reports) are
// skipped and counted in the description; a file DCMTK cannot parse is an error. `name` (the
// folder, or the first file) is the file of errors about the series as a whole.
std::unique_ptr<SliceSource> open_dicom_series(const std::vector<std::string>& files, const std::string& name,
                                               int threads);

}  // namespace gp::io

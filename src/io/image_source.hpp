#pragma once
// One opened HDR source file, whichever library decodes it: OpenEXR's Core library for EXR
// (exr_source.cpp), OpenImageIO for everything else (oiio/source.cpp, in the OpenImageIO module).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "io/read_plan.hpp"

namespace gp::io {

class ImageSource {
 public:
  virtual ~ImageSource() = default;
  virtual const std::vector<SourcePart>& parts() const = 0;
  virtual std::string format_name() const = 0;
  // Whether plans for this source must name a contiguous channel range (see make_read_plan).
  virtual bool reads_channel_ranges() const = 0;
  // Decodes `plan` into dst (rows `pitch` bytes apart) on up to `threads` threads.
  // Throws gp::ItemError(path, "decode", ...) on truncated or corrupt data.
  virtual void read(const ReadPlan& plan, void* dst, std::size_t pitch, int threads) = 0;
};

// An EXR that OpenEXR's Core library reads (scanline or tiled, every compression but DWAA/DWAB
// and B44 with float channels, no subsampled channels); nullptr for anything else, including EXRs it cannot parse, so the
// caller can hand those to OpenImageIO. Throws nothing for unreadable files.
std::unique_ptr<ImageSource> open_exr_source(const std::string& path);

// Any format OpenImageIO reads. Throws gp::ItemError(path, "decode", ...) when it cannot.
std::unique_ptr<ImageSource> open_oiio_source(const std::string& path);

}  // namespace gp::io

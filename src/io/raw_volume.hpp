#pragma once
// Volume samples stored plainly (x fastest, then y, then z, no padding between slices): headerless
// raw files (RawFormat from the config), and the data of NRRD and MetaImage volumes, raw (read a
// slice at a time with pread) or zlib/gzip-compressed (inflated once, on first read).
#include <memory>
#include <string>

#include "io/slice_source.hpp"
#include "io/volume_reader.hpp"

namespace gp::io {

// Checks the file's size against the format (it must hold exactly header + voxels * sample bytes).
// Values are stored * options.slope + options.intercept; spacing from options (default 1).
std::unique_ptr<SliceSource> open_raw_volume(const std::string& path, const VolumeReadOptions& options);

// Where a header (NRRD, MetaImage) says its samples are.
struct SampleFile {
  std::string path;            // the data file (the header file itself when the data is attached)
  RawFormat format;            // dims, dtype, byte order; header_bytes: skipped before the samples
  bool compressed = false;     // zlib or gzip stream (several gzip members allowed); header_bytes
                               // then counts bytes of the inflated stream
  std::uint64_t file_offset = 0;  // compressed: where the stream starts in the file
  bool at_end = false;         // raw: the samples are the file's last bytes (NRRD byte skip -1, MetaImage HeaderSize -1)
  std::string header;          // the header file, for messages
};

// The samples of `file`, value = stored * slope + intercept. A raw data file shorter than the header
// says is refused here, naming the file, the bytes expected and the bytes it has; a compressed
// stream that ends early is refused when it is read, likewise. The caller sets geometry and description.
std::unique_ptr<SliceSource> open_sample_file(const SampleFile& file, double slope = 1, double intercept = 0);

}  // namespace gp::io

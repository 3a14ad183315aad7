#pragma once
// What each volume format provides to read_volume: the source's geometry and a way to read one
// slice at a time. read_volume crops, block-averages and spreads the slices over threads.
#include <array>
#include <memory>
#include <string>

#include "io/volume.hpp"

namespace gp::io {

struct VolumeReadOptions;

// Reads slices of one source; used by one thread at a time. Readers of the same source may run
// concurrently. Slices are asked for in increasing z within a run of work.
class SliceReader {
 public:
  virtual ~SliceReader() = default;
  // Source slice z as dims.nx * dims.ny values in physical units (after rescaling), x fastest.
  // Throws gp::ItemError naming the file.
  virtual void read(int z, float* values) = 0;
};

class SliceSource {
 public:
  virtual ~SliceSource() = default;
  Dims3 dims;
  Spacing3 spacing;
  std::array<double, 3> origin{0, 0, 0};  // position of voxel (0, 0, 0)
  // Unit vectors of the x, y, z voxel axes in the origin's coordinates (DICOM patient space).
  std::array<std::array<double, 3>, 3> axes{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  bool lps = false;         // see Volume
  std::string length_unit;  // see Volume
  std::string description;  // "DICOM series, 80 slices, CT, RLE lossless"
  std::string name;         // the file or folder, for errors

  virtual std::unique_ptr<SliceReader> reader() const = 0;
};

// A source opened for reading by slabs of output slices, cropped and block-averaged as `options`
// say: segment-pnm reads a scan larger than its host-memory budget this way. The limits that need
// no memory (max_voxels, single slice) are checked when it is made, from the dims alone.
class VolumeStream {
 public:
  VolumeStream(std::unique_ptr<SliceSource> source, const VolumeReadOptions& options);
  ~VolumeStream();
  // The volume's dims and geometry; values empty.
  const Volume& header() const { return header_; }
  // Output slices [z_begin, z_end) into dst (x fastest), on options.threads threads (each slice
  // computed by one thread, so the result does not depend on the thread count).
  void read_slices(int z_begin, int z_end, float* dst) const;
  // The whole volume in host memory; refused naming the file when its values (4 bytes a voxel)
  // would not fit in this machine's memory.
  Volume read_all() const;

  struct Region;  // the crop in source voxels (slice_source.cpp)

 private:
  std::unique_ptr<SliceSource> source_;
  std::unique_ptr<Region> region_;
  int factor_ = 1, threads_ = 1;
  Volume header_;
};

}  // namespace gp::io

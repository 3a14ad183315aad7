#include "io/slice_source.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "core/text.hpp"
#include "io/parallel_items.hpp"
#include "io/volume_reader.hpp"

namespace gp::io {

struct VolumeStream::Region {
  int begin[3] = {0, 0, 0};
  int size[3] = {0, 0, 0};    // in source voxels, whole blocks only
  int blocks[3] = {0, 0, 0};  // output voxels
};

namespace {

using Region = VolumeStream::Region;

Region region_of(const SliceSource& source, const VolumeReadOptions& options) {
  const int factor = options.downsample;
  if (factor < 1) throw UsageError("downsample factor must be at least 1, not " + std::to_string(factor));
  const int dims[3] = {source.dims.nx, source.dims.ny, source.dims.nz};
  const char* axis_names[3] = {"x", "y", "z"};
  Region r;
  for (int a = 0; a < 3; ++a) {
    const int begin = options.crop_begin[a], asked = options.crop_size[a];
    const std::string axis = axis_names[a];
    if (begin < 0 || begin >= dims[a])
      throw ItemError(source.name, "load", "crop begins at " + axis + " = " + std::to_string(begin) +
                                               ", outside the volume's " + std::to_string(dims[a]) + " voxels along " + axis);
    const int size = asked == 0 ? dims[a] - begin : asked;
    if (size < 0 || std::int64_t(begin) + size > dims[a])
      throw ItemError(source.name, "load", "crop of " + std::to_string(size) + " voxels from " + axis + " = " +
                                               std::to_string(begin) + " goes past the volume's " +
                                               std::to_string(dims[a]) + " voxels along " + axis);
    r.begin[a] = begin;
    r.blocks[a] = size / factor;
    r.size[a] = r.blocks[a] * factor;
    if (r.blocks[a] == 0)
      throw ItemError(source.name, "load", "the cropped size along " + axis + " (" + std::to_string(size) +
                                               ") is smaller than the downsample factor " + std::to_string(factor));
  }
  return r;
}

// Output slice zo from its source slices: a crop copy, or the mean of factor^3 blocks (summed in a
// fixed order: slice, row, column).
class SliceAssembler {
 public:
  SliceAssembler(const SliceSource& source, const Region& region, int factor)
      : source_(source), region_(region), factor_(factor), reader_(source.reader()),
        slice_(source.dims.slice_voxels()),
        sums_(factor > 1 ? std::size_t(region.blocks[0]) * std::size_t(region.blocks[1]) : 0) {}

  void assemble(int zo, float* out) {
    const int nx = source_.dims.nx, onx = region_.blocks[0], ony = region_.blocks[1];
    const bool whole_slice = region_.size[0] == nx && region_.size[1] == source_.dims.ny;
    if (factor_ == 1) {
      const int z = region_.begin[2] + zo;
      if (whole_slice) return reader_->read(z, out);
      reader_->read(z, slice_.data());
      for (int y = 0; y < ony; ++y)
        std::copy_n(&slice_[std::size_t(region_.begin[1] + y) * nx + region_.begin[0]], onx, out + std::size_t(y) * onx);
      return;
    }
    std::fill(sums_.begin(), sums_.end(), 0.0);
    for (int k = 0; k < factor_; ++k) {
      reader_->read(region_.begin[2] + zo * factor_ + k, slice_.data());
      for (int oy = 0; oy < ony; ++oy)
        for (int j = 0; j < factor_; ++j) {
          const float* row = &slice_[std::size_t(region_.begin[1] + oy * factor_ + j) * nx + region_.begin[0]];
          double* sums = &sums_[std::size_t(oy) * onx];
          for (int ox = 0; ox < onx; ++ox)
            for (int i = 0; i < factor_; ++i) sums[ox] += row[ox * factor_ + i];
        }
    }
    const double scale = 1.0 / (double(factor_) * factor_ * factor_);
    for (std::size_t i = 0; i < sums_.size(); ++i) out[i] = float(sums_[i] * scale);
  }

 private:
  const SliceSource& source_;
  const Region& region_;
  int factor_;
  std::unique_ptr<SliceReader> reader_;
  std::vector<float> slice_;
  std::vector<double> sums_;
};

std::string region_note(const SliceSource& source, const Region& r, int factor) {
  std::string note;
  if (r.begin[0] || r.begin[1] || r.begin[2] || r.size[0] != source.dims.nx || r.size[1] != source.dims.ny ||
      r.size[2] != source.dims.nz)
    note += ", cropped to " + std::to_string(r.size[0]) + "x" + std::to_string(r.size[1]) + "x" +
            std::to_string(r.size[2]) + " at (" + std::to_string(r.begin[0]) + ", " + std::to_string(r.begin[1]) +
            ", " + std::to_string(r.begin[2]) + ")";
  if (factor > 1) note += ", downsampled x" + std::to_string(factor);
  return note;
}

// The limits, from the dims alone: nothing is allocated or read before they pass.
void check_limits(const SliceSource& source, const Dims3& out, const VolumeReadOptions& options) {
  if (out.nz == 1 && !options.single_slice_refusal.empty())
    throw ItemError(source.name, "load", options.single_slice_refusal + "; got 1 slice from " + source.name +
                                             (source.dims.nz > 1 ? " (after crop and downsample)" : ""));
  const std::uint64_t voxels = out.voxels();
  const std::string size = std::to_string(out.nx) + "x" + std::to_string(out.ny) + "x" + std::to_string(out.nz);
  const std::string read_as = out == source.dims ? "" : " (after crop and downsample)";
  if (options.max_voxels > 0 && voxels > options.max_voxels)
    throw ItemError(source.name, "load", "the volume is " + size + read_as + " = " + std::to_string(voxels) +
                                             " voxels, over the limit of " + std::to_string(options.max_voxels) +
                                             (options.max_voxels_reason.empty() ? "" : " (" + options.max_voxels_reason + ")") +
                                             "; crop or downsample it (input.crop, input.downsample)");
}

// Whether the whole volume's values fit in this machine's memory, before any is allocated.
void check_memory(const SliceSource& source, const Dims3& out, int threads) {
  const std::uint64_t voxels = out.voxels();
  const std::string size = std::to_string(out.nx) + "x" + std::to_string(out.ny) + "x" + std::to_string(out.nz);
  const std::string read_as = out == source.dims ? "" : " (after crop and downsample)";
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_bytes = ::sysconf(_SC_PAGESIZE);
  const std::uint64_t memory = pages > 0 && page_bytes > 0 ? std::uint64_t(pages) * std::uint64_t(page_bytes) : 0;
  // Each reading thread also holds a source slice (its samples, and as floats when cropping or
  // downsampling): up to 16 bytes a voxel of a slice.
  const std::uint64_t slice_bytes = std::uint64_t(threads) * source.dims.slice_voxels() * 16;
  const std::uint64_t bytes = voxels * sizeof(float);
  if (memory > 0 && (voxels > (std::uint64_t(-1) - slice_bytes) / sizeof(float) || bytes + slice_bytes > memory))
    throw ItemError(source.name, "load", "the volume is " + size + read_as + ": its values need " + gib_text(bytes) +
                                             " of host memory (4 bytes a voxel) and the reading threads' slices " +
                                             gib_text(slice_bytes) + ", more than this machine's " + gib_text(memory) +
                                             "; crop or downsample it (input.crop, input.downsample)");
}

}  // namespace

VolumeStream::VolumeStream(std::unique_ptr<SliceSource> source, const VolumeReadOptions& options)
    : source_(std::move(source)), region_(std::make_unique<Region>(region_of(*source_, options))),
      factor_(options.downsample) {
  const Region& region = *region_;
  const int factor = factor_;
  Volume& volume = header_;
  volume.dims = {region.blocks[0], region.blocks[1], region.blocks[2]};
  volume.spacing = {source_->spacing.x * factor, source_->spacing.y * factor, source_->spacing.z * factor};
  const double steps[3] = {source_->spacing.x, source_->spacing.y, source_->spacing.z};
  volume.origin = source_->origin;
  volume.direction = source_->axes;
  volume.lps = source_->lps;
  volume.length_unit = source_->length_unit;
  for (int a = 0; a < 3; ++a) {
    // A block's value belongs at its centre.
    const double offset = (region.begin[a] + (factor - 1) / 2.0) * steps[a];
    for (int c = 0; c < 3; ++c) volume.origin[c] += source_->axes[a][c] * offset;
  }
  volume.description = source_->description + region_note(*source_, region, factor);
  threads_ = std::max(1, std::min(options.threads > 0 ? options.threads : int(cpu_thread_count()), volume.dims.nz));
  check_limits(*source_, volume.dims, options);
}

VolumeStream::~VolumeStream() = default;

void VolumeStream::read_slices(int z_begin, int z_end, float* dst) const {
  const int slices = z_end - z_begin;
  if (z_begin < 0 || slices < 0 || z_end > header_.dims.nz) throw Error("VolumeStream: slices out of range");
  if (slices == 0) return;
  const int threads = std::min(threads_, slices);
  const std::size_t plane = header_.dims.slice_voxels();
  // Contiguous runs of output slices, handed out in order: multi-page sources read forward.
  const int runs = std::min(slices, threads * 4);
  for_each_item(runs, threads, [&](int run) {
    SliceAssembler assembler(*source_, *region_, factor_);  // one reader per run, reading forward
    const int a = z_begin + int(std::int64_t(slices) * run / runs), b = z_begin + int(std::int64_t(slices) * (run + 1) / runs);
    for (int zo = a; zo < b; ++zo) assembler.assemble(zo, dst + std::size_t(zo - z_begin) * plane);
  });
}

Volume VolumeStream::read_all() const {
  check_memory(*source_, header_.dims, threads_);
  Volume volume = header_;
  volume.values.resize(volume.dims.voxels());
  read_slices(0, volume.dims.nz, volume.values.data());
  return volume;
}

}  // namespace gp::io

#pragma once
// Where segment-pnm keeps a whole volume (its input, mask, distance maps, labels): host memory
// while the host-memory budget (--host-memory-limit) lasts, else a scratch file (run.scratch_dir),
// or, for the input, the file it came from (io::VolumeStream). The out-of-core path moves slabs
// of slices between a store and the GPU (SlabLane), so a volume larger than the host's memory
// never has to be in it whole.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "core/parallel_for.hpp"
#include "core/scratch_space.hpp"
#include "cuda/pnm/volume_view.hpp"
#include "io/slice_source.hpp"
#include "io/volume.hpp"

namespace gp::pnm {

// Host memory for a whole volume, not zero-filled: what fills it (a parallel copy from the GPU)
// first-touches the pages on all its threads, where zero-filling would take one core a second
// per 4 GB.
template <class T>
class HostVolume {
 public:
  HostVolume() = default;
  explicit HostVolume(std::size_t n) : data_(new T[n]), size_(n) {}
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  bool empty() const { return size_ == 0; }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
};

// The budget and the scratch folder the stores of one volume draw on.
struct VolumeStorage {
  HostMemoryBudget& budget;
  ScratchSpace& scratch;
};

template <class T>
class VolumeStore {
 public:
  VolumeStore() = default;
  // A new volume (contents undefined until written): in host memory when the budget has room
  // for it, else in a scratch file named after `name`.
  VolumeStore(VolumeStorage& storage, const io::Dims3& dims, const std::string& name) : dims_(dims) {
    const std::uint64_t bytes = std::uint64_t(dims.voxels()) * sizeof(T);
    if (storage.budget.try_reserve(bytes)) {
      reservation_ = HostReservation(storage.budget, bytes);
      ram_ = HostVolume<T>(dims.voxels());
    } else {
      file_ = std::make_unique<ScratchFile>(storage.scratch.create(name, bytes));
    }
  }
  // A volume already in host memory (the in-core paths' results).
  VolumeStore(HostVolume<T> data, const io::Dims3& dims) : dims_(dims), ram_(std::move(data)) {
    if (ram_.size() != dims.voxels()) throw Error("VolumeStore: host volume of the wrong size");
  }
  // A read-only view of host memory the caller keeps alive (a loaded input volume).
  static VolumeStore borrow(const T* data, const io::Dims3& dims) {
    VolumeStore s;
    s.dims_ = dims;
    s.borrowed_ = data;
    return s;
  }
  // The input volume as its file gives it, a slab at a time (reads of whole slices only).
  static VolumeStore from_stream(const io::VolumeStream& stream) {
    static_assert(std::is_same_v<T, float>, "a volume stream gives float values");
    VolumeStore s;
    s.dims_ = stream.header().dims;
    s.stream_ = &stream;
    return s;
  }

  const io::Dims3& dims() const { return dims_; }
  bool empty() const { return dims_.voxels() == 0; }
  std::size_t size() const { return dims_.voxels(); }
  // Null unless the volume is in host memory.
  T* resident() { return ram_.empty() ? nullptr : ram_.data(); }
  const T* resident() const { return ram_.empty() ? borrowed_ : ram_.data(); }
  bool in_scratch() const { return file_ != nullptr; }
  // One voxel of a volume in host memory (tests and small volumes).
  const T& operator[](std::size_t i) const {
    const T* r = resident();
    if (!r) throw Error("VolumeStore: voxel access to a volume not in host memory");
    return r[i];
  }

  // Voxels [first, first + count) in linear order (x fastest, then y, then z). Stream stores
  // read whole slices only.
  void read(std::size_t first, std::size_t count, T* dst) const {
    check(first, count);
    if (const T* r = resident()) {
      copy_parallel(dst, r + first, count);
    } else if (file_) {
      file_->read(std::uint64_t(first) * sizeof(T), dst, count * sizeof(T));
    } else if (stream_) {
      const std::size_t plane = dims_.slice_voxels();
      if (first % plane || count % plane) throw Error("VolumeStore: a volume stream reads whole slices");
      if constexpr (std::is_same_v<T, float>) stream_->read_slices(int(first / plane), int((first + count) / plane), dst);
    } else {
      throw Error("VolumeStore: read from an empty store");
    }
  }
  void write(std::size_t first, std::size_t count, const T* src) {
    check(first, count);
    if (count == 0) return;
    if (T* r = resident())
      copy_parallel(r + first, src, count);
    else if (file_)
      file_->write(std::uint64_t(first) * sizeof(T), src, count * sizeof(T));
    else
      throw Error("VolumeStore: the input volume is read-only");
  }
  std::size_t slice_offset(int z) const { return std::size_t(z) * dims_.slice_voxels(); }
  void read_slices(int z_begin, int z_end, T* dst) const {
    read(slice_offset(z_begin), slice_offset(z_end) - slice_offset(z_begin), dst);
  }
  void write_slices(int z_begin, int z_end, const T* src) {
    write(slice_offset(z_begin), slice_offset(z_end) - slice_offset(z_begin), src);
  }
  // Rows [y_begin, y_end) of every slice, gathered slice after slice (a slab along y).
  void read_rows(int y_begin, int y_end, T* dst) const {
    const std::size_t run = std::size_t(y_end - y_begin) * dims_.nx;
    parallel_for(long(dims_.nz), [&](long z0, long z1) {
      for (long z = z0; z < z1; ++z) read_one(slice_offset(int(z)) + std::size_t(y_begin) * dims_.nx, run, dst + std::size_t(z) * run);
    }, 8);
  }
  void write_rows(int y_begin, int y_end, const T* src) {
    const std::size_t run = std::size_t(y_end - y_begin) * dims_.nx;
    parallel_for(long(dims_.nz), [&](long z0, long z1) {
      for (long z = z0; z < z1; ++z) write_one(slice_offset(int(z)) + std::size_t(y_begin) * dims_.nx, run, src + std::size_t(z) * run);
    }, 8);
  }

  // Random access to the whole volume (a few places of it): the host memory, or a read-only
  // mapping of the scratch file whose touched pages only become resident.
  class WholeView {
   public:
    VolumeView<const T> view;

   private:
    friend class VolumeStore;
    ScratchFile::Mapping mapping_;
  };
  WholeView whole() const {
    WholeView w;
    const T* data = resident();
    if (!data && file_) {
      w.mapping_ = file_->map_read_only();
      data = static_cast<const T*>(w.mapping_.data());
    }
    if (!data) throw Error("VolumeStore: no random access to a volume stream");
    w.view = whole_volume(data, dims_.nx, dims_.ny, dims_.nz);
    return w;
  }

  // The volume in host memory (for outputs that need it whole; small volumes).
  HostVolume<T> to_host() const {
    HostVolume<T> v(size());
    if (size()) read(0, size(), v.data());
    return v;
  }

 private:
  void check(std::size_t first, std::size_t count) const {
    if (first > size() || count > size() - first) throw Error("VolumeStore: voxels out of range");
  }
  // Single-threaded pieces for callers that already run in parallel.
  void read_one(std::size_t first, std::size_t count, T* dst) const {
    if (const T* r = resident())
      std::memcpy(dst, r + first, count * sizeof(T));
    else
      read(first, count, dst);
  }
  void write_one(std::size_t first, std::size_t count, const T* src) {
    if (T* r = resident())
      std::memcpy(r + first, src, count * sizeof(T));
    else
      write(first, count, src);
  }
  static void copy_parallel(T* dst, const T* src, std::size_t count) {
    parallel_for(long(count), [&](long a, long b) { std::memcpy(dst + a, src + a, std::size_t(b - a) * sizeof(T)); },
                 long(1) << 20);
  }

  io::Dims3 dims_;
  HostVolume<T> ram_;
  HostReservation reservation_;
  std::unique_ptr<ScratchFile> file_;
  const io::VolumeStream* stream_ = nullptr;
  const T* borrowed_ = nullptr;
};

}  // namespace gp::pnm

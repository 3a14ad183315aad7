#pragma once
// Where segment-pnm keeps a whole volume (its input, mask, distance maps, labels): host memory
// while the host-memory budget (--host-memory-limit) lasts, the slices beyond it in a scratch file
// (run.scratch_dir; labels compressed), or, for the input, the file it came from (io::VolumeStream). The out-of-core path moves slabs
// of slices between a store and the GPU (SlabLane), so a volume larger than the host's memory
// never has to be in it whole.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/compressed_scratch.hpp"
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

// How the slices of a store that do not fit the host budget are kept on disk: plain (any access:
// rows, slices, a mapping) or compressed blocks (whole slices only; for volumes that compress
// well, labels: several times less disk).
enum class ScratchForm { plain, compressed };

template <class T>
class VolumeStore {
 public:
  VolumeStore() = default;
  // A new volume (contents undefined until written): its first slices in host memory as far as
  // the budget has room, the others in a scratch file named after `name`.
  VolumeStore(VolumeStorage& storage, const io::Dims3& dims, const std::string& name,
              ScratchForm form = ScratchForm::plain)
      : dims_(dims) {
    const std::uint64_t slice = slice_bytes();
    for (;;) {  // the budget may shrink under us (volumes in flight at once)
      const std::uint64_t fit = slice ? std::min<std::uint64_t>(dims.nz, storage.budget.available() / slice) : 0;
      if (fit == 0) break;
      if (storage.budget.try_reserve(fit * slice)) {
        reservation_ = HostReservation(storage.budget, fit * slice);
        ram_slices_ = int(fit);
        ram_ = HostVolume<T>(std::size_t(fit) * dims.slice_voxels());
        break;
      }
    }
    const int rest = dims.nz - ram_slices_;
    if (rest == 0) return;
    if (form == ScratchForm::compressed) {
      parts_ = std::max<std::size_t>(1, (slice + block_target - 1) / block_target);
      packed_ = std::make_unique<CompressedScratch>(storage.scratch, name, std::size_t(rest) * parts_);
    } else {
      file_ = std::make_unique<ScratchFile>(storage.scratch.create(name, std::uint64_t(rest) * slice));
    }
  }
  // A volume already in host memory (the in-core paths' results).
  VolumeStore(HostVolume<T> data, const io::Dims3& dims) : dims_(dims), ram_(std::move(data)), ram_slices_(dims.nz) {
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
  // Null unless the whole volume is in host memory.
  T* resident() { return whole_in_ram() ? ram_.data() : nullptr; }
  const T* resident() const { return whole_in_ram() ? ram_.data() : borrowed_; }
  bool in_scratch() const { return file_ || packed_; }
  // Bytes of host memory and of scratch disk the store holds (compressed: as stored now).
  std::uint64_t host_bytes() const { return std::uint64_t(ram_.size()) * sizeof(T); }
  std::uint64_t scratch_bytes() const { return file_ ? file_->size() : packed_ ? packed_->stored_bytes() : 0; }
  // One voxel of a volume in host memory (tests and small volumes).
  const T& operator[](std::size_t i) const {
    const T* r = resident();
    if (!r) throw Error("VolumeStore: voxel access to a volume not in host memory");
    return r[i];
  }

  // Voxels [first, first + count) in linear order (x fastest, then y, then z). Stream stores and
  // compressed scratch read and write whole slices only.
  void read(std::size_t first, std::size_t count, T* dst) const {
    check(first, count);
    if (const T* r = resident()) {
      copy_parallel(dst, r + first, count);
    } else if (stream_) {
      const std::size_t plane = dims_.slice_voxels();
      if (first % plane || count % plane) throw Error("VolumeStore: a volume stream reads whole slices");
      if constexpr (std::is_same_v<T, float>) stream_->read_slices(int(first / plane), int((first + count) / plane), dst);
    } else if (in_scratch()) {
      const std::size_t in_ram = std::min(count, ram_voxels() > first ? ram_voxels() - first : 0);
      if (in_ram) copy_parallel(dst, ram_.data() + first, in_ram);
      if (count > in_ram) read_scratch(first + in_ram - ram_voxels(), count - in_ram, dst + in_ram);
    } else {
      throw Error("VolumeStore: read from an empty store");
    }
  }
  void write(std::size_t first, std::size_t count, const T* src) {
    check(first, count);
    if (count == 0) return;
    if (T* r = resident()) {
      copy_parallel(r + first, src, count);
    } else if (in_scratch()) {
      const std::size_t in_ram = std::min(count, ram_voxels() > first ? ram_voxels() - first : 0);
      if (in_ram) copy_parallel(ram_.data() + first, src, in_ram);
      if (count > in_ram) write_scratch(first + in_ram - ram_voxels(), count - in_ram, src + in_ram);
    } else {
      throw Error("VolumeStore: the input volume is read-only");
    }
  }
  std::size_t slice_offset(int z) const { return std::size_t(z) * dims_.slice_voxels(); }
  void read_slices(int z_begin, int z_end, T* dst) const {
    read(slice_offset(z_begin), slice_offset(z_end) - slice_offset(z_begin), dst);
  }
  void write_slices(int z_begin, int z_end, const T* src) {
    write(slice_offset(z_begin), slice_offset(z_end) - slice_offset(z_begin), src);
  }
  // Rows [y_begin, y_end) of every slice, gathered slice after slice (a slab along y). Not for
  // compressed scratch.
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
  // mapping of a plain scratch file whose touched pages only become resident. Not for a volume
  // split between the two, compressed or streamed (random_access() says).
  class WholeView {
   public:
    VolumeView<const T> view;

   private:
    friend class VolumeStore;
    ScratchFile::Mapping mapping_;
  };
  bool random_access() const { return resident() || (file_ && ram_slices_ == 0); }
  WholeView whole() const {
    WholeView w;
    const T* data = resident();
    if (!data && file_ && ram_slices_ == 0) {
      w.mapping_ = file_->map_read_only();
      data = static_cast<const T*>(w.mapping_.data());
    }
    if (!data) throw Error("VolumeStore: no random access to this volume (streamed, compressed or split)");
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
  // Compressed blocks of about 2 MiB: a slab's slices compress on all cores.
  static constexpr std::size_t block_target = std::size_t(2) << 20;

  std::uint64_t slice_bytes() const { return std::uint64_t(dims_.slice_voxels()) * sizeof(T); }
  bool whole_in_ram() const { return ram_slices_ == dims_.nz && !ram_.empty(); }
  std::size_t ram_voxels() const { return std::size_t(ram_slices_) * dims_.slice_voxels(); }
  void check(std::size_t first, std::size_t count) const {
    if (first > size() || count > size() - first) throw Error("VolumeStore: voxels out of range");
  }
  // Voxels [first, first + count) of the scratch part (its own numbering).
  void read_scratch(std::size_t first, std::size_t count, T* dst) const {
    if (file_) return file_->read(std::uint64_t(first) * sizeof(T), dst, count * sizeof(T));
    for_blocks(first, count, [&](std::size_t block, std::size_t at, std::size_t bytes) {
      packed_->read_block(block, reinterpret_cast<char*>(dst) + at, bytes);
    });
  }
  void write_scratch(std::size_t first, std::size_t count, const T* src) {
    if (file_) return file_->write(std::uint64_t(first) * sizeof(T), src, count * sizeof(T));
    for_blocks(first, count, [&](std::size_t block, std::size_t at, std::size_t bytes) {
      packed_->write_block(block, reinterpret_cast<const char*>(src) + at, bytes);
    });
  }
  // io(block, byte offset in the caller's buffer, bytes) for the compressed blocks of whole
  // slices [first, first + count) of the scratch part, on all cores.
  template <class Io>
  void for_blocks(std::size_t first, std::size_t count, Io&& io) const {
    const std::size_t plane = dims_.slice_voxels();
    if (first % plane || count % plane) throw Error("VolumeStore: compressed scratch holds whole slices only");
    const std::size_t slice = slice_bytes(), part = (slice + parts_ - 1) / parts_;
    const std::size_t first_block = first / plane * parts_, blocks = count / plane * parts_;
    parallel_for(long(blocks), [&](long a, long b) {
      for (long k = a; k < b; ++k) {
        const std::size_t in_slice = std::size_t(k) % parts_ * part;
        io(first_block + std::size_t(k), std::size_t(k) / parts_ * slice + in_slice, std::min(part, slice - in_slice));
      }
    }, 1);
  }
  // Single-threaded pieces within one slice for callers that already run in parallel.
  void read_one(std::size_t first, std::size_t count, T* dst) const {
    if (const T* r = resident())
      std::memcpy(dst, r + first, count * sizeof(T));
    else if (first < ram_voxels())
      std::memcpy(dst, ram_.data() + first, count * sizeof(T));
    else if (file_)
      file_->read(std::uint64_t(first - ram_voxels()) * sizeof(T), dst, count * sizeof(T));
    else
      throw Error("VolumeStore: rows of a volume in compressed scratch or streamed");
  }
  void write_one(std::size_t first, std::size_t count, const T* src) {
    if (T* r = resident())
      std::memcpy(r + first, src, count * sizeof(T));
    else if (first < ram_voxels())
      std::memcpy(ram_.data() + first, src, count * sizeof(T));
    else if (file_)
      file_->write(std::uint64_t(first - ram_voxels()) * sizeof(T), src, count * sizeof(T));
    else
      throw Error("VolumeStore: rows of a volume in compressed scratch or read-only");
  }
  static void copy_parallel(T* dst, const T* src, std::size_t count) {
    parallel_for(long(count), [&](long a, long b) { std::memcpy(dst + a, src + a, std::size_t(b - a) * sizeof(T)); },
                 long(1) << 20);
  }

  io::Dims3 dims_;
  HostVolume<T> ram_;  // slices [0, ram_slices_)
  int ram_slices_ = 0;
  HostReservation reservation_;
  std::unique_ptr<ScratchFile> file_;          // slices [ram_slices_, nz), plain
  std::unique_ptr<CompressedScratch> packed_;  // or compressed, parts_ blocks a slice
  std::size_t parts_ = 1;
  const io::VolumeStream* stream_ = nullptr;
  const T* borrowed_ = nullptr;
};

}  // namespace gp::pnm

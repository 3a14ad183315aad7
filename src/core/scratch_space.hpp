#pragma once
// Scratch files for data that does not fit the host-memory budget (segment-pnm's intermediate
// volumes of a large scan). A ScratchSpace is a folder (run.scratch_dir), created on first use
// and removed at the end if it was created for the run; its files are unlinked as soon as they
// are opened, so nothing is left behind even when the process is killed. Reads and writes are
// counted for the report; a full disk is an error naming the folder and the config field.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace gp {

// Bytes free for an unprivileged user on the disk that holds `path` (or, when it does not exist
// yet, its nearest existing parent folder); none where the file system cannot say.
std::optional<std::uint64_t> free_disk_bytes(const std::string& path);

class ScratchSpace;

// One unlinked scratch file: positioned reads and writes, on several threads for large ranges.
class ScratchFile {
 public:
  ScratchFile() = default;
  ScratchFile(ScratchFile&& o) noexcept;
  ScratchFile& operator=(ScratchFile&& o) noexcept;
  ~ScratchFile();

  void read(std::uint64_t offset, void* dst, std::size_t bytes) const;
  void write(std::uint64_t offset, const void* src, std::size_t bytes);
  // Grows the file to `bytes`, its disk space allocated now (a full disk is an error naming the
  // folder, as in ScratchSpace::create). Not safe beside reads and writes of other threads.
  void extend(std::uint64_t bytes);
  std::uint64_t size() const { return size_; }
  const std::string& name() const { return name_; }
  bool open() const { return fd_ >= 0; }

  // A read-only mapping of the whole file (for random access to a few places of a large file:
  // only the pages touched become resident). Unmapped on destruction.
  class Mapping {
   public:
    Mapping() = default;
    Mapping(const void* data, std::size_t bytes) : data_(data), bytes_(bytes) {}
    Mapping(Mapping&& o) noexcept : data_(o.data_), bytes_(o.bytes_) { o.data_ = nullptr, o.bytes_ = 0; }
    Mapping& operator=(Mapping&& o) noexcept;
    ~Mapping();
    const void* data() const { return data_; }

   private:
    const void* data_ = nullptr;
    std::size_t bytes_ = 0;
  };
  Mapping map_read_only() const;

 private:
  friend class ScratchSpace;
  ScratchFile(ScratchSpace* space, int fd, std::string name, std::uint64_t size)
      : space_(space), fd_(fd), name_(std::move(name)), size_(size) {}
  ScratchSpace* space_ = nullptr;
  int fd_ = -1;
  std::string name_;  // for messages: "<folder>/labels.scratch"
  std::uint64_t size_ = 0;
};

class ScratchSpace {
 public:
  // folder: where the files go; config_field: the setting that chose it, for messages.
  ScratchSpace(std::string folder, std::string config_field);
  ~ScratchSpace();
  ScratchSpace(const ScratchSpace&) = delete;
  ScratchSpace& operator=(const ScratchSpace&) = delete;

  // A file of `bytes`, its disk space allocated now (so a full disk shows here, before the work,
  // where the file system allows it). Throws gp::Error naming the folder when it cannot.
  ScratchFile create(const std::string& name, std::uint64_t bytes);

  const std::string& folder() const { return folder_; }
  std::uint64_t bytes_written() const { return written_.load(); }
  std::uint64_t bytes_read() const { return read_.load(); }
  std::uint64_t bytes_allocated() const { return allocated_.load(); }
  std::uint64_t peak_bytes_allocated() const { return peak_allocated_.load(); }

 private:
  friend class ScratchFile;
  [[noreturn]] void fail(const std::string& file, const char* what, int error_number) const;
  std::string way_out() const;  // the end of a full-disk message: the setting to change
  void count_read(std::uint64_t bytes) { read_ += bytes; }
  void count_written(std::uint64_t bytes) { written_ += bytes; }
  void release(std::uint64_t bytes) { allocated_ -= bytes; }
  // Allocates [from, to) of an open file's disk space (posix_fallocate) and counts it.
  void allocate(int fd, const std::string& path, const std::string& name, std::uint64_t from, std::uint64_t to);

  std::string folder_, config_field_;
  bool created_folder_ = false;
  std::atomic<std::uint64_t> written_{0}, read_{0}, allocated_{0}, peak_allocated_{0};
};

}  // namespace gp

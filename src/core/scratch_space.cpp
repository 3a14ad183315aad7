#include "core/scratch_space.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "core/text.hpp"

namespace gp {
namespace {

namespace fs = std::filesystem;


// Large ranges go over several threads: one thread reads a few GB/s from the page cache.
constexpr std::size_t piece_bytes = std::size_t(8) << 20;

template <class Io>
void in_pieces(std::size_t bytes, Io&& io) {
  const long pieces = long((bytes + piece_bytes - 1) / piece_bytes);
  parallel_for(pieces, [&](long a, long b) {
    for (long p = a; p < b; ++p) {
      const std::size_t at = std::size_t(p) * piece_bytes;
      io(at, std::min(piece_bytes, bytes - at));
    }
  }, 1);
}

std::uint64_t free_bytes(const std::string& folder) { return free_disk_bytes(folder).value_or(0); }

}  // namespace

std::optional<std::uint64_t> free_disk_bytes(const std::string& path) {
  std::error_code ec;
  fs::path at = fs::absolute(path, ec);
  while (!at.empty() && !fs::exists(at, ec) && at.has_parent_path() && at.parent_path() != at) at = at.parent_path();
  struct statvfs s {};
  if (::statvfs(at.c_str(), &s) != 0) return std::nullopt;
  return std::uint64_t(s.f_bavail) * s.f_frsize;
}

ScratchSpace::ScratchSpace(std::string folder, std::string config_field)
    : folder_(std::move(folder)), config_field_(std::move(config_field)) {}

ScratchSpace::~ScratchSpace() {
  std::error_code ec;
  if (created_folder_) fs::remove(folder_, ec);  // only when empty: the files are unlinked already
}

std::string ScratchSpace::way_out() const {
  return "; point " + config_field_ + " at a disk with more room, or raise --host-memory-limit";
}

void ScratchSpace::fail(const std::string& file, const char* what, int error_number) const {
  if (error_number == ENOSPC || error_number == EDQUOT)
    throw Error("the scratch folder " + folder_ + " is full (" + gib_text(free_bytes(folder_)) + " free) while " + what +
                " " + file + way_out());
  throw Error(std::string(what) + " scratch file " + file + ": " + std::strerror(error_number) + " (scratch folder " +
              folder_ + ", " + config_field_ + ")");
}

ScratchFile ScratchSpace::create(const std::string& name, std::uint64_t bytes) {
  std::error_code ec;
  if (!fs::is_directory(folder_, ec)) {
    if (!fs::create_directories(folder_, ec) && !fs::is_directory(folder_))
      throw Error("cannot create the scratch folder " + folder_ + " (" + config_field_ + "): " + ec.message());
    created_folder_ = true;
  }
  // Unique in the process too: volumes in flight at once may share a folder.
  static std::atomic<unsigned> sequence{0};
  const std::string path = (fs::path(folder_) / (".gpuproc-scratch-" + std::to_string(::getpid()) + "-" +
                                                 std::to_string(sequence++) + "-" + name)).string();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail(path, "creating", errno);
  ::unlink(path.c_str());  // gone from the folder however the process ends
  ScratchFile file(this, fd, path, 0);  // sized once allocated, so a failure releases nothing
  allocate(fd, path, name, 0, bytes);
  file.size_ = bytes;
  return file;
}

void ScratchSpace::allocate(int fd, const std::string& path, const std::string& name, std::uint64_t from,
                            std::uint64_t to) {
  if (to <= from) return;
  const std::uint64_t bytes = to - from, free_now = free_bytes(folder_);
  const int rc = ::posix_fallocate(fd, off_t(from), off_t(bytes));
  if (rc == ENOSPC || rc == EDQUOT || (rc != 0 && free_now > 0 && free_now < bytes)) {
    throw Error("the scratch folder " + folder_ + " has " + gib_text(free_now) + " free; " + name + " needs " +
                gib_text(bytes) + (from ? " more" : "") + way_out());
  }
  if (rc != 0 && ::ftruncate(fd, off_t(to)) != 0) fail(path, "sizing", errno);  // no fallocate on this file system
  const std::uint64_t now = (allocated_ += bytes);
  std::uint64_t peak = peak_allocated_.load();
  while (now > peak && !peak_allocated_.compare_exchange_weak(peak, now)) {
  }
}

void ScratchFile::extend(std::uint64_t bytes) {
  if (bytes <= size_) return;
  space_->allocate(fd_, name_, name_, size_, bytes);
  size_ = bytes;
}

ScratchFile::ScratchFile(ScratchFile&& o) noexcept : space_(o.space_), fd_(o.fd_), name_(std::move(o.name_)), size_(o.size_) {
  o.fd_ = -1, o.size_ = 0;
}

ScratchFile& ScratchFile::operator=(ScratchFile&& o) noexcept {
  if (this != &o) {
    this->~ScratchFile();
    space_ = o.space_, fd_ = o.fd_, name_ = std::move(o.name_), size_ = o.size_;
    o.fd_ = -1, o.size_ = 0;
  }
  return *this;
}

ScratchFile::~ScratchFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    if (space_) space_->release(size_);
  }
  fd_ = -1;
}

void ScratchFile::read(std::uint64_t offset, void* dst, std::size_t bytes) const {
  if (offset + bytes > size_) throw Error("scratch file " + name_ + ": read past its end");
  in_pieces(bytes, [&](std::size_t at, std::size_t n) {
    auto* out = static_cast<char*>(dst) + at;
    for (std::size_t done = 0; done < n;) {
      const ssize_t got = ::pread(fd_, out + done, n - done, off_t(offset + at + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) space_->fail(name_, "reading", errno);
      if (got == 0) throw Error("scratch file " + name_ + ": ended early");
      done += std::size_t(got);
    }
  });
  space_->count_read(bytes);
}

void ScratchFile::write(std::uint64_t offset, const void* src, std::size_t bytes) {
  if (offset + bytes > size_) throw Error("scratch file " + name_ + ": write past its end");
  in_pieces(bytes, [&](std::size_t at, std::size_t n) {
    const auto* in = static_cast<const char*>(src) + at;
    for (std::size_t done = 0; done < n;) {
      const ssize_t put = ::pwrite(fd_, in + done, n - done, off_t(offset + at + done));
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) space_->fail(name_, "writing", put < 0 ? errno : ENOSPC);
      done += std::size_t(put);
    }
  });
  space_->count_written(bytes);
}

ScratchFile::Mapping& ScratchFile::Mapping::operator=(Mapping&& o) noexcept {
  if (this != &o) {
    this->~Mapping();
    data_ = o.data_, bytes_ = o.bytes_;
    o.data_ = nullptr, o.bytes_ = 0;
  }
  return *this;
}

ScratchFile::Mapping::~Mapping() {
  if (data_) ::munmap(const_cast<void*>(data_), bytes_);
  data_ = nullptr;
}

ScratchFile::Mapping ScratchFile::map_read_only() const {
  if (size_ == 0) return {};
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) space_->fail(name_, "mapping", errno);
  return Mapping(p, size_);
}

}  // namespace gp

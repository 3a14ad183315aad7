#pragma once
// A file being written (an output's temporary): bytes at an offset, from several threads at once
// if they write disjoint ranges; errors are gp::ItemError naming the output, with errno's text.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "core/outputs.hpp"

namespace gp::pnm {

class OutputFile {
 public:
  // `temp` is where the bytes go; `name` is the output named in errors.
  OutputFile(const std::string& temp, std::string name) : name_(std::move(name)) {
    fd_ = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) fail("cannot create");
  }
  ~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // `bytes` at `offset` (pwrite: threads write disjoint ranges at once). When outputs are flushed
  // before they are renamed into place, the bytes written start going to the disk now
  // (sync_file_range, not waited for), so the disk works while the rest is formatted and the
  // final fsync has little left: the outputs of a large scan are gigabytes.
  void write_at(const void* data, std::size_t bytes, std::uint64_t offset) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    const std::uint64_t first = offset;
    while (bytes > 0) {
      const ssize_t n = ::pwrite(fd_, p, std::min<std::size_t>(bytes, std::size_t(1) << 30), off_t(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("cannot write");
      p += n, offset += std::uint64_t(n), bytes -= std::size_t(n);
    }
    if (write_behind_ && offset > first)
      ::sync_file_range(fd_, off_t(first), off_t(offset - first), SYNC_FILE_RANGE_WRITE);  // best effort
  }
  void close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) fail("cannot close");
  }

 private:
  [[noreturn]] void fail(const char* what) { throw ItemError(name_, "write", std::string(what) + ": " + std::strerror(errno)); }

  int fd_ = -1;
  std::string name_;
  bool write_behind_ = outputs_fsync();
};

}  // namespace gp::pnm

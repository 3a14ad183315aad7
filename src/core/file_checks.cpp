#include "core/file_checks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace gp {
namespace {

// "a FIFO (named pipe)", "a character device", ... ; "" for a regular file.
std::string non_regular_kind(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";  // (unreachable on Linux)
}

void check_mode(mode_t mode, const std::string& path, const std::string& what) {
  const std::string kind = non_regular_kind(mode);
  if (!kind.empty()) throw UsageError(what + ": " + path + " is " + kind + ", not a regular file");
}

[[noreturn]] void fail_errno(int error, const std::string& path, const std::string& what) {
  if (error == ENOENT) throw UsageError(what + ": " + path + " does not exist");
  throw UsageError(what + ": " + path + ": " + std::strerror(error));
}

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (1u << 30) && bytes % (1u << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

[[noreturn]] void fail_too_large(const std::string& path, std::uint64_t max_bytes, const std::string& what) {
  throw UsageError(what + ": " + path + " is larger than the limit of " + size_text(max_bytes));
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

void require_regular_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (path.empty()) throw UsageError(what + ": empty file name");
  if (::stat(path.c_str(), &st) != 0) fail_errno(errno, path, what);
  check_mode(st.st_mode, path, what);
}

std::string read_text_file(const std::string& path, std::uint64_t max_bytes, const std::string& what) {
  // stat first: opening some devices has effects (a tape rewinds on close), and a FIFO opened
  // without O_NONBLOCK waits for a writer.
  require_regular_file(path, what);
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) fail_errno(errno, path, what);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail_errno(errno, path, what);
  check_mode(st.st_mode, path, what);  // replaced between the stat and the open
  if (std::uint64_t(st.st_size) > max_bytes) fail_too_large(path, max_bytes, what);

  std::string text(std::size_t(st.st_size), '\0');
  std::size_t done = 0;
  while (true) {
    if (done == text.size()) {
      if (done > max_bytes) fail_too_large(path, max_bytes, what);
      text.resize(std::size_t(std::min<std::uint64_t>(max_bytes + 1, std::max<std::uint64_t>(2 * done, 4096))));
    }
    const ssize_t n = ::read(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(errno, path, what);
    if (n == 0) break;
    done += std::size_t(n);
  }
  text.resize(done);
  return text;
}

}  // namespace gp

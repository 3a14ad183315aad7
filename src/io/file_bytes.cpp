#include "io/file_bytes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace gp::io {

std::vector<std::uint8_t> read_file_bytes(const std::string& path) {
  std::vector<std::uint8_t> bytes;
  read_file_bytes(path, bytes);
  return bytes;
}

void read_file_bytes(const std::string& path, std::vector<std::uint8_t>& bytes) {
  read_file_into(path, [&](std::size_t size) {
    bytes.resize(size);
    return bytes.data();
  });
}

std::size_t read_file_into(const std::string& path, const std::function<std::uint8_t*(std::size_t size)>& allocate) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ItemError(path, "read", std::strerror(errno));
  std::size_t size = 0;
  try {
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw ItemError(path, "read", std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw ItemError(path, "read", "not a regular file");
    size = std::size_t(st.st_size);
    std::uint8_t* data = allocate(size);
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::read(fd, data + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw ItemError(path, "read", std::strerror(errno));
      if (n == 0) throw ItemError(path, "read", "the file shrank while being read");
      done += std::size_t(n);
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return size;
}

}  // namespace gp::io

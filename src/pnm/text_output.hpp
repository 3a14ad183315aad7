#pragma once
// Text output for the network writers. A file is assembled in memory as parts: a header, the rows
// formatted in chunks on all cores (format_rows), a footer; then written in one go (write_text).
// Numbers in the shortest form that reads back to the same double, or printf's fixed widths.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "core/parallel_for.hpp"

namespace gp::pnm {

class TextBuffer {
 public:
  TextBuffer& operator<<(std::string_view s) {
    text_.append(s.data(), s.size());
    return *this;
  }
  TextBuffer& operator<<(char c) {
    text_.push_back(c);
    return *this;
  }

  // Shortest round-trip form ("0.1", "1e-07", "nan").
  TextBuffer& real(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);
    return *this << std::string_view(buf, std::size_t(r.ptr - buf));
  }
  TextBuffer& integer(long long v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);
    return *this << std::string_view(buf, std::size_t(r.ptr - buf));
  }
  // printf's "%<width>lld": right-aligned in at least `width` characters.
  TextBuffer& integer(long long v, int width) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);
    return padded(buf, std::size_t(r.ptr - buf), width);
  }
  // printf's "%<width>.<precision>e" (to_chars is specified as printf in the C locale).
  TextBuffer& scientific(double v, int precision, int width = 0) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific, precision);
    if (r.ec != std::errc()) throw Error("TextBuffer::scientific: field too long");
    return padded(buf, std::size_t(r.ptr - buf), width);
  }

  std::string& str() { return text_; }
  void reserve(std::size_t bytes) { text_.reserve(bytes); }

 private:
  TextBuffer& padded(const char* s, std::size_t n, int width) {
    if (std::size_t(std::max(width, 0)) > n) text_.append(std::size_t(width) - n, ' ');
    text_.append(s, n);
    return *this;
  }
  std::string text_;
};

// Rows [0, rows) as text: format(out, begin, end) appends rows begin..end-1 to `out`. Chunks of
// rows are formatted on all cores (the calls must not depend on each other); the chunks come back
// in row order, their concatenation being the rows' text.
template <class Format>
std::vector<std::string> format_rows(std::size_t rows, const Format& format, std::size_t chunk_rows = 2048) {
  const std::size_t chunks = (rows + chunk_rows - 1) / chunk_rows;
  std::vector<std::string> parts(chunks);
  parallel_for(long(chunks), [&](long first, long last) {
    for (long c = first; c < last; ++c) {
      TextBuffer out;
      const std::size_t begin = std::size_t(c) * chunk_rows;
      format(out, begin, std::min(rows, begin + chunk_rows));
      parts[std::size_t(c)] = std::move(out.str());
    }
  }, 1);
  return parts;
}

// The text of a file in order: pieces appended (moved in) as they are made.
class TextParts {
 public:
  TextParts& operator<<(std::string s) {
    parts_.push_back(std::move(s));
    return *this;
  }
  TextParts& operator<<(TextBuffer& b) { return *this << std::move(b.str()); }
  TextParts& operator<<(std::vector<std::string> chunks) {
    for (std::string& c : chunks) parts_.push_back(std::move(c));
    return *this;
  }
  const std::vector<std::string>& parts() const { return parts_; }

 private:
  std::vector<std::string> parts_;
};

// Writes `text` as the file `path`, atomically (gp::write_atomically); errors are
// gp::ItemError(path, "write", ...).
inline void write_text(const std::string& path, const TextParts& text) {
  write_atomically(path, [&](const std::string& temp) {
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) throw ItemError(path, "write", std::string("cannot create: ") + std::strerror(errno));
    for (const std::string& part : text.parts())
      for (std::size_t done = 0; done < part.size();) {
        const ssize_t n = ::write(fd, part.data() + done, part.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          const int saved = errno;
          ::close(fd);
          throw ItemError(path, "write", std::string("cannot write: ") + std::strerror(saved));
        }
        done += std::size_t(n);
      }
    if (::close(fd) != 0) throw ItemError(path, "write", std::string("cannot close: ") + std::strerror(errno));
  });
}

}  // namespace gp::pnm

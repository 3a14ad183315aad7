#pragma once
// Buffered text output for the network writers: appends to a buffer flushed to the file every
// megabyte, numbers in the shortest form that reads back to the same double.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace gp::pnm {

class TextFile {
 public:
  // `path` is where bytes go (a temporary); `name` is the output named in errors.
  TextFile(const std::string& path, std::string name) : name_(std::move(name)) {
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) fail("cannot create");
    buffer_.reserve(kFlushBytes + 4096);
  }
  ~TextFile() {
    if (file_ != nullptr) std::fclose(file_);
  }
  TextFile(const TextFile&) = delete;
  TextFile& operator=(const TextFile&) = delete;

  TextFile& operator<<(const std::string& s) { return append(s.data(), s.size()); }
  TextFile& operator<<(const char* s) { return append(s, std::strlen(s)); }
  TextFile& operator<<(char c) { return append(&c, 1); }

  // Shortest round-trip form ("0.1", "1e-07", "nan").
  TextFile& real(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);
    return append(buf, std::size_t(r.ptr - buf));
  }
  TextFile& integer(long long v) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);
    return append(buf, std::size_t(r.ptr - buf));
  }
  // printf-style, for fixed-width formats (Statoil).
  template <class... Args>
  TextFile& format(const char* fmt, Args... args) {
    char buf[128];
    const int n = std::snprintf(buf, sizeof(buf), fmt, args...);
    if (n < 0 || std::size_t(n) >= sizeof(buf)) throw Error("TextFile::format: field too long");
    return append(buf, std::size_t(n));
  }

  void close() {
    flush();
    const int rc = std::fclose(file_);
    file_ = nullptr;
    if (rc != 0) fail("cannot close");
  }

 private:
  static constexpr std::size_t kFlushBytes = 1 << 20;

  TextFile& append(const char* s, std::size_t n) {
    buffer_.append(s, n);
    if (buffer_.size() >= kFlushBytes) flush();
    return *this;
  }
  void flush() {
    if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) fail("cannot write");
    buffer_.clear();
  }
  [[noreturn]] void fail(const char* what) { throw ItemError(name_, "write", std::string(what) + ": " + std::strerror(errno)); }

  std::FILE* file_ = nullptr;
  std::string name_;
  std::string buffer_;
};

}  // namespace gp::pnm

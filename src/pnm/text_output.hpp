#pragma once
// Text output for the network writers: rows formatted in chunks on all cores and written in order
// (TextWriter), numbers in the shortest form that reads back to the same double or in printf's
// fixed widths (TextBuffer).
#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "core/parallel_for.hpp"
#include "pnm/output_file.hpp"

namespace gp::pnm {

class TextBuffer {
 public:
  TextBuffer() = default;
  // Appends to `text`, whose capacity it keeps (buffers reused from batch to batch: a fresh one
  // costs a page fault per 4 KiB).
  explicit TextBuffer(std::string&& text) : text_(std::move(text)) {}

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
// rows are formatted on all cores (the calls must not depend on each other) into `parts`, one per
// chunk in row order (their concatenation is the rows' text); the strings already in `parts` are
// reused.
template <class Format>
void format_rows(std::vector<std::string>& parts, std::size_t rows, const Format& format, std::size_t chunk_rows = 2048) {
  const std::size_t chunks = (rows + chunk_rows - 1) / chunk_rows;
  parts.resize(chunks);
  parallel_for(long(chunks), [&](long first, long last) {
    for (long c = first; c < last; ++c) {
      std::string& part = parts[std::size_t(c)];
      part.clear();
      TextBuffer out(std::move(part));
      const std::size_t begin = std::size_t(c) * chunk_rows;
      format(out, begin, std::min(rows, begin + chunk_rows));
      part = std::move(out.str());
    }
  }, 1);
}

template <class Format>
std::vector<std::string> format_rows(std::size_t rows, const Format& format, std::size_t chunk_rows = 2048) {
  std::vector<std::string> parts;
  format_rows(parts, rows, format, chunk_rows);
  return parts;
}

// A text file being written: text appended is buffered (flushed every MiB); rows() formats rows in
// chunks on all cores, a batch of a few chunks per core at a time, written in order as each batch
// is done, so memory stays a few MB per core whatever the file's size.
class TextWriter {
 public:
  // `temp` is where the bytes go; `name` is the output named in errors.
  TextWriter(const std::string& temp, std::string name) : file_(temp, std::move(name)) {}

  TextWriter& operator<<(std::string_view s) {
    buffer_.append(s.data(), s.size());
    if (buffer_.size() >= kFlushBytes) flush();
    return *this;
  }
  TextWriter& operator<<(TextBuffer& b) { return *this << std::string_view(b.str()); }

  // Rows [0, rows): format(out, begin, end) appends rows begin..end-1 (see format_rows).
  template <class Format>
  void rows(std::size_t rows, const Format& format, std::size_t chunk_rows = 2048) {
    flush();
    const std::size_t batch_rows = chunk_rows * 4 * cpu_thread_count();
    for (std::size_t first = 0; first < rows; first += batch_rows) {
      format_rows(parts_, std::min(batch_rows, rows - first), [&](TextBuffer& out, std::size_t begin, std::size_t end) {
        format(out, first + begin, first + end);
      }, chunk_rows);
      for (const std::string& part : parts_) write(part);
    }
  }

  void close() {
    flush();
    file_.close();
  }

 private:
  static constexpr std::size_t kFlushBytes = std::size_t(1) << 20;

  void flush() {
    write(buffer_);
    buffer_.clear();
  }
  void write(const std::string& s) {
    file_.write_at(s.data(), s.size(), written_);
    written_ += s.size();
  }

  OutputFile file_;
  std::uint64_t written_ = 0;  // the file's size so far: where the next bytes go
  std::string buffer_;
  std::vector<std::string> parts_;  // a batch of chunks, reused
};

// Writes the file `path` atomically (gp::write_atomically) through write(TextWriter&); errors are
// gp::ItemError(path, "write", ...).
template <class Write>
void write_text_file(const std::string& path, const Write& write) {
  write_atomically(path, [&](const std::string& temp) {
    TextWriter out(temp, path);
    write(out);
    out.close();
  });
}

}  // namespace gp::pnm

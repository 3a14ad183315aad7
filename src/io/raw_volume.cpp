#include "io/raw_volume.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

#include <zlib.h>

#include "core/error.hpp"

namespace gp::io {
namespace {

enum class Dtype { u8, i8, u16, i16, u32, i32, f32, f64 };

Dtype parse_dtype(const std::string& name) {
  static const std::pair<const char*, Dtype> names[] = {{"uint8", Dtype::u8},   {"int8", Dtype::i8},
                                                         {"uint16", Dtype::u16}, {"int16", Dtype::i16},
                                                         {"uint32", Dtype::u32}, {"int32", Dtype::i32},
                                                         {"float32", Dtype::f32}, {"float64", Dtype::f64}};
  for (auto& [n, d] : names)
    if (name == n) return d;
  throw UsageError("unknown raw dtype '" + name + "' (uint8, int8, uint16, int16, uint32, int32, float32, float64)");
}

template <class T>
T load(const unsigned char* p, bool swap) {
  unsigned char bytes[sizeof(T)];
  for (std::size_t i = 0; i < sizeof(T); ++i) bytes[i] = swap ? p[sizeof(T) - 1 - i] : p[i];
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

template <class T>
void convert(const unsigned char* bytes, std::size_t count, bool swap, double slope, double intercept, float* out) {
  const bool identity = slope == 1 && intercept == 0;
  for (std::size_t i = 0; i < count; ++i) {
    const T v = load<T>(bytes + i * sizeof(T), swap);
    out[i] = identity ? float(v) : float(double(v) * slope + intercept);
  }
}

// Inflates a zlib or gzip stream (several gzip members in a row, as our NRRD writer makes) into
// `out`, which holds exactly the bytes expected; throws naming the file when the stream ends early.
void inflate_file(const std::string& path, std::uint64_t offset, std::vector<unsigned char>& out,
                  const std::string& expected_what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ItemError(path, "load", std::string("cannot open: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) throw ItemError(path, "load", "cannot start zlib");  // 32: zlib or gzip header
  struct Ender {
    z_stream* z;
    ~Ender() { inflateEnd(z); }
  } ender{&z};
  std::vector<unsigned char> chunk(std::size_t(1) << 20);
  std::uint64_t position = offset;
  std::size_t produced = 0;
  bool stream_end = false;
  auto fail = [&](const std::string& why) {
    throw ItemError(path, "load", why + " after " + std::to_string(produced) + " bytes of data; " + expected_what +
                                      " needs " + std::to_string(out.size()));
  };
  while (produced < out.size()) {
    if (z.avail_in == 0) {
      ssize_t n;
      do n = ::pread(fd, chunk.data(), chunk.size(), off_t(position));
      while (n < 0 && errno == EINTR);
      if (n < 0) throw ItemError(path, "load", std::string("cannot read: ") + std::strerror(errno));
      if (n == 0) fail(stream_end ? "the compressed data ends" : "the compressed data is cut off");
      position += std::uint64_t(n);
      z.next_in = chunk.data();
      z.avail_in = uInt(n);
    }
    if (stream_end) {  // another gzip member follows
      if (inflateReset(&z) != Z_OK) fail("zlib cannot continue");
      stream_end = false;
    }
    z.next_out = out.data() + produced;
    z.avail_out = uInt(std::min<std::size_t>(out.size() - produced, std::size_t(1) << 30));
    const std::size_t before = z.avail_out;
    const int rc = inflate(&z, Z_NO_FLUSH);
    produced += before - z.avail_out;
    if (rc == Z_STREAM_END)
      stream_end = true;
    else if (rc != Z_OK && !(rc == Z_BUF_ERROR && z.avail_in == 0))
      fail(std::string("the compressed data is damaged (") + (z.msg ? z.msg : "zlib error " + std::to_string(rc)) + ")");
  }
}

// Samples in a file, read a slice at a time (raw) or inflated once on first use (compressed).
class SampleSource final : public SliceSource {
 public:
  SampleSource(const SampleFile& file, double slope, double intercept)
      : file_(file), dtype_(parse_dtype(file.format.dtype)), sample_bytes_(raw_dtype_bytes(file.format.dtype)),
        slope_(slope), intercept_(intercept) {
    dims = file.format.dims;
    name = file.header.empty() ? file.path : file.header;
    // Our own byte order is little endian (x86-64, aarch64).
    swap_ = file.format.big_endian && sample_bytes_ > 1;
    const std::uint64_t data_bytes = dims.voxels() * sample_bytes_;
    if (file.compressed) {
      skip_ = file.format.header_bytes;
      return;
    }
    std::error_code ec;
    const auto size = std::filesystem::file_size(file.path, ec);
    if (ec) throw ItemError(file.path, "load", "cannot read the file size: " + ec.message());
    const std::string declared = std::to_string(dims.nx) + "x" + std::to_string(dims.ny) + "x" + std::to_string(dims.nz) +
                                 " " + file.format.dtype;
    if (file.at_end) {
      if (size < data_bytes)
        throw ItemError(file.path, "load", "file has " + std::to_string(size) + " bytes; " + declared + " needs " +
                                               std::to_string(data_bytes) + (file.header.empty() ? "" : " (header " + file.header + ")"));
      skip_ = size - data_bytes;
    } else {
      skip_ = file.format.header_bytes;
      if (size < skip_ + data_bytes)
        throw ItemError(file.path, "load", "file has " + std::to_string(size) + " bytes; " + declared + " after " +
                                               std::to_string(skip_) + " bytes skipped needs " + std::to_string(skip_ + data_bytes) +
                                               (file.header.empty() ? "" : " (header " + file.header + ")"));
    }
  }

  std::unique_ptr<SliceReader> reader() const override { return std::make_unique<Reader>(*this); }

 private:
  // The whole inflated stream, made by the first reader that needs it (a failure is thrown to
  // each reader that tries).
  const std::vector<unsigned char>& inflated() const {
    std::lock_guard<std::mutex> lock(inflate_mutex_);
    if (!inflated_ready_) {
      std::vector<unsigned char> bytes(skip_ + dims.voxels() * sample_bytes_);
      inflate_file(file_.path, file_.file_offset, bytes,
                   std::to_string(dims.nx) + "x" + std::to_string(dims.ny) + "x" + std::to_string(dims.nz) + " " +
                       file_.format.dtype + (skip_ ? " after " + std::to_string(skip_) + " bytes skipped" : ""));
      inflated_ = std::move(bytes);
      inflated_ready_ = true;
    }
    return inflated_;
  }

  class Reader final : public SliceReader {
   public:
    explicit Reader(const SampleSource& source) : source_(source), bytes_(source.dims.slice_voxels() * source.sample_bytes_) {
      if (source.file_.compressed) return;
      fd_ = ::open(source.file_.path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) throw ItemError(source.file_.path, "load", std::string("cannot open: ") + std::strerror(errno));
    }
    ~Reader() override {
      if (fd_ >= 0) ::close(fd_);
    }

    void read(int z, float* values) override {
      const auto& s = source_;
      const std::uint64_t offset = s.skip_ + std::uint64_t(z) * bytes_.size();
      const unsigned char* b = bytes_.data();
      if (s.file_.compressed) {
        b = s.inflated().data() + offset;
      } else {
        for (std::size_t done = 0; done < bytes_.size();) {
          const ssize_t n = ::pread(fd_, bytes_.data() + done, bytes_.size() - done, off_t(offset + done));
          if (n < 0 && errno == EINTR) continue;
          if (n <= 0)
            throw ItemError(s.file_.path, "load", "cannot read slice " + std::to_string(z) + ": " +
                                                      (n < 0 ? std::strerror(errno) : "file shorter than expected"));
          done += std::size_t(n);
        }
      }
      const std::size_t count = s.dims.slice_voxels();
      switch (s.dtype_) {
        case Dtype::u8: return convert<std::uint8_t>(b, count, false, s.slope_, s.intercept_, values);
        case Dtype::i8: return convert<std::int8_t>(b, count, false, s.slope_, s.intercept_, values);
        case Dtype::u16: return convert<std::uint16_t>(b, count, s.swap_, s.slope_, s.intercept_, values);
        case Dtype::i16: return convert<std::int16_t>(b, count, s.swap_, s.slope_, s.intercept_, values);
        case Dtype::u32: return convert<std::uint32_t>(b, count, s.swap_, s.slope_, s.intercept_, values);
        case Dtype::i32: return convert<std::int32_t>(b, count, s.swap_, s.slope_, s.intercept_, values);
        case Dtype::f32: return convert<float>(b, count, s.swap_, s.slope_, s.intercept_, values);
        case Dtype::f64: return convert<double>(b, count, s.swap_, s.slope_, s.intercept_, values);
      }
    }

   private:
    const SampleSource& source_;
    std::vector<unsigned char> bytes_;
    int fd_ = -1;
  };

  SampleFile file_;
  Dtype dtype_;
  std::size_t sample_bytes_;
  double slope_, intercept_;
  bool swap_ = false;
  std::uint64_t skip_ = 0;
  mutable std::mutex inflate_mutex_;
  mutable bool inflated_ready_ = false;
  mutable std::vector<unsigned char> inflated_;
};

}  // namespace

std::size_t raw_dtype_bytes(const std::string& dtype) {
  switch (parse_dtype(dtype)) {
    case Dtype::u8:
    case Dtype::i8: return 1;
    case Dtype::u16:
    case Dtype::i16: return 2;
    case Dtype::u32:
    case Dtype::i32:
    case Dtype::f32: return 4;
    case Dtype::f64: return 8;
  }
  return 0;
}

std::unique_ptr<SliceSource> open_raw_volume(const std::string& path, const VolumeReadOptions& options) {
  const auto& d = options.raw.dims;
  if (d.nx < 1 || d.ny < 1 || d.nz < 1)
    throw UsageError("raw volume " + path + " needs its dims (nx, ny, nz all at least 1)");
  const std::size_t sample_bytes = raw_dtype_bytes(options.raw.dtype);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw ItemError(path, "load", "cannot read the file size: " + ec.message());
  // A headerless file must match its declared size exactly: a mismatch means wrong dims or dtype.
  const std::uint64_t expected = options.raw.header_bytes + d.voxels() * sample_bytes;
  if (size != expected)
    throw ItemError(path, "load", "file has " + std::to_string(size) + " bytes; " + std::to_string(d.nx) + "x" +
                                      std::to_string(d.ny) + "x" + std::to_string(d.nz) + " " + options.raw.dtype +
                                      " after a " + std::to_string(options.raw.header_bytes) + "-byte header needs " +
                                      std::to_string(expected));
  SampleFile file;
  file.path = path;
  file.format = options.raw;
  auto source = std::make_unique<SampleSource>(file, options.slope, options.intercept);
  if (options.spacing_given) source->spacing = options.spacing;
  source->description = "raw " + options.raw.dtype +
                        (sample_bytes > 1 ? options.raw.big_endian ? " big-endian" : " little-endian" : "") + ", " +
                        std::to_string(d.nx) + "x" + std::to_string(d.ny) + "x" + std::to_string(d.nz);
  return source;
}

std::unique_ptr<SliceSource> open_sample_file(const SampleFile& file, double slope, double intercept) {
  const auto& d = file.format.dims;
  if (d.nx < 1 || d.ny < 1 || d.nz < 1) throw ItemError(file.header, "load", "the header gives no sizes");
  return std::make_unique<SampleSource>(file, slope, intercept);
}

}  // namespace gp::io

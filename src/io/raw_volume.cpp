#include "io/raw_volume.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

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

class RawSource final : public SliceSource {
 public:
  RawSource(const std::string& path, const VolumeReadOptions& options)
      : path_(path), dtype_(parse_dtype(options.raw.dtype)), sample_bytes_(raw_dtype_bytes(options.raw.dtype)),
        header_(options.raw.header_bytes), slope_(options.slope), intercept_(options.intercept) {
    const auto& d = options.raw.dims;
    if (d.nx < 1 || d.ny < 1 || d.nz < 1)
      throw UsageError("raw volume " + path + " needs its dims (nx, ny, nz all at least 1)");
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw ItemError(path, "load", "cannot read the file size: " + ec.message());
    const std::uint64_t expected = header_ + d.voxels() * sample_bytes_;
    if (size != expected)
      throw ItemError(path, "load", "file has " + std::to_string(size) + " bytes; " + std::to_string(d.nx) + "x" +
                                        std::to_string(d.ny) + "x" + std::to_string(d.nz) + " " + options.raw.dtype +
                                        " after a " + std::to_string(header_) + "-byte header needs " +
                                        std::to_string(expected));
    dims = d;
    name = path;
    if (options.spacing_given) spacing = options.spacing;
    // Our own byte order is little endian (x86-64, aarch64).
    swap_ = options.raw.big_endian && sample_bytes_ > 1;
    description = "raw " + options.raw.dtype + (sample_bytes_ > 1 ? options.raw.big_endian ? " big-endian" : " little-endian" : "") +
                  ", " + std::to_string(d.nx) + "x" + std::to_string(d.ny) + "x" + std::to_string(d.nz);
  }

  std::unique_ptr<SliceReader> reader() const override { return std::make_unique<Reader>(*this); }

 private:
  class Reader final : public SliceReader {
   public:
    explicit Reader(const RawSource& source) : source_(source), bytes_(source.dims.slice_voxels() * source.sample_bytes_) {
      fd_ = ::open(source.path_.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) throw ItemError(source.path_, "load", std::string("cannot open: ") + std::strerror(errno));
    }
    ~Reader() override { ::close(fd_); }

    void read(int z, float* values) override {
      const auto& s = source_;
      std::uint64_t offset = s.header_ + std::uint64_t(z) * bytes_.size();
      for (std::size_t done = 0; done < bytes_.size();) {
        const ssize_t n = ::pread(fd_, bytes_.data() + done, bytes_.size() - done, off_t(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
          throw ItemError(s.path_, "load", "cannot read slice " + std::to_string(z) + ": " +
                                               (n < 0 ? std::strerror(errno) : "file shorter than expected"));
        done += std::size_t(n);
      }
      const std::size_t count = s.dims.slice_voxels();
      const unsigned char* b = bytes_.data();
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
    const RawSource& source_;
    std::vector<unsigned char> bytes_;
    int fd_ = -1;
  };

  std::string path_;
  Dtype dtype_;
  std::size_t sample_bytes_;
  std::uint64_t header_;
  double slope_, intercept_;
  bool swap_ = false;
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
  return std::make_unique<RawSource>(path, options);
}

}  // namespace gp::io

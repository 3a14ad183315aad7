// JPEG header parsing (our own marker walk) and the CPU codec (libjpeg-turbo's TurboJPEG API).
#include <turbojpeg.h>

#include <climits>
#include <string>
#include <utility>

#include "core/gpu_runtime.hpp"
#include "io/jpeg_codec.hpp"

namespace gp::io {

namespace {

unsigned read_be16(const std::uint8_t* p) { return unsigned(p[0]) << 8 | unsigned(p[1]); }

std::string size_text(int width, int height) { return std::to_string(width) + "x" + std::to_string(height); }

// Frame headers: SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
bool is_frame_header(unsigned marker) {
  return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
}

ChromaSubsampling subsampling_of(const std::uint8_t* components, int count) {
  if (count == 1) return ChromaSubsampling::gray;
  if (count != 3) return ChromaSubsampling::other;
  const int h0 = components[1] >> 4, v0 = components[1] & 15;
  const int h1 = components[4] >> 4, v1 = components[4] & 15;
  const int h2 = components[7] >> 4, v2 = components[7] & 15;
  if (h1 != h2 || v1 != v2 || h1 == 0 || v1 == 0 || h0 % h1 || v0 % v1) return ChromaSubsampling::other;
  const int h = h0 / h1, v = v0 / v1;
  if (h == 1 && v == 1) return ChromaSubsampling::s444;
  if (h == 2 && v == 1) return ChromaSubsampling::s422;
  if (h == 2 && v == 2) return ChromaSubsampling::s420;
  return ChromaSubsampling::other;
}

// An EOI marker after `scan_start`. Entropy-coded data never holds FF D9 (an FF there is followed by
// 00 or a restart marker), while an Exif thumbnail before the scan may, hence the lower bound.
bool end_marker_after(const std::uint8_t* data, std::size_t size, std::size_t scan_start) {
  for (std::size_t i = size; i >= scan_start + 2; --i)
    if (data[i - 2] == 0xFF && data[i - 1] == 0xD9) return true;
  return false;
}

[[noreturn]] void throw_turbojpeg(void* handle, const std::string& name, const char* stage) {
  throw ItemError(name, stage, tjGetErrorStr2(handle));
}

int turbojpeg_subsampling(ChromaSubsampling s, int channels) {
  if (channels == 1) return TJSAMP_GRAY;
  switch (s) {
    case ChromaSubsampling::s444: return TJSAMP_444;
    case ChromaSubsampling::s422: return TJSAMP_422;
    case ChromaSubsampling::s420: return TJSAMP_420;
    case ChromaSubsampling::gray: return TJSAMP_GRAY;
    case ChromaSubsampling::other: break;
  }
  throw Error("JPEG encode: chroma subsampling must be 4:4:4, 4:2:2, 4:2:0 or grey");
}

void check_u8_view(const ImageView& view, const char* what) {
  if (view.type != PixelType::u8 || (view.channels != 1 && view.channels != 3) || !view.data || view.width <= 0 ||
      view.height <= 0 || view.pitch < view.row_bytes() || view.pitch > std::size_t(INT_MAX))
    throw Error(std::string("JPEG ") + what + ": the image must be u8 with 1 or 3 channels, non-empty, pitch >= row bytes");
}

}  // namespace

ChromaSubsampling parse_chroma_subsampling(const std::string& text) {
  if (text == "444" || text == "4:4:4") return ChromaSubsampling::s444;
  if (text == "422" || text == "4:2:2") return ChromaSubsampling::s422;
  if (text == "420" || text == "4:2:0") return ChromaSubsampling::s420;
  throw UsageError("JPEG chroma subsampling must be 444, 422 or 420, not '" + text + "'");
}

const char* chroma_subsampling_name(ChromaSubsampling s) {
  switch (s) {
    case ChromaSubsampling::s444: return "4:4:4";
    case ChromaSubsampling::s422: return "4:2:2";
    case ChromaSubsampling::s420: return "4:2:0";
    case ChromaSubsampling::gray: return "grey";
    case ChromaSubsampling::other: break;
  }
  return "other";
}

JpegInfo jpeg_info(const std::uint8_t* data, std::size_t size, const std::string& name) {
  auto fail = [&](const std::string& what) -> ItemError { return ItemError(name, "decode", what); };
  if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) throw fail("not a JPEG file (no SOI marker)");
  JpegInfo info;
  bool have_frame = false;
  std::size_t pos = 2;
  for (;;) {
    if (pos >= size) throw fail("truncated: the file ends in the header, before the image data");
    if (data[pos] != 0xFF) throw fail("corrupt header: no marker at byte " + std::to_string(pos));
    while (pos < size && data[pos] == 0xFF) ++pos;  // fill bytes
    if (pos >= size) throw fail("truncated: the file ends in the header, before the image data");
    const unsigned marker = data[pos++];
    if (marker == 0xD9) throw fail("no image data: end-of-image marker before any scan");
    if (marker == 0x00 || marker == 0xD8) throw fail("corrupt header: unexpected marker at byte " + std::to_string(pos - 2));
    if ((marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) continue;  // no length field
    if (pos + 2 > size) throw fail("truncated: the file ends in the header, before the image data");
    const std::size_t length = read_be16(data + pos);
    if (length < 2) throw fail("corrupt header: segment length " + std::to_string(length) + " at byte " + std::to_string(pos));
    if (pos + length > size) throw fail("truncated: the file ends in the header, before the image data");
    const std::uint8_t* segment = data + pos + 2;
    if (is_frame_header(marker)) {
      if (have_frame) throw fail("corrupt header: two frame headers");
      if (length < 8) throw fail("corrupt frame header (SOF) of " + std::to_string(length) + " bytes");
      info.precision = segment[0];
      info.height = int(read_be16(segment + 1));
      info.width = int(read_be16(segment + 3));
      info.channels = segment[5];
      if (info.channels == 0 || length < 8 + 3 * std::size_t(info.channels))
        throw fail("corrupt frame header (SOF): " + std::to_string(info.channels) + " components in " +
                   std::to_string(length) + " bytes");
      if (info.width == 0 || info.height == 0)
        throw fail("frame header gives a size of " + size_text(info.width, info.height) +
                   " (a height set later by a DNL marker is not supported)");
      info.progressive = marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE;
      info.arithmetic = marker >= 0xC9;
      info.subsampling = subsampling_of(segment + 6, info.channels);
      have_frame = true;
    } else if (marker == 0xDA) {
      if (!have_frame) throw fail("corrupt header: scan (SOS) before the frame header (SOF)");
      info.has_end_marker = end_marker_after(data, size, pos + length);
      return info;
    }
    pos += length;
  }
}

CpuJpegCodec::CpuJpegCodec() = default;

CpuJpegCodec::~CpuJpegCodec() {
  if (decompressor_) tjDestroy(decompressor_);
  if (compressor_) tjDestroy(compressor_);
  if (encode_buffer_) tjFree(encode_buffer_);
}

CpuJpegCodec::CpuJpegCodec(CpuJpegCodec&& o) noexcept
    : decompressor_(std::exchange(o.decompressor_, nullptr)),
      compressor_(std::exchange(o.compressor_, nullptr)),
      compressor_progressive_(std::exchange(o.compressor_progressive_, false)),
      encode_buffer_(std::exchange(o.encode_buffer_, nullptr)),
      encode_capacity_(std::exchange(o.encode_capacity_, 0)) {}

CpuJpegCodec& CpuJpegCodec::operator=(CpuJpegCodec&& o) noexcept {
  if (this != &o) {
    std::swap(decompressor_, o.decompressor_);
    std::swap(compressor_, o.compressor_);
    std::swap(compressor_progressive_, o.compressor_progressive_);
    std::swap(encode_buffer_, o.encode_buffer_);
    std::swap(encode_capacity_, o.encode_capacity_);
  }
  return *this;
}

void CpuJpegCodec::decode(const std::uint8_t* data, std::size_t size, const ImageView& dst, const std::string& name,
                          const JpegDecodeOptions& options) {
  check_u8_view(dst, "decode");
  if (!data || size == 0) throw ItemError(name, "decode", "empty file");
  if (!decompressor_) {
    decompressor_ = tjInitDecompress();
    if (!decompressor_) throw Error(std::string("TurboJPEG: cannot create a decompressor: ") + tjGetErrorStr2(nullptr));
  }
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(decompressor_, data, static_cast<unsigned long>(size), &width, &height, &subsampling,
                          &colorspace) != 0)
    throw_turbojpeg(decompressor_, name, "decode");
  if (width != dst.width || height != dst.height)
    throw ItemError(name, "decode", "the image is " + size_text(width, height) + ", not " + size_text(dst.width, dst.height));
  if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK)
    throw ItemError(name, "decode", "CMYK/YCCK JPEGs are not supported");
  const int flags = (options.strict ? TJFLAG_STOPONWARNING : 0) | (options.fast_dct ? TJFLAG_FASTDCT : TJFLAG_ACCURATEDCT) |
                    (options.fast_upsample ? TJFLAG_FASTUPSAMPLE : 0);
  const int format = dst.channels == 3 ? TJPF_RGB : TJPF_GRAY;
  if (tjDecompress2(decompressor_, data, static_cast<unsigned long>(size), static_cast<unsigned char*>(dst.data), width,
                    int(dst.pitch), height, format, flags) != 0) {
    // A warning still returns -1, with the image complete as far as the data went.
    if (!options.strict && tjGetErrorCode(decompressor_) == TJERR_WARNING) return;
    throw_turbojpeg(decompressor_, name, "decode");
  }
}

void CpuJpegCodec::encode(const ImageView& image, const JpegEncodeOptions& options, std::vector<std::uint8_t>& out,
                          const std::string& name) {
  check_u8_view(image, "encode");
  if (options.quality < 1 || options.quality > 100)
    throw Error("JPEG encode: quality " + std::to_string(options.quality) + " is outside 1..100");
  const int subsampling = turbojpeg_subsampling(options.subsampling, image.channels);
  if (compressor_ && compressor_progressive_ && !options.progressive) {
    // libjpeg-turbo 2.1 keeps the progressive scan script of an earlier call: a new compressor.
    tjDestroy(compressor_);
    compressor_ = nullptr;
  }
  if (!compressor_) {
    compressor_ = tjInitCompress();
    if (!compressor_) throw Error(std::string("TurboJPEG: cannot create a compressor: ") + tjGetErrorStr2(nullptr));
  }
  // Room for the worst case, so TurboJPEG never reallocates (TJFLAG_NOREALLOC) and the buffer's
  // size stays known.
  const unsigned long worst = tjBufSize(image.width, image.height, subsampling);
  if (worst == static_cast<unsigned long>(-1)) throw_turbojpeg(nullptr, name, "encode");
  if (worst > encode_capacity_) {
    if (encode_buffer_) tjFree(encode_buffer_);
    encode_capacity_ = 0;
    encode_buffer_ = worst <= static_cast<unsigned long>(INT_MAX) ? tjAlloc(int(worst)) : nullptr;
    if (!encode_buffer_) throw Error("JPEG encode: cannot allocate " + std::to_string(worst) + " bytes");
    encode_capacity_ = worst;
  }
  unsigned long jpeg_size = encode_capacity_;
  const int flags = TJFLAG_NOREALLOC | (options.fast_dct ? TJFLAG_FASTDCT : TJFLAG_ACCURATEDCT) |
                    (options.progressive ? TJFLAG_PROGRESSIVE : 0);
  const int format = image.channels == 3 ? TJPF_RGB : TJPF_GRAY;
  if (tjCompress2(compressor_, static_cast<const unsigned char*>(image.data), image.width, int(image.pitch), image.height,
                  format, &encode_buffer_, &jpeg_size, subsampling, options.quality, flags) != 0)
    throw_turbojpeg(compressor_, name, "encode");
  compressor_progressive_ = options.progressive;
  out.assign(encode_buffer_, encode_buffer_ + jpeg_size);
}

namespace {
CpuJpegCodec& thread_codec() {
  thread_local CpuJpegCodec codec;
  return codec;
}
}  // namespace

void decode_jpeg(const std::uint8_t* data, std::size_t size, const ImageView& dst, const std::string& name,
                 const JpegDecodeOptions& options) {
  thread_codec().decode(data, size, dst, name, options);
}

std::vector<std::uint8_t> encode_jpeg(const ImageView& image, const JpegEncodeOptions& options, const std::string& name) {
  std::vector<std::uint8_t> out;
  thread_codec().encode(image, options, out, name);
  return out;
}

bool gpu_jpeg_available(const Runtime& runtime) {
#ifdef GPUPROC_HAVE_NVJPEG
  return runtime.gpu();
#else
  (void)runtime;
  return false;
#endif
}

}  // namespace gp::io

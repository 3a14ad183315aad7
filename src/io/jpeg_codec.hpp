#pragma once
// JPEG decode and encode of 8-bit interleaved images: libjpeg-turbo's TurboJPEG on the CPU (always),
// nvJPEG on the GPU where CMake found it (GPUPROC_HAVE_NVJPEG). Both take gp::ImageView, u8, with
// 3 channels (RGB) or 1 (grey), any pitch. Errors about one file are gp::ItemError(name, "decode" or
// "encode", ...), so a batch can report the file and go on.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/views.hpp"

namespace gp {
class Runtime;
class Stream;
}  // namespace gp

namespace gp::io {

enum class ChromaSubsampling { s444, s422, s420, gray, other };

// "444", "422", "420" (also "4:2:0" ...); throws gp::UsageError naming what is accepted.
ChromaSubsampling parse_chroma_subsampling(const std::string& text);
const char* chroma_subsampling_name(ChromaSubsampling s);

// What the frame header (SOF) says, read without decoding.
struct JpegInfo {
  int width = 0, height = 0;
  int channels = 0;        // components in the file: 1 grey, 3 YCbCr, 4 CMYK/YCCK
  int precision = 8;       // bits per sample
  bool progressive = false;
  bool arithmetic = false;  // arithmetic entropy coding (SOF9..SOF15)
  ChromaSubsampling subsampling = ChromaSubsampling::other;
  // An end-of-image marker follows the first scan's data: a file cut short has none.
  bool has_end_marker = false;
};

// Walks the markers up to the first scan (SOS). Cheap: no entropy decoding. Throws
// gp::ItemError(name, "decode", ...) when the bytes are not a JPEG or end before the scan data.
JpegInfo jpeg_info(const std::uint8_t* data, std::size_t size, const std::string& name);
inline JpegInfo jpeg_info(const std::vector<std::uint8_t>& bytes, const std::string& name) {
  return jpeg_info(bytes.data(), bytes.size(), name);
}

// Bytes of a packed decoded image with `channels` (1 or 3) values per pixel.
inline std::size_t jpeg_decoded_bytes(const JpegInfo& info, int channels) {
  return std::size_t(info.width) * std::size_t(info.height) * std::size_t(channels);
}

struct JpegDecodeOptions {
  // Faster, less accurate CPU paths (TurboJPEG's IFAST IDCT; nearest-neighbour chroma upsampling).
  bool fast_dct = false;
  bool fast_upsample = false;
  // Warnings (premature end of data, extraneous bytes, corrupt entropy data) are errors. Off: the
  // image libjpeg-turbo recovered (grey where data was missing) is returned without complaint.
  bool strict = true;
};

struct JpegEncodeOptions {
  int quality = 95;  // 1..100
  ChromaSubsampling subsampling = ChromaSubsampling::s420;  // s444, s422 or s420; grey images: grey
  bool fast_dct = false;          // CPU only: TurboJPEG's IFAST forward DCT
  bool optimize_huffman = false;  // GPU only (TurboJPEG 2.1 has no switch for it): smaller, slower
  bool progressive = false;       // progressive instead of baseline (GPU engines decode baseline only)
};

// One TurboJPEG decompressor and compressor. Not thread-safe: one per thread (the free functions
// below keep one per thread for you).
class CpuJpegCodec {
 public:
  CpuJpegCodec();
  ~CpuJpegCodec();
  CpuJpegCodec(CpuJpegCodec&& o) noexcept;
  CpuJpegCodec& operator=(CpuJpegCodec&& o) noexcept;
  CpuJpegCodec(const CpuJpegCodec&) = delete;
  CpuJpegCodec& operator=(const CpuJpegCodec&) = delete;

  // Decodes into dst: u8, 3 channels (RGB) or 1 (grey; luma of a colour file), dst.width/height
  // equal to the file's (jpeg_info first). Throws gp::ItemError(name, "decode", TurboJPEG's message).
  void decode(const std::uint8_t* data, std::size_t size, const ImageView& dst, const std::string& name,
              const JpegDecodeOptions& options = {});
  // Encodes a u8 image with 3 (RGB) or 1 (grey) channels into `out` (replaced; its capacity is
  // reused). Throws gp::ItemError(name, "encode", ...).
  void encode(const ImageView& image, const JpegEncodeOptions& options, std::vector<std::uint8_t>& out,
              const std::string& name);

 private:
  void* decompressor_ = nullptr;  // tjhandle, created on first use
  void* compressor_ = nullptr;
  bool compressor_progressive_ = false;  // TurboJPEG 2.1 stays progressive once it was: then a new one
  unsigned char* encode_buffer_ = nullptr;  // TurboJPEG grows it as needed and we keep it
  unsigned long encode_capacity_ = 0;
};

// The same with a codec per calling thread.
void decode_jpeg(const std::uint8_t* data, std::size_t size, const ImageView& dst, const std::string& name,
                 const JpegDecodeOptions& options = {});
std::vector<std::uint8_t> encode_jpeg(const ImageView& image, const JpegEncodeOptions& options,
                                      const std::string& name);

// An item of a batch: empty when it succeeded, else its error (naming the file).
using ItemOutcome = std::optional<ItemError>;

// Whether this build has the nvJPEG codec and the runtime a GPU to run it on.
bool gpu_jpeg_available(const Runtime& runtime);

#ifdef GPUPROC_HAVE_NVJPEG

// A file's bytes in host memory and the name its errors carry.
struct JpegSource {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  std::string name;
};

struct GpuJpegOptions {
  bool hardware_decode = true;      // the GPU's JPEG engines (A100, H100...) where it has them
  bool runtime_allocators = true;   // nvJPEG's scratch from the runtime's pools (see the .cpp)
  bool strict_bitstream = false;    // NVJPEG_FLAGS_BITSTREAM_STRICT: reject non-conforming files
  int encoder_states = 16;          // images encoded between two waits for the GPU
  // Spare capacity in each encoded output, so metadata inserted afterwards (EXIF, ~300 bytes)
  // moves the bytes in place instead of copying them into a new allocation.
  std::size_t output_headroom = 0;
  // The batched decoder's states made with the codec (false: at its first decode; an encoder-only
  // use then never pays their set-up, 0.1-0.7 s each).
  bool prepare_decoder = true;
  // Hints for nvjpegDecodeBatchedPreAllocate (hardware decoder): the largest batch and image size.
  int expected_batch = 0, expected_width = 0, expected_height = 0;
};

// How a codec's decodes went so far: files decoded by nvjpegDecodeBatched (the hardware decoder
// where there is one), files sent to nvjpegDecode one by one (progressive ones, or after a failed
// batch), and batched calls that failed.
struct GpuJpegCounters {
  std::size_t batched = 0;
  std::size_t single = 0;
  std::size_t failed_batches = 0;
  // Batches tried again after an allocation inside nvJPEG (not through the runtime's allocators)
  // failed, with the runtime's cached device memory given back to the driver first.
  std::size_t allocator_retries = 0;
};

// The nvJPEG library handle (backend and allocators; options hardware_decode, runtime_allocators,
// strict_bitstream) that codecs on several threads can share: the handle is thread-safe, and making
// one is the slow part (0.8 s with the hardware backend on an H100; several made at once take
// longer each).
class GpuJpegContext {
 public:
  explicit GpuJpegContext(Runtime& runtime, const GpuJpegOptions& options = {});
  ~GpuJpegContext();
  GpuJpegContext(const GpuJpegContext&) = delete;
  GpuJpegContext& operator=(const GpuJpegContext&) = delete;

  bool hardware_decoder() const;
  const std::string& decoder_description() const;
  Runtime& runtime() const { return runtime_; }

  struct Impl;

 private:
  friend class GpuJpegCodec;
  Runtime& runtime_;
  std::unique_ptr<Impl> impl_;
};

// nvJPEG decode into device images and encode from device images. One per thread: the nvJPEG states
// inside serve one call at a time. Created on, and used with, the runtime's device.
class GpuJpegCodec {
 public:
  // With a context of its own.
  GpuJpegCodec(Runtime& runtime, const GpuJpegOptions& options = {});
  // Sharing `context` (its options were given when it was made; the others apply here).
  GpuJpegCodec(std::shared_ptr<const GpuJpegContext> context, const GpuJpegOptions& options = {});
  ~GpuJpegCodec();
  GpuJpegCodec(const GpuJpegCodec&) = delete;
  GpuJpegCodec& operator=(const GpuJpegCodec&) = delete;

  bool hardware_decoder() const;  // the JPEG engines decode baseline files
  // "nvJPEG hardware decoder", or the CUDA decoder and why the hardware one is not used (reports).
  const std::string& decoder_description() const;
  GpuJpegCounters counters() const;

  // Decodes sources[i] into outputs[i] (device memory; u8, 3 channels = RGB or 1 = grey; its size
  // must be the file's, see jpeg_info). A file that cannot be decoded (not a JPEG, cut short,
  // corrupt, a size other than its output's, 12-bit, CMYK) fails alone: its outcome holds the error
  // and its output is left undefined; the others are decoded. The work is queued on `stream`:
  // synchronize it before reading the outputs or reusing the sources' bytes.
  std::vector<ItemOutcome> decode_batch(const std::vector<JpegSource>& sources, const std::vector<ImageView>& outputs,
                                        const Stream& stream);
  // One file; throws gp::ItemError.
  void decode(const JpegSource& source, const ImageView& output, const Stream& stream);

  // Encodes device images (u8, 3 channels, RGB) into outputs[i] on the host (resized to the
  // files' sizes; capacity reused). names[i] is what an error about image i says. Returns when the
  // bytes are on the host. All options apply but fast_dct.
  std::vector<ItemOutcome> encode_batch(const std::vector<ImageView>& images, const std::vector<std::string>& names,
                                        const JpegEncodeOptions& options, const Stream& stream,
                                        std::vector<std::vector<std::uint8_t>>& outputs);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

#endif  // GPUPROC_HAVE_NVJPEG

}  // namespace gp::io

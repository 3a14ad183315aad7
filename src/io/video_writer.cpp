#include "io/video_writer.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

extern "C" {
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "io/libav_support.hpp"
#include "io/video_reader.hpp"

namespace gp::io {

using libav::error_text;
namespace fs = std::filesystem;

void VideoWriterOptions::timing_from(const VideoStreamInfo& info) {
  if (info.frame_rate.valid()) frame_rate = info.frame_rate;
  if (info.time_base.valid()) time_base = info.time_base;
}

namespace {

// Frees an AVDictionary on every path out.
struct Dictionary {
  AVDictionary* entries = nullptr;
  ~Dictionary() { av_dict_free(&entries); }
  void set(const std::string& key, const std::string& value) { av_dict_set(&entries, key.c_str(), value.c_str(), 0); }
  bool has(const std::string& key) const { return av_dict_get(entries, key.c_str(), nullptr, 0) != nullptr; }
  // The keys nobody took, "a, b".
  std::string keys() const {
    std::string list;
    for (const AVDictionaryEntry* e = nullptr; (e = av_dict_get(entries, "", e, AV_DICT_IGNORE_SUFFIX));)
      list += (list.empty() ? "" : ", ") + std::string(e->key);
    return list;
  }
};

bool supports(const AVCodec* encoder, AVPixelFormat format) {
  if (!encoder->pix_fmts) return true;  // the encoder does not say: let it decide when opened
  for (const AVPixelFormat* f = encoder->pix_fmts; *f != AV_PIX_FMT_NONE; ++f)
    if (*f == format) return true;
  return false;
}

bool has_alpha(AVPixelFormat format) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
  return d && (d->flags & AV_PIX_FMT_FLAG_ALPHA);
}

bool is_rgb(AVPixelFormat format) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
  return d && (d->flags & AV_PIX_FMT_FLAG_RGB);
}

bool is_gray(AVPixelFormat format) {
  const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(format);
  return d && !(d->flags & AV_PIX_FMT_FLAG_RGB) && d->nb_components <= 2;
}

bool is_libx26x(const std::string& codec) { return codec == "libx264" || codec == "libx264rgb" || codec == "libx265"; }

}  // namespace

struct VideoWriter::State {
  std::string path, temp_path;
  VideoWriterOptions options;
  int width = 0, height = 0;
  libav::OutputContext output;
  libav::CodecContext encoder;
  AVStream* stream = nullptr;
  libav::Frame frame = libav::make_frame();
  libav::Packet packet = libav::make_packet();
  libav::Converter converter;
  libav::PictureFormat encoded;  // what the encoder is fed
  AVRational time_base{1, 30};
  std::int64_t frames_written = 0;
  std::int64_t last_pts = -1;
  bool finished = false;

  [[noreturn]] void fail(const std::string& what) const { throw ItemError(path, "encode", what); }
  [[noreturn]] void usage(const std::string& what) const { throw UsageError(path + ": " + what); }

  void open();
  const AVCodec* find_encoder();
  AVPixelFormat choose_pixel_format(const AVCodec* encoder) const;
  void open_encoder(const AVCodec* encoder);
  void open_file();
  void encode(const libav::PictureFormat& from, const std::uint8_t* const src[4], const int pitch[4], std::int64_t pts);
  void drain();
  void finish();
  void discard() noexcept;
};

const AVCodec* VideoWriter::State::find_encoder() {
  const AVCodec* encoder = avcodec_find_encoder_by_name(options.codec.c_str());
  if (!encoder || !av_codec_is_encoder(encoder))
    usage("no video encoder \"" + options.codec + "\" in this FFmpeg build (`ffmpeg -encoders` lists them)");
  if (encoder->type != AVMEDIA_TYPE_VIDEO) usage("\"" + options.codec + "\" is not a video encoder");
  // Lossless: codecs that are nothing else (ffv1, png, qtrle, utvideo...), or the encoders we
  // switch into a lossless mode.
  const AVCodecDescriptor* codec = avcodec_descriptor_get(encoder->id);
  const bool only_lossless = codec && (codec->props & AV_CODEC_PROP_LOSSLESS) && !(codec->props & AV_CODEC_PROP_LOSSY);
  if (options.lossless && !only_lossless && !is_libx26x(options.codec) && options.codec != "libvpx-vp9")
    usage("the " + options.codec + " encoder is not lossless (use ffv1, png, qtrle, utvideo, libx264, libx264rgb or libvpx-vp9)");
  return encoder;
}

AVPixelFormat VideoWriter::State::choose_pixel_format(const AVCodec* encoder) const {
  const AVPixelFormat given = libav::pixel_format_of(options.input);
  if (supports(encoder, given)) return given;
  const bool alpha = has_alpha(given);
  int loss = 0;
  const AVPixelFormat best = avcodec_find_best_pix_fmt_of_list(encoder->pix_fmts, given, alpha, &loss);
  if (best == AV_PIX_FMT_NONE) usage("the " + options.codec + " encoder takes no pixel format we can convert to");
  if (alpha && (loss & FF_LOSS_ALPHA))
    usage("the " + options.codec + " encoder has no alpha channel for rgba frames (use ffv1, png, qtrle or utvideo)");
  // Grey into YUV only adds neutral chroma; everything else that loses detail breaks `lossless`.
  const bool gray_into_yuv = options.input == VideoPixels::gray8 && !is_rgb(best);
  const int detail = FF_LOSS_RESOLUTION | FF_LOSS_DEPTH | FF_LOSS_COLORSPACE | FF_LOSS_CHROMA | FF_LOSS_COLORQUANT;
  if (options.lossless && !gray_into_yuv && (loss & detail))
    usage(std::string("lossless ") + to_string(options.input) + " frames cannot go through " + options.codec + " (it takes " +
          av_get_pix_fmt_name(best) + "); use ffv1, png, utvideo" + (options.input == VideoPixels::rgb24 ? " or libx264rgb" : ""));
  return best;
}

void VideoWriter::State::open_encoder(const AVCodec* codec) {
  const AVPixelFormat format = choose_pixel_format(codec);
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(format);
  if ((desc->log2_chroma_w && width % 2) || (desc->log2_chroma_h && height % 2))
    usage(std::to_string(width) + "x" + std::to_string(height) + ": " + av_get_pix_fmt_name(format) +
          " (subsampled chroma) needs an even width and height");
  // Range and matrix of the encoded YUV: as given for YUV input, full for grey (mask values are
  // levels, not video luma), limited for RGB converted to YUV.
  encoded = {width, height, format, false, options.matrix};
  if (options.input == VideoPixels::yuv420p) encoded.full_range = options.full_range;
  if (options.input == VideoPixels::gray8) encoded.full_range = true;
  if (is_rgb(libav::pixel_format_of(options.input)) && !is_rgb(format))
    encoded.matrix = height >= 720 ? YuvMatrix::bt709 : YuvMatrix::bt601;
  if (is_rgb(format)) encoded.full_range = true;  // as RGB input is: no conversion between the two

  encoder.reset(avcodec_alloc_context3(codec));
  if (!encoder) throw std::bad_alloc();
  AVCodecContext& c = *encoder;
  c.width = width;
  c.height = height;
  c.pix_fmt = format;
  c.time_base = time_base;
  c.framerate = {options.frame_rate.num, options.frame_rate.den};
  c.sample_aspect_ratio = {1, 1};
  if (options.keyframe_interval > 0) c.gop_size = options.keyframe_interval;
  c.thread_count = std::max(0, options.threads);
  c.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
  if (!is_rgb(format)) {
    c.color_range = encoded.full_range ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
    c.colorspace = encoded.matrix == YuvMatrix::bt709    ? AVCOL_SPC_BT709
                   : encoded.matrix == YuvMatrix::bt2020 ? AVCOL_SPC_BT2020_NCL
                                                         : AVCOL_SPC_SMPTE170M;
  }
  if (output->oformat->flags & AVFMT_GLOBALHEADER) c.flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (options.bitexact) c.flags |= AV_CODEC_FLAG_BITEXACT;

  Dictionary settings;
  if (is_libx26x(options.codec)) {
    if (options.lossless && options.codec == "libx265")
      settings.set("x265-params", "lossless=1");
    else if (options.lossless)
      settings.set("qp", "0");
    else
      settings.set("crf", std::to_string(options.crf));
    settings.set("preset", options.preset.empty() ? "medium" : options.preset);
  } else if (options.codec == "libvpx-vp9") {
    settings.set(options.lossless ? "lossless" : "crf", options.lossless ? "1" : std::to_string(options.crf));
    settings.set("b", "0");  // constant quality
  } else if (options.codec == "ffv1") {
    settings.set("level", "3");     // slices (threads) and per-slice CRCs
    settings.set("slicecrc", "1");
  }
  if (!options.preset.empty() && !is_libx26x(options.codec)) usage("a preset is only for libx264/libx265");
  for (const auto& [key, value] : options.codec_options) settings.set(key, value);
  const int err = avcodec_open2(&c, codec, &settings.entries);
  if (err < 0) fail("cannot open the " + options.codec + " encoder: " + error_text(err));
  if (settings.entries) usage("the " + options.codec + " encoder has no option " + settings.keys());

  stream = avformat_new_stream(output.get(), nullptr);
  if (!stream) throw std::bad_alloc();
  const int copied = avcodec_parameters_from_context(stream->codecpar, &c);
  if (copied < 0) fail("cannot describe the stream: " + error_text(copied));
  stream->time_base = c.time_base;  // a wish: the muxer may pick its own in write_header
  stream->avg_frame_rate = c.framerate;
  if (options.rotation != 0) {
    auto* matrix = reinterpret_cast<std::int32_t*>(
        av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(std::int32_t)));
    if (!matrix) throw std::bad_alloc();
    // av_display_rotation_set takes clockwise degrees; av_display_rotation_get gives counterclockwise
    // ones (ffprobe shows -90 for a picture to turn 90 degrees clockwise, as phones write).
    av_display_rotation_set(matrix, double(options.rotation));
  }
  if (options.spherical) libav::add_spherical(stream, *options.spherical);
  if (options.stereo) libav::add_stereo(stream, *options.stereo);
  if (options.spherical || options.stereo) output->strict_std_compliance = FF_COMPLIANCE_UNOFFICIAL;

  frame->format = format;
  frame->width = width;
  frame->height = height;
  const int allocated = av_frame_get_buffer(frame.get(), 0);
  if (allocated < 0) fail("cannot allocate a frame: " + error_text(allocated));
}

void VideoWriter::State::open_file() {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (ec) throw ItemError(path, "write", "cannot create the folder " + parent.string() + ": " + ec.message());
  temp_path = temporary_path_for(path);
  // The muxer's own name for the file too: MP4's +faststart reopens it by that name.
  av_freep(&output->url);
  output->url = av_strdup(temp_path.c_str());
  if (!output->url) throw std::bad_alloc();
  int err = avio_open(&output->pb, temp_path.c_str(), AVIO_FLAG_WRITE);
  if (err < 0) throw ItemError(path, "write", "cannot create " + temp_path + ": " + error_text(err));
  if (options.bitexact) output->flags |= AVFMT_FLAG_BITEXACT;
  Dictionary settings;
  for (const auto& [key, value] : options.format_options) settings.set(key, value);
  // The muxer checks the codec here. avformat_query_codec cannot decide it beforehand: it says
  // "no" to pairs that work (Ut Video in Matroska), so it only words the message.
  err = avformat_init_output(output.get(), &settings.entries);
  if (err < 0 && avformat_query_codec(output->oformat, stream->codecpar->codec_id, FF_COMPLIANCE_NORMAL) == 0)
    usage(std::string("the ") + output->oformat->name + " container cannot hold " +
          avcodec_get_name(stream->codecpar->codec_id) + " video (" + error_text(err) +
          "; ffv1: .mkv or .avi; png/qtrle: .mov; libx264: .mp4, .mkv, .mov)");
  if (err < 0) fail(std::string("cannot set up the ") + output->oformat->name + " container: " + error_text(err));
  if (settings.entries) usage(std::string("the ") + output->oformat->name + " container has no option " + settings.keys());
  err = avformat_write_header(output.get(), nullptr);
  if (err < 0) fail(std::string("cannot write the ") + output->oformat->name + " header: " + error_text(err));
}

void VideoWriter::State::open() {
  if (width <= 0 || height <= 0) usage("bad video size " + std::to_string(width) + "x" + std::to_string(height));
  if (!options.frame_rate.valid()) usage("the frame rate must be positive");
  if (options.rotation % 90 != 0 || options.rotation < 0 || options.rotation >= 360)
    usage("rotation must be 0, 90, 180 or 270 degrees, not " + std::to_string(options.rotation));
  time_base = options.time_base.valid() ? AVRational{options.time_base.num, options.time_base.den}
                                        : AVRational{options.frame_rate.den, options.frame_rate.num};
  AVFormatContext* raw = nullptr;
  // By the final name's extension (the temporary keeps it too).
  const int err = avformat_alloc_output_context2(&raw, nullptr, nullptr, path.c_str());
  if (err < 0 || !raw)
    usage("cannot tell the container from the extension \"" + fs::path(path).extension().string() +
          "\" (.mp4, .mkv, .avi, .mov...)");
  output.reset(raw);
  open_encoder(find_encoder());
  open_file();
}

void VideoWriter::State::encode(const libav::PictureFormat& from, const std::uint8_t* const src[4], const int pitch[4],
                                std::int64_t pts) {
  if (finished) usage("write() after finish()");
  if (pts < 0)
    pts = av_rescale_q(frames_written, AVRational{options.frame_rate.den, options.frame_rate.num}, time_base);
  if (pts <= last_pts)
    fail("frame " + std::to_string(frames_written) + ": timestamp " + std::to_string(pts) + " does not follow " +
         std::to_string(last_pts));
  // The encoder may still hold the previous picture (frame threads, lookahead): copy it away then.
  int err = av_frame_make_writable(frame.get());
  if (err < 0) fail("cannot reuse the frame buffer: " + error_text(err));
  if (from == encoded) {
    const int src_pitch[4] = {pitch[0], pitch[1], pitch[2], pitch[3]};
    av_image_copy(frame->data, frame->linesize, const_cast<const std::uint8_t**>(src), src_pitch, encoded.format, width,
                  height);
  } else {
    converter.convert(from, src, pitch, encoded, frame->data, frame->linesize);
  }
  frame->pts = pts;
  err = avcodec_send_frame(encoder.get(), frame.get());
  if (err < 0) fail("frame " + std::to_string(frames_written) + ": " + error_text(err));
  last_pts = pts;
  ++frames_written;
  drain();
}

// Writes every packet the encoder has ready (all of them after the flush).
void VideoWriter::State::drain() {
  for (;;) {
    int err = avcodec_receive_packet(encoder.get(), packet.get());
    if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return;
    if (err < 0) fail("the " + options.codec + " encoder failed: " + error_text(err));
    av_packet_rescale_ts(packet.get(), encoder->time_base, stream->time_base);
    packet->stream_index = stream->index;
    err = av_interleaved_write_frame(output.get(), packet.get());  // takes the packet's data
    if (err < 0) throw ItemError(path, "write", "cannot write to " + temp_path + ": " + error_text(err));
  }
}

void VideoWriter::State::finish() {
  if (finished) return;
  if (frames_written == 0) fail("no frames were written");
  int err = avcodec_send_frame(encoder.get(), nullptr);  // flush
  if (err < 0) fail("cannot flush the encoder: " + error_text(err));
  drain();
  err = av_write_trailer(output.get());
  if (err < 0) throw ItemError(path, "write", "cannot finish " + temp_path + ": " + error_text(err));
  err = avio_closep(&output->pb);
  if (err < 0) throw ItemError(path, "write", "cannot close " + temp_path + ": " + error_text(err));
  // write_atomically flushes to disk, renames into place and flushes the folder; it writes to a
  // temporary name of its own, so the finished file moves there first (same folder: a rename).
  write_atomically(path, [&](const std::string& target) {
    fs::rename(temp_path, target);
    release_temporary_path(temp_path);
    temp_path.clear();
  });
  finished = true;
}

void VideoWriter::State::discard() noexcept {
  output.reset();  // closes the file
  if (!temp_path.empty()) {
    std::error_code ec;
    fs::remove(temp_path, ec);
    release_temporary_path(temp_path);
  }
}

VideoWriter::VideoWriter(const std::string& path, int width, int height, const VideoWriterOptions& options)
    : state_(std::make_unique<State>()) {
  libav::quiet_logging_once();
  state_->path = path;
  state_->width = width;
  state_->height = height;
  state_->options = options;
  try {
    state_->open();
  } catch (...) {
    state_->discard();
    throw;
  }
}

VideoWriter::~VideoWriter() {
  if (!state_->finished) state_->discard();
}

void VideoWriter::write(const ImageView& image, std::int64_t pts) {
  State& s = *state_;
  const int channels = channels_of(s.options.input);
  if (s.options.input == VideoPixels::yuv420p)
    s.usage("yuv420p frames are written with write_yuv420() or as a VideoFrame, not as an ImageView");
  if (image.type != PixelType::u8 || image.channels != channels || image.width != s.width || image.height != s.height)
    s.usage("frame " + std::to_string(s.frames_written) + ": expected u8 " + std::to_string(s.width) + "x" +
            std::to_string(s.height) + "x" + std::to_string(channels) + " (" + to_string(s.options.input) + "), got " +
            std::to_string(image.width) + "x" + std::to_string(image.height) + "x" + std::to_string(image.channels));
  const AVPixelFormat format = libav::pixel_format_of(s.options.input);
  // Grey keeps its values in YUV (same range both sides); RGB is full range by nature.
  const libav::PictureFormat from{s.width, s.height, format, s.encoded.full_range || !is_gray(format), s.encoded.matrix};
  const std::uint8_t* src[4] = {static_cast<const std::uint8_t*>(image.data), nullptr, nullptr, nullptr};
  const int pitch[4] = {int(image.pitch), 0, 0, 0};
  s.encode(from, src, pitch, pts);
}

void VideoWriter::write_yuv420(const std::uint8_t* y, int y_pitch, const std::uint8_t* u, int u_pitch,
                               const std::uint8_t* v, int v_pitch, std::int64_t pts) {
  State& s = *state_;
  if (s.options.input != VideoPixels::yuv420p)
    s.usage(std::string("write_yuv420() on a writer of ") + to_string(s.options.input) + " frames");
  const libav::PictureFormat from{s.width, s.height, AV_PIX_FMT_YUV420P, s.options.full_range, s.options.matrix};
  const std::uint8_t* src[4] = {y, u, v, nullptr};
  const int pitch[4] = {y_pitch, u_pitch, v_pitch, 0};
  s.encode(from, src, pitch, pts);
}

void VideoWriter::write(const VideoFrame& frame, std::int64_t pts) {
  State& s = *state_;
  if (frame.empty()) s.usage("frame " + std::to_string(s.frames_written) + " is empty");
  if (frame.pixels() != s.options.input || frame.width() != s.width || frame.height() != s.height)
    s.usage("frame " + std::to_string(s.frames_written) + ": expected " + to_string(s.options.input) + " " +
            std::to_string(s.width) + "x" + std::to_string(s.height) + ", got " + to_string(frame.pixels()) + " " +
            std::to_string(frame.width()) + "x" + std::to_string(frame.height()));
  if (frame.pixels() != VideoPixels::yuv420p) return write(frame.view(), pts);
  // Its own range and matrix: converted when they differ from the stream's.
  const libav::PictureFormat from{s.width, s.height, AV_PIX_FMT_YUV420P, frame.full_range(), frame.matrix()};
  const std::uint8_t* src[4] = {frame.plane(0), frame.plane(1), frame.plane(2), nullptr};
  const int pitch[4] = {frame.pitch(0), frame.pitch(1), frame.pitch(2), 0};
  s.encode(from, src, pitch, pts);
}

void VideoWriter::finish() { state_->finish(); }
const std::string& VideoWriter::path() const { return state_->path; }
std::int64_t VideoWriter::frames_written() const { return state_->frames_written; }
std::string VideoWriter::encoder_pixel_format() const { return av_get_pix_fmt_name(state_->encoded.format); }

}  // namespace gp::io

#include "io/video_reader.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>
#include <cmath>

extern "C" {
#include <libavdevice/avdevice.h>
#include <libavutil/display.h>
#include <libavutil/time.h>
}

#include "core/error.hpp"
#include "core/library_log.hpp"
#include "core/text.hpp"
#include "io/libav_support.hpp"

namespace gp::io {

using libav::error_text;

struct VideoReader::State {
  std::string path;
  VideoReaderOptions options;
  VideoStreamInfo info;
  libav::InputContext input;
  libav::CodecContext decoder;
  AVStream* stream = nullptr;
  libav::Packet packet = libav::make_packet();
  libav::Frame decoded = libav::make_frame();
  libav::Converter converter;
  std::int64_t frames_read = 0;  // the next frame's number (a segment's start from its first_frame)
  std::int64_t delivered = 0;    // frames read() gave
  std::int64_t packets_fed = 0;  // a segment's packets sent to the decoder
  std::int64_t segment_dts = AV_NOPTS_VALUE;  // its key frame's decode time stamp
  std::int64_t last_pts = AV_NOPTS_VALUE;
  int decode_errors = 0;
  bool draining = false;  // the demuxer is done; the decoder is giving out what it holds
  bool finished = false;

  std::uint64_t log_mark = 0;  // library_mark() when this thread began the current open() or read()
  std::int64_t deadline_us = 0;  // stall_timeout_s: libav's blocking I/O gives up after this (av_gettime_relative)
  bool timed_out = false;

  // stall_timeout_s: each packet read must come within it; opening (probing a live stream's first
  // packets) within twice it, at least 5 s. Every protocol and device blocks through libav's
  // interrupt callback, so this works where protocol timeouts differ or are missing (UDP).
  double stall_s = 0;
  // timed_out stays set: libav keeps the interrupted read's error (AVERROR_EXIT) and may first
  // hand out packets it had already buffered.
  void arm_deadline(bool opening = false) {
    stall_s = opening ? std::max(5.0, 2 * options.stall_timeout_s) : options.stall_timeout_s;
    if (options.stall_timeout_s > 0) deadline_us = av_gettime_relative() + std::int64_t(stall_s * 1e6);
  }
  // libav's blocking calls ask this between attempts: 1 gives up.
  static int interrupt(void* opaque) {
    auto* self = static_cast<State*>(opaque);
    if (self->options.interrupted && self->options.interrupted()) return 1;
    if (self->deadline_us > 0 && av_gettime_relative() > self->deadline_us) {
      self->timed_out = true;
      return 1;
    }
    return 0;
  }
  std::string io_error(int err) const {
    if (timed_out) return fmt::format("no data for {} s", stall_s);
    if (options.interrupted && options.interrupted()) return "interrupted";
    return error_text(err);
  }

  // With what libav logged on this thread meanwhile, if anything ("moov atom not found").
  [[noreturn]] void fail(const std::string& stage, const std::string& what) const {
    const std::string reason = library_reason(log_mark);
    throw ItemError(path, stage, reason.empty() ? what : what + " (" + reason + ")");
  }
  [[noreturn]] void fail_frame(const std::string& what) const {
    fail("decode", "frame " + std::to_string(frames_read) + ": " + what);
  }

  void open();
  void open_decoder(const AVCodec* codec);
  void seek_to_segment();
  void describe();
  void decode_error(const std::string& what);
  void feed_decoder();  // one packet of our stream, or the flush at the end
  void deliver(VideoFrame& frame);
  void check_complete() const;
};

namespace {

double seconds_of(std::int64_t t, AVRational tb) { return double(t) * av_q2d(tb); }

// Rotation a player applies (clockwise degrees, 0..270) from the stream's display matrix.
int rotation_of(const AVStream* stream) {
  const auto* matrix = reinterpret_cast<const std::int32_t*>(
      av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, nullptr));
  if (!matrix) return 0;
  const double counterclockwise = av_display_rotation_get(matrix);
  if (std::isnan(counterclockwise)) return 0;
  const int degrees = int(std::lround(-counterclockwise / 90.0)) * 90;
  return ((degrees % 360) + 360) % 360;
}

// An MP4/MOV header (the sample description: size, codec configuration) tells the decoder all it
// needs; avformat_find_stream_info would decode frames to learn it again.
bool parameters_in_header(const AVFormatContext* input) {
  if (std::string(input->iformat->name).rfind("mov", 0) != 0) return false;
  bool video = false;
  for (unsigned i = 0; i < input->nb_streams; ++i) {
    const AVCodecParameters* par = input->streams[i]->codecpar;
    if (par->codec_type != AVMEDIA_TYPE_VIDEO) continue;
    if (par->width <= 0 || par->height <= 0 || par->extradata_size <= 0) return false;
    video = true;
  }
  return video;
}

}  // namespace

void VideoReader::State::open() {
  log_mark = library_mark();
  AVFormatContext* raw = avformat_alloc_context();
  if (!raw) throw std::bad_alloc();
  raw->interrupt_callback = AVIOInterruptCB{&State::interrupt, this};
  const AVInputFormat* format = nullptr;
  if (!options.input_format.empty()) {
    static const bool devices = (avdevice_register_all(), true);
    (void)devices;
    format = av_find_input_format(options.input_format.c_str());
    if (!format) {
      avformat_free_context(raw);
      fail("open", "this FFmpeg has no input format \"" + options.input_format + "\"");
    }
  }
  AVDictionary* dict = nullptr;
  for (const auto& [key, value] : options.demuxer_options) av_dict_set(&dict, key.c_str(), value.c_str(), 0);
  arm_deadline(true);
  int err = avformat_open_input(&raw, path.c_str(), format, &dict);  // frees raw on failure
  av_dict_free(&dict);
  if (err < 0) fail("open", io_error(err));
  input.reset(raw);
  if (options.probe_stream || !parameters_in_header(input.get())) {
    arm_deadline(true);
    err = avformat_find_stream_info(input.get(), nullptr);
    if (err < 0 || timed_out) fail("open", "cannot read the stream parameters: " + io_error(err));
  }
  const AVCodec* codec = nullptr;
  err = av_find_best_stream(input.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
  if (err == AVERROR_STREAM_NOT_FOUND) fail("open", "no video stream (" + std::string(input->iformat->name) + " file)");
  if (err < 0 && err != AVERROR_DECODER_NOT_FOUND) fail("open", "cannot choose a video stream: " + error_text(err));
  if (err == AVERROR_DECODER_NOT_FOUND) {
    int index = av_find_best_stream(input.get(), AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    const AVCodecID id = index >= 0 ? input->streams[index]->codecpar->codec_id : AV_CODEC_ID_NONE;
    fail("open", std::string("no decoder for the video codec ") + avcodec_get_name(id) + " in this FFmpeg build");
  }
  stream = input->streams[err];
  // The demuxer skips the packets of every other stream (audio, subtitles...).
  for (unsigned i = 0; i < input->nb_streams; ++i)
    if (int(i) != stream->index) input->streams[i]->discard = AVDISCARD_ALL;
  open_decoder(codec);
  describe();
  if (options.segment) seek_to_segment();
}

void VideoReader::State::seek_to_segment() {
  const VideoSegment& segment = *options.segment;
  const AVIndexEntry* key = avformat_index_get_entry(stream, int(segment.first_packet));
  if (!key || !(key->flags & AVINDEX_KEYFRAME))
    fail("open", fmt::format("packet {} of the index is not a key frame to start decoding at", segment.first_packet));
  segment_dts = key->timestamp;
  frames_read = segment.first_frame;
  const int err = av_seek_frame(input.get(), stream->index, key->timestamp, AVSEEK_FLAG_BACKWARD);
  if (err < 0) fail("open", fmt::format("cannot seek to frame {}: {}", segment.first_frame, error_text(err)));
}

void VideoReader::State::open_decoder(const AVCodec* codec) {
  decoder.reset(avcodec_alloc_context3(codec));
  if (!decoder) throw std::bad_alloc();
  int err = avcodec_parameters_to_context(decoder.get(), stream->codecpar);
  if (err < 0) fail("open", "cannot set up the " + std::string(codec->name) + " decoder: " + error_text(err));
  decoder->pkt_timebase = stream->time_base;
  decoder->thread_count = std::max(0, options.threads);
  decoder->thread_type = (options.frame_threads ? FF_THREAD_FRAME : 0) | (options.slice_threads ? FF_THREAD_SLICE : 0);
  err = avcodec_open2(decoder.get(), codec, nullptr);
  if (err < 0) fail("open", "cannot open the " + std::string(codec->name) + " decoder: " + error_text(err));
}

void VideoReader::State::describe() {
  const AVCodecParameters& par = *stream->codecpar;
  info.width = par.width;
  info.height = par.height;
  const AVRational rate = av_guess_frame_rate(input.get(), stream, nullptr);
  if (rate.num > 0 && rate.den > 0) info.frame_rate = {rate.num, rate.den};
  info.time_base = {stream->time_base.num, stream->time_base.den};
  if (stream->duration > 0 && stream->duration != AV_NOPTS_VALUE)
    info.duration = seconds_of(stream->duration, stream->time_base);
  else if (input->duration > 0 && input->duration != AV_NOPTS_VALUE && input->nb_streams == 1)
    info.duration = double(input->duration) / AV_TIME_BASE;  // the file's, when it has only this stream
  if (stream->start_time != AV_NOPTS_VALUE) info.start_time = seconds_of(stream->start_time, stream->time_base);
  if (stream->nb_frames > 0) {
    info.frame_count = stream->nb_frames;
    info.frame_count_declared = true;
  } else if (info.duration > 0 && info.frame_rate.valid()) {
    info.frame_count = std::llround(info.duration * info.frame_rate.value());
  }
  info.codec = decoder->codec->name;
  const char* format = av_get_pix_fmt_name(AVPixelFormat(par.format));
  info.pixel_format = format ? format : "unknown";
  info.container = input->iformat->name;
  info.rotation = rotation_of(stream);
  info.spherical = libav::spherical_of(stream);
  info.stereo = libav::stereo_of(stream);
  info.stream_index = stream->index;
  if (info.width <= 0 || info.height <= 0) fail("open", "the video stream has no picture size");
}

void VideoReader::State::decode_error(const std::string& what) {
  if (++decode_errors > options.max_decode_errors) fail_frame(what);
}

void VideoReader::State::feed_decoder() {
  for (;;) {
    arm_deadline();
    const int err = av_read_frame(input.get(), packet.get());
    if (err < 0 && (timed_out || err == AVERROR_EXIT || (options.interrupted && options.interrupted())))
      fail_frame("cannot read the stream: " + io_error(err));
    if (err == AVERROR_EOF) {
      // Data the demuxer could not read (an I/O error) also ends the packets: tell them apart.
      if (input->pb && input->pb->error < 0) fail_frame("cannot read the file: " + error_text(input->pb->error));
      draining = true;
      const int flushed = avcodec_send_packet(decoder.get(), nullptr);
      if (flushed < 0 && flushed != AVERROR_EOF) decode_error("the " + info.codec + " decoder failed: " + error_text(flushed));
      return;
    }
    if (err < 0) fail_frame("cannot read the " + info.container + " data: " + error_text(err));
    if (packet->stream_index != stream->index) {
      av_packet_unref(packet.get());
      continue;
    }
    if (options.segment) {
      // The demuxer's seek may land on an earlier key frame (MP4: it searches presentation times):
      // its packets are passed over, not decoded.
      if (packets_fed == 0 && packet->dts != AV_NOPTS_VALUE && packet->dts < segment_dts) {
        av_packet_unref(packet.get());
        continue;
      }
      if (packets_fed == 0 && (packet->dts != segment_dts || !(packet->flags & AV_PKT_FLAG_KEY)))
        fail_frame("the seek to the key frame of this part of the video landed past it");
      if (!options.segment->last && packets_fed == options.segment->packets) {  // the next part's key frame
        av_packet_unref(packet.get());
        draining = true;
        const int flushed = avcodec_send_packet(decoder.get(), nullptr);
        if (flushed < 0 && flushed != AVERROR_EOF) decode_error("the " + info.codec + " decoder failed: " + error_text(flushed));
        return;
      }
      ++packets_fed;
    }
    const int sent = avcodec_send_packet(decoder.get(), packet.get());
    av_packet_unref(packet.get());
    // EAGAIN cannot happen: read() empties the decoder first.
    if (sent < 0) decode_error("the " + info.codec + " decoder rejected a packet: " + error_text(sent));
    return;
  }
}

void VideoReader::State::deliver(VideoFrame& frame) {
  AVFrame* out = frame.libav_frame();
  AVFrame* in = decoded.get();
  // Timestamps: the decoder's best guess, else one frame after the previous one.
  std::int64_t pts = in->best_effort_timestamp;
  if (pts == AV_NOPTS_VALUE) {
    const AVRational rate = info.frame_rate.valid() ? AVRational{info.frame_rate.num, info.frame_rate.den} : AVRational{25, 1};
    const std::int64_t step = std::max<std::int64_t>(1, av_rescale_q(1, av_inv_q(rate), stream->time_base));
    pts = last_pts == AV_NOPTS_VALUE ? 0 : last_pts + step;
  }
  const AVPixelFormat source = AVPixelFormat(in->format);
  const AVPixelFormat wanted = libav::pixel_format_of(options.pixels);
  const bool as_is = source == wanted || (options.pixels == VideoPixels::yuv420p && source == AV_PIX_FMT_YUVJ420P);
  if (as_is) {
    av_frame_unref(out);
    av_frame_move_ref(out, in);  // the decoder's pooled buffer, no copy
  } else {
    // Our own buffer, reused while it has the right size and nobody else holds it.
    const bool reusable = out->buf[0] && av_frame_is_writable(out) && out->format == wanted &&
                          out->width == in->width && out->height == in->height;
    if (!reusable) {
      av_frame_unref(out);
      out->format = wanted;
      out->width = in->width;
      out->height = in->height;
      const int err = av_frame_get_buffer(out, 0);
      if (err < 0) fail_frame("cannot allocate a " + std::string(to_string(options.pixels)) + " frame: " + error_text(err));
    }
    const bool source_full = libav::is_full_range(source, in->color_range);
    const YuvMatrix matrix = libav::matrix_of(in->colorspace, in->height);
    const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(source);
    const bool source_rgb = desc && (desc->flags & AV_PIX_FMT_FLAG_RGB);
    const bool source_gray = desc && desc->nb_components <= 2 && !source_rgb;
    // YUV stays in its range (and grey keeps its values); RGB turns into full-range YUV, which
    // keeps the most levels; RGB and grey outputs are full range.
    libav::PictureFormat from{in->width, in->height, source, source_full, matrix};
    libav::PictureFormat to{in->width, in->height, wanted, source_full, matrix};
    if (source_rgb) from.full_range = to.full_range = true;
    if (options.pixels == VideoPixels::rgb24 || options.pixels == VideoPixels::rgba) {
      to.full_range = true;
      if (source_gray) from.full_range = true;  // grey values as luma of full-range RGB
    }
    if (options.pixels == VideoPixels::gray8 && !source_rgb) to.full_range = from.full_range;  // Y as it is
    converter.convert(from, in->data, in->linesize, to, out->data, out->linesize);
    av_frame_copy_props(out, in);
    out->color_range = to.full_range ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
    out->colorspace = matrix == YuvMatrix::bt709    ? AVCOL_SPC_BT709
                      : matrix == YuvMatrix::bt2020 ? AVCOL_SPC_BT2020_NCL
                                                    : AVCOL_SPC_SMPTE170M;
    av_frame_unref(in);
  }
  if (delivered++ == 0 && info.pixel_format == "unknown") {  // not probed: the header does not say
    const char* name = av_get_pix_fmt_name(source);
    if (name) info.pixel_format = name;
  }
  frame.pixels_ = options.pixels;
  frame.index_ = frames_read++;
  frame.pts_ = pts;
  frame.seconds_ = seconds_of(pts, stream->time_base);
  last_pts = pts;
}

void VideoReader::State::check_complete() const {
  if (delivered == 0) fail("decode", "no frame could be decoded from the video stream");
  if (const auto& segment = options.segment; segment && delivered != segment->frames)
    fail("decode", fmt::format("frames {} to {}: {} decoded where the file's index lists {} (a damaged or truncated "
                               "file)",
                               segment->first_frame, segment->first_frame + segment->frames - 1, delivered,
                               segment->frames));
  if (options.segment && !options.segment->last) return;  // the end of the file is another part's
  if (!options.check_truncation || info.duration <= 0 || last_pts == AV_NOPTS_VALUE) return;
  const double frame_time = info.frame_rate.valid() ? 1.0 / info.frame_rate.value() : 0.0;
  const double reached = seconds_of(last_pts, stream->time_base) + frame_time - info.start_time;
  const double slack = 2 * frame_time + 0.02 * info.duration;
  if (reached + slack < info.duration)
    fail("decode", "truncated: the video stops at frame " + std::to_string(frames_read - 1) + " (" +
                       std::to_string(reached) + " s) but the " + info.container + " container declares " +
                       std::to_string(info.duration) + " s");
}

VideoReader::VideoReader(const std::string& path, const VideoReaderOptions& options) : state_(std::make_unique<State>()) {
  libav::quiet_logging_once();
  state_->path = path;
  state_->options = options;
  state_->open();
}

VideoReader::~VideoReader() = default;

const VideoStreamInfo& VideoReader::info() const { return state_->info; }
const std::string& VideoReader::path() const { return state_->path; }
VideoPixels VideoReader::pixels() const { return state_->options.pixels; }
std::int64_t VideoReader::frames_read() const { return state_->frames_read; }

bool VideoReader::read(VideoFrame& frame) {
  State& s = *state_;
  // The frame keeps its picture until the next one replaces it: a converted frame's buffer is
  // reused then, instead of being freed now and allocated again.
  const auto at_end = [&] {
    if (frame.frame_) av_frame_unref(frame.frame_);
    frame.index_ = -1;
    return false;
  };
  if (s.finished) return at_end();
  s.log_mark = library_mark();
  for (;;) {
    const int err = avcodec_receive_frame(s.decoder.get(), s.decoded.get());
    if (err == 0) {
      if (s.decoded->decode_error_flags || (s.decoded->flags & AV_FRAME_FLAG_CORRUPT))
        s.decode_error("damaged data: the " + s.info.codec + " decoder concealed errors in this frame");
      s.deliver(frame);
      return true;
    }
    if (err == AVERROR_EOF) {
      s.finished = true;
      at_end();
      s.check_complete();
      return false;
    }
    if (err != AVERROR(EAGAIN)) {
      s.decode_error("the " + s.info.codec + " decoder failed: " + error_text(err));
      continue;
    }
    if (s.draining) {  // cannot happen: a flushed decoder ends with AVERROR_EOF
      s.fail_frame("the decoder wants more data after the end of the stream");
    }
    s.feed_decoder();
  }
}

const std::vector<std::string>& video_file_extensions() {
  static const std::vector<std::string> extensions = {".mp4", ".mov", ".mkv", ".avi", ".webm", ".m4v", ".mpg",
                                                      ".mpeg", ".ts", ".mts", ".nut", ".insv"};
  return extensions;
}

bool is_video_file(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  return std::find(video_file_extensions().begin(), video_file_extensions().end(), ext) != video_file_extensions().end();
}

// ---- cutting a file for several readers ----------------------------------------------------------

namespace {

// The picture kind of an MP4 sample: its first slice's NAL unit type, read from the file (samples
// are NAL units each preceded by its length, length_size bytes). -1: none found.
int first_slice_type(std::ifstream& file, const AVIndexEntry& sample, int length_size, bool hevc) {
  std::int64_t offset = 0;
  while (offset + length_size + 2 <= sample.size) {
    unsigned char head[6] = {};
    file.seekg(sample.pos + offset);
    if (!file.read(reinterpret_cast<char*>(head), length_size + 2)) return -1;
    std::uint32_t length = 0;
    for (int i = 0; i < length_size; ++i) length = (length << 8) | head[i];
    const int type = hevc ? (head[length_size] >> 1) & 0x3f : head[length_size] & 0x1f;
    if (hevc ? type < 32 : (type >= 1 && type <= 5)) return type;  // a slice (VCL unit)
    offset += length_size + std::int64_t(length);
  }
  return -1;
}

bool is_idr(int type, bool hevc) { return hevc ? (type == 19 || type == 20) : type == 5; }

}  // namespace

VideoSegmentPlan plan_video_segments(const std::string& path, int parts, std::int64_t min_frames) {
  VideoSegmentPlan plan;
  const auto whole = [&](std::int64_t frames, std::string why) {
    plan.segments = {VideoSegment{0, frames, 0, frames, true}};
    plan.why_whole = std::move(why);
    return plan;
  };
  libav::quiet_logging_once();
  AVFormatContext* raw = nullptr;
  if (avformat_open_input(&raw, path.c_str(), nullptr, nullptr) < 0) return whole(0, "cannot open it");
  libav::InputContext input(raw);
  if (!parameters_in_header(input.get())) return whole(0, "not an MP4/MOV file with the codec parameters in its header");
  const int index = av_find_best_stream(input.get(), AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (index < 0) return whole(0, "no video stream");
  AVStream* stream = input->streams[index];
  const AVCodecParameters& par = *stream->codecpar;
  const int entries = avformat_index_get_entries_count(stream);
  if (entries <= 0) return whole(0, "no index of its frames");
  if (par.codec_id != AV_CODEC_ID_H264 && par.codec_id != AV_CODEC_ID_HEVC)
    return whole(entries, std::string(avcodec_get_name(par.codec_id)) + ": only H.264 and HEVC are cut");
  const bool hevc = par.codec_id == AV_CODEC_ID_HEVC;
  // avcC / hvcC: the size of the NAL unit lengths (annex B streams in MP4 are not cut).
  const std::uint8_t* extra = par.extradata;
  if (!extra || extra[0] != 1 || par.extradata_size < (hevc ? 23 : 7)) return whole(entries, "its NAL units are not length-prefixed");
  const int length_size = (extra[hevc ? 21 : 4] & 3) + 1;
  if (stream->nb_frames > 0 && stream->nb_frames != entries) return whole(entries, "its index does not list every frame");

  // Frames each packet gives (those an edit list discards give none: cut only files without any).
  std::vector<std::int64_t> keys;  // index entries of the key frames
  for (int i = 0; i < entries; ++i) {
    const AVIndexEntry* e = avformat_index_get_entry(stream, i);
    if (e->flags & AVINDEX_DISCARD_FRAME) return whole(entries, "an edit list discards frames");
    if (e->flags & AVINDEX_KEYFRAME) keys.push_back(i);
  }
  if (keys.empty() || keys[0] != 0) return whole(entries, "it does not start with a key frame");
  parts = int(std::min<std::int64_t>(parts, entries / std::max<std::int64_t>(1, min_frames)));
  if (parts < 2) return whole(entries, "too short to cut");

  // The first frame's time: the first packet's presentation time (a stream starting with an IDR
  // picture shows it first).
  libav::Packet packet = libav::make_packet();
  for (;;) {
    if (av_read_frame(input.get(), packet.get()) < 0) return whole(entries, "cannot read its first packet");
    const bool ours = packet->stream_index == index;
    const std::int64_t pts = packet->pts;
    av_packet_unref(packet.get());
    if (!ours) continue;
    if (pts == AV_NOPTS_VALUE) return whole(entries, "its first packet has no time stamp");
    plan.first_seconds = double(pts) * av_q2d(stream->time_base);
    break;
  }

  // Cuts: the key frame nearest to each k/parts of the frames, an IDR picture, leaving min_frames.
  std::ifstream file(path, std::ios::binary);
  if (!file) return whole(entries, "cannot read its packets");
  std::vector<std::int64_t> cuts{0};
  for (int k = 1; k < parts; ++k) {
    const std::int64_t target = std::int64_t(entries) * k / parts;
    const auto nearest = std::min_element(keys.begin(), keys.end(), [&](std::int64_t a, std::int64_t b) {
      return std::llabs(a - target) < std::llabs(b - target);
    });
    if (*nearest - cuts.back() < min_frames || entries - *nearest < min_frames) continue;
    const int type = first_slice_type(file, *avformat_index_get_entry(stream, int(*nearest)), length_size, hevc);
    if (!is_idr(type, hevc))
      return whole(entries, fmt::format("its key frame {} is not an IDR picture (an open group of pictures)", *nearest));
    cuts.push_back(*nearest);
  }
  if (cuts.size() < 2) return whole(entries, "its key frames are too far apart to cut");
  cuts.push_back(entries);
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
    plan.segments.push_back(VideoSegment{cuts[k], cuts[k + 1] - cuts[k], cuts[k], cuts[k + 1] - cuts[k], k + 2 == cuts.size()});
  return plan;
}

}  // namespace gp::io

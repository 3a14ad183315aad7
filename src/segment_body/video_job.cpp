#include "segment_body/video_job.hpp"

#include <atomic>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/bounded_queue.hpp"
#include "core/error.hpp"
#include "core/outputs.hpp"
#include "core/stop_signals.hpp"
#include "core/trace.hpp"
#include "io/image_io.hpp"
#include "io/video_writer.hpp"
#include "frames/video_frame_source.hpp"
#include "segment_body/pose_json.hpp"
#include "segment_body/pose_preview.hpp"

namespace gp::segbody {
namespace {

struct DecodedFrame {
  io::VideoFrame frame;
  std::int64_t decoded_us = 0;
};

struct DoneFrame {
  std::int64_t index = 0, pts = 0;
  FrameResult result;
};

// The first error of any of the three threads; the others stop at their next queue operation.
class Failure {
 public:
  void set(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_) error_ = e;
    failed_ = true;
  }
  bool failed() const { return failed_; }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::atomic<bool> failed_{false};
};

io::VideoWriterOptions writer_options(const Settings& s, const VideoOutput& out, const io::VideoStreamInfo& info,
                                      io::VideoPixels input) {
  io::VideoWriterOptions o;
  o.input = input;
  o.codec = out.codec;
  o.crf = out.crf;
  o.lossless = out.codec == "libx264" && out.crf == 0;
  o.threads = s.encode_threads;
  o.bitexact = out.bitexact;
  o.timing_from(info);
  return o;
}

void write_png(const std::string& path, const ImageView& image) {
  write_atomically(path, [&](const std::string& temp) { io::write_image(temp, image, io::WriteOptions{}); });
}

}  // namespace

FrameWants video_wants(const InputPlan& plan) {
  FrameWants w;
  w.rgba = plan.rgba_frames || !plan.pose_preview.empty();
  w.background_yuv = !plan.background_video.empty();
  return w;
}

io::VideoReaderOptions reader_options(const Settings& s) {
  io::VideoReaderOptions o;
  o.threads = s.decode_threads;
  // Frame threading holds `threads` frames back before the first comes out: not for streaming.
  o.frame_threads = !s.streaming;
  o.pixels = io::VideoPixels::yuv420p;
  return o;
}

VideoJobResult run_video(const Settings& s, MaskProcessor& processor, io::VideoReader& reader, const InputPlan& plan,
                         const InputItem& item) {
  const io::VideoStreamInfo info = reader.info();
  const std::string path = reader.path();
  const FrameWants wants = video_wants(plan);
  const std::size_t batch = std::size_t(processor.batch());
  BoundedQueue<DecodedFrame> to_compute(2 * batch + 2);
  BoundedQueue<DoneFrame> to_encode(2 * batch + 2);
  Failure failure;
  VideoJobResult result;
  std::unique_ptr<TemporalStream> temporal = processor.new_stream();

  std::thread decoder([&] {
    Trace::name_thread("decode");
    try {
      for (;;) {
        DecodedFrame d;
        {
          ScopedStage span("decode");
          if (!reader.read(d.frame)) break;
        }
        d.decoded_us = Trace::now_us();
        if (!to_compute.push(std::move(d))) break;
      }
    } catch (...) {
      failure.set(std::current_exception());
    }
    to_compute.close();
  });

  std::vector<std::string> frame_files;
  std::string pose_lines, pose_rows = pose_csv_header();  // written once the video is complete
  const double seconds_per_tick = info.time_base.value();
  std::thread encoder([&] {
    Trace::name_thread("encode");
    std::unique_ptr<io::VideoWriter> mask_writer, background_writer, preview_writer;
    std::vector<std::uint8_t> preview_rgb;
    try {
      // Opened before the first mask (0.2 s for FFV1 with its threads on the H100 machine): the
      // encoder sets the pace, so its set-up overlaps the model's warm-up. Masks have the frames' size.
      if (!plan.mask_video.empty()) {
        ScopedStage span("encoder open");
        mask_writer = std::make_unique<io::VideoWriter>(plan.mask_video, info.width, info.height,
                                                        writer_options(s, s.mask_video, info, io::VideoPixels::gray8));
      }
      while (auto done = to_encode.pop()) {
        const FrameResult& r = done->result;
        ScopedStage span("encode+write");
        if (mask_writer) {
          if (r.width != info.width || r.height != info.height)
            throw ItemError(path, "encode", "frame " + std::to_string(done->index) + " is " + std::to_string(r.width) +
                                                "x" + std::to_string(r.height) + ", the stream " +
                                                std::to_string(info.width) + "x" + std::to_string(info.height));
          mask_writer->write(packed_view(const_cast<std::uint8_t*>(r.mask.data()), r.width, r.height, 1, PixelType::u8),
                             done->pts);
        }
        if (!plan.background_video.empty()) {
          if (!background_writer)
            background_writer = std::make_unique<io::VideoWriter>(
                plan.background_video, r.width, r.height,
                writer_options(s, s.background_video, info, io::VideoPixels::yuv420p));
          const int cw = chroma_size(r.width), ch = chroma_size(r.height);
          const std::uint8_t* y = r.background.data();
          const std::uint8_t* u = y + std::size_t(r.width) * r.height;
          const std::uint8_t* v = u + std::size_t(cw) * ch;
          background_writer->write_yuv420(y, r.width, u, cw, v, cw, done->pts);
        }
        if (!plan.pose_preview.empty()) {
          if (!preview_writer) {
            VideoOutput preview{true, plan.pose_preview, "libx264", 18, true};
            preview_writer = std::make_unique<io::VideoWriter>(plan.pose_preview, r.width, r.height,
                                                               writer_options(s, preview, info, io::VideoPixels::rgb24));
          }
          preview_rgb.resize(std::size_t(r.width) * r.height * 3);
          const ImageView rgb = packed_view(preview_rgb.data(), r.width, r.height, 3, PixelType::u8);
          pose_preview(packed_view(const_cast<std::uint8_t*>(r.rgba.data()), r.width, r.height, 4, PixelType::u8), r.people, rgb);
          preview_writer->write(rgb, done->pts);
        }
        if (!plan.pose.empty()) {
          const double time_s = double(done->pts) * seconds_per_tick - info.start_time;
          pose_lines += pose_frame_json(done->index, time_s, r.people) + "\n";
          if (!plan.pose_csv.empty()) pose_rows += pose_csv_rows(done->index, time_s, r.people);
        }
        if (plan.mask_frames) {
          const std::string f = frame_path(s, s.mask_png, "/output/mask_png/frame_name", item, done->index);
          write_png(f, packed_view(const_cast<std::uint8_t*>(r.mask.data()), r.width, r.height, 1, PixelType::u8));
          frame_files.push_back(f);
        }
        if (plan.rgba_frames) {
          const std::string f = frame_path(s, s.rgba_png, "/output/rgba_png/frame_name", item, done->index);
          write_png(f, packed_view(const_cast<std::uint8_t*>(r.rgba.data()), r.width, r.height, 4, PixelType::u8));
          frame_files.push_back(f);
        }
      }
      // Only a complete video is kept: without finish() the writers discard their temporaries.
      if (!failure.failed()) {
        ScopedStage span("encode finish");
        if (mask_writer) mask_writer->finish(), result.written.push_back(plan.mask_video);
        if (background_writer) background_writer->finish(), result.written.push_back(plan.background_video);
        if (preview_writer) preview_writer->finish(), result.written.push_back(plan.pose_preview);
      }
    } catch (...) {
      failure.set(std::current_exception());
      to_encode.close();
      to_compute.close();
    }
  });

  // Compute on this thread: throughput mode waits for a whole batch (or the end of the video),
  // except the first, which takes the frames decoded by then so the encoder (the slowest stage)
  // starts as early as it can.
  try {
    processor.warm_up();  // while the decoder starts
    std::vector<DecodedFrame> frames;
    std::vector<FrameSource> sources;
    std::vector<double> times_s;
    std::vector<FrameResult> results;
    for (bool first = true;; first = false) {
      frames.clear();
      while (frames.size() < (first ? 1 : batch)) {
        std::vector<DecodedFrame> got = to_compute.pop_up_to(batch - frames.size());
        if (got.empty()) break;
        for (DecodedFrame& d : got) frames.push_back(std::move(d));
      }
      if (frames.empty() || failure.failed()) break;
      throw_if_stop_requested(path, "compute");
      const std::int64_t taken_us = Trace::now_us();
      sources.clear();
      times_s.clear();
      for (const DecodedFrame& d : frames) {
        sources.push_back(gp::frames::video_frame_source(d.frame));
        times_s.push_back(double(d.frame.pts()) * seconds_per_tick - info.start_time);
      }
      processor.run(sources, temporal.get(), wants, results, times_s);
      const std::int64_t ready_us = Trace::now_us();
      for (std::size_t i = 0; i < frames.size(); ++i) {
        result.latency_ms.push_back(double(ready_us - frames[i].decoded_us) / 1000.0);
        result.compute_latency_ms.push_back(double(ready_us - taken_us) / 1000.0);
        DoneFrame done{frames[i].frame.index(), frames[i].frame.pts(), std::move(results[i])};
        if (!to_encode.push(std::move(done))) break;
      }
      result.frames += std::int64_t(frames.size());
    }
  } catch (...) {
    failure.set(std::current_exception());
  }
  to_compute.close();  // a decoder still pushing stops
  to_encode.close();
  decoder.join();
  encoder.join();
  try {
    failure.rethrow();
    if (result.frames == 0) throw ItemError(path, "decode", "no frames");
    for (const auto& [file, text] : {std::pair{&plan.pose, &pose_lines}, std::pair{&plan.pose_csv, &pose_rows}}) {
      if (file->empty()) continue;
      write_text_file(*file, *text, path);
      result.written.push_back(*file);
    }
    if (!plan.manifest.empty()) {
      nlohmann::ordered_json manifest{{"input", path}, {"frames", result.frames}, {"files", frame_files}};
      write_atomically(plan.manifest, [&](const std::string& temp) {
        std::ofstream(temp) << manifest.dump(1) << "\n";
      });
      result.written.insert(result.written.end(), frame_files.begin(), frame_files.end());
      result.written.push_back(plan.manifest);
    }
  } catch (...) {
    // A failed video leaves none of its files under their final names.
    for (const auto* files : {&frame_files, &result.written})
      for (const std::string& f : *files) {
        std::error_code ec;
        std::filesystem::remove(f, ec);
      }
    throw;
  }
  return result;
}

}  // namespace gp::segbody

// gpuproc-face-peer: the OpenCV/dlib CPU peer of `gpuproc track-faces` (issue 7): its detections
// are compared with track-faces' (scripts/bench/face_agreement.py) and its speed is the "OpenCV/dlib
// CPU pipeline" row of the benchmark.
//   gpuproc-face-peer VIDEO... [--detector haar|hog|both] [--every N] [--max-frames M]
//                     [--threads T] [--out FILE.jsonl] [--haar-cascade XML] [--haar-min-size S]
//                     [--hog-upsample U] [--cv-threads C]
// Frames come from gpuproc's own VideoReader as yuv420p: plane 0 is the grey image both detectors
// take, so nothing is converted. Haar: cv::CascadeClassifier with OpenCV samples' parameters
// (scaleFactor 1.1, minNeighbors 5, minSize 30x30). HOG: dlib::get_frontal_face_detector(), no
// upsampling by default (dlib's examples upsample once to find faces under 80x80 pixels).
// Videos run concurrently, one per thread (K streams on T cores: give the clip K times with
// --threads K under `taskset` for T cores, or --threads T to queue them). Each thread decodes on
// its own thread and OpenCV's internal parallel_for is off unless --cv-threads says otherwise, so
// T threads use T cores.
// Output, one JSON line per processed frame (boxes [x0,y0,x1,y1] in pixels, x1/y1 exclusive):
//   {"video":..,"stream":i,"frame":n,"haar":[[..]],"hog":[[..]],"ms":{"decode":..,"haar":..,"hog":..}}
// "decode" is the time spent reading every frame since the previous processed one (the cost of
// the stream, skipped frames included). Then one {"summary":{...}} line. Exit codes: 0 ok,
// 1 a video failed (message on stderr), 2 usage, 3 a detector could not be loaded.
#include <CLI/CLI.hpp>
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>
#include <dlib/opencv/cv_image.h>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/report_numbers.hpp"
#include "io/video_reader.hpp"

namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
using Box = std::array<int, 4>;  // x0, y0, x1, y1 (exclusive)

struct Options {
  std::vector<std::string> videos;
  std::string detector = "both";
  int every = 1;
  long long max_frames = 0;  // frames read per video; 0 = all
  int threads = 1;
  std::string out = "-";
  std::string haar_cascade = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml";
  int haar_min_size = 30;
  int hog_upsample = 0;
  int cv_threads = 1;
  bool haar() const { return detector != "hog"; }
  bool hog() const { return detector != "haar"; }
};

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One thread's detectors: neither OpenCV's cascade nor dlib's detector may be shared between threads.
struct Detectors {
  cv::CascadeClassifier haar;
  dlib::frontal_face_detector hog;
};

std::vector<Box> detect_haar(cv::CascadeClassifier& haar, const cv::Mat& grey, int min_size) {
  std::vector<cv::Rect> rects;
  haar.detectMultiScale(grey, rects, 1.1, 5, 0, cv::Size(min_size, min_size));
  std::vector<Box> boxes;
  for (const cv::Rect& r : rects) boxes.push_back({r.x, r.y, r.x + r.width, r.y + r.height});
  return boxes;
}

std::vector<Box> detect_hog(dlib::frontal_face_detector& hog, const cv::Mat& grey, int upsample) {
  std::vector<dlib::rectangle> rects;
  dlib::cv_image<unsigned char> image(grey);
  if (upsample == 0) {
    rects = hog(image);
  } else {  // as dlib's Python binding does: detect on the upsampled image, map the boxes back
    dlib::array2d<unsigned char> larger;
    dlib::assign_image(larger, image);
    dlib::pyramid_down<2> pyramid;
    for (int i = 0; i < upsample; ++i) dlib::pyramid_up(larger, pyramid);
    rects = hog(larger);
    for (dlib::rectangle& r : rects) r = pyramid.rect_down(r, upsample);
  }
  std::vector<Box> boxes;  // dlib's right/bottom are inclusive
  for (const dlib::rectangle& r : rects) {
    boxes.push_back({int(r.left()), int(r.top()), int(r.right()) + 1, int(r.bottom()) + 1});
  }
  return boxes;
}

struct DetectorTotals {
  long long frames = 0, frames_with_face = 0, faces = 0;
  double ms = 0;
  void add(const std::vector<Box>& boxes, double elapsed_ms) {
    ++frames;
    frames_with_face += boxes.empty() ? 0 : 1;
    faces += static_cast<long long>(boxes.size());
    ms += elapsed_ms;
  }
  json to_json() const {
    return {{"frames", frames}, {"frames_with_face", frames_with_face}, {"faces", faces},
            {"seconds", ms / 1000}, {"frames_per_s", ms > 0 ? frames / (ms / 1000) : 0.0}};
  }
};

struct VideoResult {
  std::string video;
  int width = 0, height = 0;
  double frame_rate = 0, seconds = 0, decode_ms = 0;
  long long frames_decoded = 0, frames = 0;
  DetectorTotals haar, hog;
  std::vector<double> latencies_ms;  // per processed frame: its decode share + the detectors
};

class LineWriter {
 public:
  explicit LineWriter(std::ostream& out) : out_(out) {}
  void write(const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex_);
    out_ << line << '\n';
  }

 private:
  std::ostream& out_;
  std::mutex mutex_;
};

VideoResult run_video(const Options& o, int stream, Detectors& detectors, LineWriter& writer) {
  VideoResult result;
  result.video = o.videos[stream];
  const Clock::time_point start = Clock::now();
  gp::io::VideoReaderOptions reader_options;
  reader_options.threads = 1;  // this thread decodes: one core per stream
  gp::io::VideoReader reader(result.video, reader_options);
  result.width = reader.info().width;
  result.height = reader.info().height;
  result.frame_rate = reader.info().frame_rate.value();
  gp::io::VideoFrame frame;
  double decode_ms = 0;  // since the previous processed frame
  for (;;) {
    if (o.max_frames > 0 && result.frames_decoded >= o.max_frames) break;
    const Clock::time_point read_start = Clock::now();
    const bool got = reader.read(frame);
    decode_ms += ms_since(read_start);
    if (!got) break;
    ++result.frames_decoded;
    if (frame.index() % o.every != 0) continue;
    // Plane 0 of yuv420p is the luma image; OpenCV and dlib only read it.
    const cv::Mat grey(frame.plane_height(0), frame.plane_width(0), CV_8UC1, const_cast<std::uint8_t*>(frame.plane(0)),
                       std::size_t(frame.pitch(0)));
    json line = {{"video", result.video}, {"stream", stream}, {"frame", frame.index()}};
    json ms = {{"decode", decode_ms}};
    double latency_ms = decode_ms;
    if (o.haar()) {
      const Clock::time_point t = Clock::now();
      const std::vector<Box> boxes = detect_haar(detectors.haar, grey, o.haar_min_size);
      const double elapsed = ms_since(t);
      result.haar.add(boxes, elapsed);
      line["haar"] = boxes;
      ms["haar"] = elapsed;
      latency_ms += elapsed;
    }
    if (o.hog()) {
      const Clock::time_point t = Clock::now();
      const std::vector<Box> boxes = detect_hog(detectors.hog, grey, o.hog_upsample);
      const double elapsed = ms_since(t);
      result.hog.add(boxes, elapsed);
      line["hog"] = boxes;
      ms["hog"] = elapsed;
      latency_ms += elapsed;
    }
    line["ms"] = ms;
    writer.write(line.dump());
    result.decode_ms += decode_ms;
    decode_ms = 0;
    ++result.frames;
    result.latencies_ms.push_back(latency_ms);
  }
  result.decode_ms += decode_ms;
  result.seconds = ms_since(start) / 1000;
  return result;
}

json summarize(const Options& o, const std::vector<VideoResult>& results, double seconds) {
  DetectorTotals haar, hog;
  long long frames = 0, frames_decoded = 0;
  double decode_ms = 0;
  std::vector<double> latencies;
  json per_video = json::array();
  for (std::size_t i = 0; i < results.size(); ++i) {
    const VideoResult& r = results[i];
    for (DetectorTotals* total : {&haar, &hog}) {
      const DetectorTotals& part = total == &haar ? r.haar : r.hog;
      total->frames += part.frames;
      total->frames_with_face += part.frames_with_face;
      total->faces += part.faces;
      total->ms += part.ms;
    }
    frames += r.frames;
    frames_decoded += r.frames_decoded;
    decode_ms += r.decode_ms;
    latencies.insert(latencies.end(), r.latencies_ms.begin(), r.latencies_ms.end());
    const double decoded_per_s = r.seconds > 0 ? r.frames_decoded / r.seconds : 0.0;
    json v = {{"video", r.video}, {"stream", i}, {"width", r.width}, {"height", r.height},
              {"frame_rate", r.frame_rate}, {"frames", r.frames}, {"frames_decoded", r.frames_decoded},
              {"seconds", r.seconds}, {"decoded_frames_per_s", decoded_per_s},
              // Only meaningful when every stream has a thread of its own (videos <= threads).
              {"real_time", r.frame_rate > 0 && decoded_per_s >= r.frame_rate}};
    if (o.haar()) v["haar"] = r.haar.to_json();
    if (o.hog()) v["hog"] = r.hog.to_json();
    per_video.push_back(v);
  }
  json s = {{"detector", o.detector}, {"every", o.every}, {"threads", o.threads},
            {"videos", results.size()}, {"frames", frames}, {"frames_decoded", frames_decoded},
            {"seconds", seconds}, {"frames_per_s", seconds > 0 ? frames / seconds : 0.0},
            {"decoded_frames_per_s", seconds > 0 ? frames_decoded / seconds : 0.0}};
  // Per detector: frames per second of one thread's time in it (sum over threads).
  if (o.haar()) s["haar"] = haar.to_json();
  if (o.hog()) s["hog"] = hog.to_json();
  s["decode"] = {{"frames", frames_decoded}, {"seconds", decode_ms / 1000},
                 {"frames_per_s", decode_ms > 0 ? frames_decoded / (decode_ms / 1000) : 0.0}};
  s["latency_ms"] = {{"p50", gp::percentile(latencies, 0.50)}, {"p99", gp::percentile(latencies, 0.99)},
                     {"max", latencies.empty() ? 0.0 : *std::max_element(latencies.begin(), latencies.end())}};
  s["per_video"] = per_video;
  return {{"summary", s}};
}

int run(const Options& o) {
  cv::setNumThreads(o.cv_threads);
  const int threads = std::min<int>(o.threads, int(o.videos.size()));
  // Detectors are loaded before the clock starts: T of each (dlib's model is deserialized per call).
  std::vector<Detectors> detectors(threads);
  for (Detectors& d : detectors) {
    if (o.haar() && !d.haar.load(o.haar_cascade)) {
      std::cerr << "gpuproc-face-peer: cannot load the Haar cascade " << o.haar_cascade << "\n";
      return int(gp::ExitCode::fatal);
    }
    if (o.hog()) d.hog = dlib::get_frontal_face_detector();
  }
  std::ofstream file;
  if (o.out != "-") {
    file.open(o.out, std::ios::binary | std::ios::trunc);
    if (!file) {
      std::cerr << "gpuproc-face-peer: cannot write " << o.out << "\n";
      return int(gp::ExitCode::usage);
    }
  }
  std::ostream& out = o.out == "-" ? std::cout : file;
  LineWriter writer(out);

  std::vector<VideoResult> results(o.videos.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string error;
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (std::size_t i; !failed && (i = next++) < o.videos.size();) {
        try {
          results[i] = run_video(o, int(i), detectors[t], writer);
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!failed.exchange(true)) error = e.what();
        }
      }
    });
  }
  for (std::thread& w : workers) w.join();
  const double seconds = ms_since(start) / 1000;
  if (failed) {
    std::cerr << "gpuproc-face-peer: " << error << "\n";
    return int(gp::ExitCode::items_failed);
  }
  out << summarize(o, results, seconds).dump() << '\n';
  out.flush();
  if (!out) {
    std::cerr << "gpuproc-face-peer: writing " << o.out << " failed\n";
    return int(gp::ExitCode::fatal);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"OpenCV Haar cascade and dlib HOG face detection on video frames (track-faces' CPU peer)"};
  app.add_option("videos", o.videos, "video files (the same one several times for several streams)")->required();
  app.add_option("--detector", o.detector, "haar, hog or both")
      ->check(CLI::IsMember({"haar", "hog", "both"}))->capture_default_str();
  app.add_option("--every", o.every, "process every Nth frame (frame index % N == 0)")
      ->check(CLI::Range(1, 1000000))->capture_default_str();
  app.add_option("--max-frames", o.max_frames, "frames read per video (0 = all)")
      ->check(CLI::Range(0LL, 1LL << 40))->capture_default_str();
  app.add_option("--threads", o.threads, "videos processed at once, one per thread")
      ->check(CLI::Range(1, 4096))->capture_default_str();
  app.add_option("--out", o.out, "JSON lines output (- = stdout)")->capture_default_str();
  app.add_option("--haar-cascade", o.haar_cascade, "OpenCV cascade XML")->capture_default_str();
  app.add_option("--haar-min-size", o.haar_min_size, "Haar minSize in pixels (square)")
      ->check(CLI::Range(1, 100000))->capture_default_str();
  app.add_option("--hog-upsample", o.hog_upsample, "times dlib upsamples the frame before HOG")
      ->check(CLI::Range(0, 4))->capture_default_str();
  app.add_option("--cv-threads", o.cv_threads, "OpenCV's internal threads per detection (1 = none)")
      ->check(CLI::Range(0, 4096))->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : int(gp::ExitCode::usage);
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "gpuproc-face-peer: " << e.what() << "\n";
    return int(gp::ExitCode::fatal);
  }
}

// gpuproc-bench-jpeg: the codec limit of a stitch-360 views job. Decode every panorama and encode
// its V views, nothing else (no projection, no EXIF, no writes), through the same gp::io codecs
// gpuproc uses, with the best path this build has:
//   CPU (default): TurboJPEG on T threads, each taking the next panorama: decode it, encode its V tiles.
//   GPU (--gpu, builds with nvJPEG): W workers (threads), each with its own GpuJpegCodec, stream and
//     B device panorama buffers, taking the next batch of B panoramas: one decode_batch, then one
//     encode_batch of the batch's B x V tiles (as a stitch-360 GPU worker does).
// The "views" are tiles cut from the decoded panorama (views into it with its pitch, so no copy):
// a grid of ceil(V/2) columns x 2 rows (1 row for V = 1) of SIZE x SIZE tiles, evenly spaced and
// clamped inside the panorama, positions rounded down to 16 pixels (a JPEG MCU). For 7680x3840 and
// 8 views of 1920 they tile the panorama exactly. A panorama smaller than a tile gives tiles of
// min(SIZE, width) x min(SIZE, height), which overlap (small test runs only; the JSON says so).
// Same JPEG settings as the stitch job: strict decode, quality 95, 4:2:0 by default.
//
// Files are read into memory first (read_s, not part of the limit). Three timed passes: decode and
// encode (the limit: wall_s, panoramas_per_s), decode only, encode only (each worker encodes the
// tiles of the panoramas it decoded before that pass for every batch it takes: same sizes, similar
// content) so the JSON shows which side bounds the codec. On the GPU each worker first runs one
// untimed batch (nvJPEG's scratch allocation, hardware decoder set-up). Any file that fails to
// decode is an error (exit 1, naming it). With --gpu --project, the encoded images are V ring
// views (yaw 360/V apart, 90 degrees, SIZE x SIZE) projected from each panorama as gpuproc's
// stitch-360 does by default, so the run measures the codec plus the projection without the
// pipeline around them (encode_s then includes the projection; the views' remap table is made once
// per worker, in the warm-up, as gpuproc's GPU workers make it once).
//   gpuproc-bench-jpeg [--gpu] [--device cuda:N] [--workers W] [--batch B] [--threads T] [--views V]
//                      [--size S] [--project] [--quality Q] [--chroma 420|444] FILE.jpg...
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/gpu_runtime.hpp"
#include "gpuproc/build_info.hpp"
#include "io/file_bytes.hpp"
#include "io/jpeg_codec.hpp"
#include "cuda/stitch/project.hpp"

namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

struct Options {
  bool gpu = false;
  std::string device = "cuda:0";
  int workers = 2;   // gpuproc stitch-360's GPU compute workers (run.gpu_workers)
  int batch = 16;    // panoramas per GPU worker call (run.batch)
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  int views = 8;
  int size = 1920;
  // GPU: encode ring views projected from each panorama (bilinear, antialiasing, as gpuproc's
  // stitch-360 default) instead of tiles: the codec plus the projection, without the pipeline.
  bool project = false;
  gp::io::JpegEncodeOptions encode;  // quality 95, 4:2:0
  std::vector<std::string> inputs;
};

const char* const usage_text =
    "usage: gpuproc-bench-jpeg [--gpu] [--device cuda:N] [--workers W] [--batch B] [--threads T] [--views V] "
    "[--size S] [--project] [--quality Q] [--chroma 420|444] FILE.jpg...";

Options parse_options(int argc, char** argv) {
  Options o;
  auto value = [&](int& i) {
    if (i + 1 >= argc) throw gp::UsageError(std::string(argv[i]) + " needs a value");
    return std::string(argv[++i]);
  };
  auto positive = [&](int& i) {
    const std::string name = argv[i], text = value(i);
    int v = 0;
    try {
      v = std::stoi(text);
    } catch (const std::exception&) {
      throw gp::UsageError(name + " needs a number, not '" + text + "'");
    }
    if (v < 1) throw gp::UsageError(name + " must be at least 1");
    return v;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--gpu") o.gpu = true;
    else if (arg == "--device") o.device = value(i);
    else if (arg == "--workers") o.workers = positive(i);
    else if (arg == "--batch") o.batch = positive(i);
    else if (arg == "--threads") o.threads = unsigned(positive(i));
    else if (arg == "--views") o.views = positive(i);
    else if (arg == "--size") o.size = positive(i);
    else if (arg == "--project") o.project = true;
    else if (arg == "--quality") o.encode.quality = std::clamp(positive(i), 1, 100);
    else if (arg == "--chroma") o.encode.subsampling = gp::io::parse_chroma_subsampling(value(i));
    else if (arg == "-h" || arg == "--help") throw gp::UsageError(usage_text);
    else if (arg.rfind("--", 0) == 0) throw gp::UsageError("unknown option " + arg + "\n" + usage_text);
    else o.inputs.push_back(arg);
  }
  if (o.inputs.empty()) throw gp::UsageError(usage_text);
  return o;
}

struct Input {
  std::string path;
  std::vector<std::uint8_t> bytes;
  gp::io::JpegInfo info;
};


struct Tile {
  int x = 0, y = 0, width = 0, height = 0;
};

// See the top of the file.
std::vector<Tile> tile_layout(int width, int height, int views, int size) {
  const int rows = views > 1 ? 2 : 1;
  const int cols = (views + rows - 1) / rows;
  const int tw = std::min(size, width), th = std::min(size, height);
  auto place = [](int k, int count, int room) {  // k-th of `count` evenly spaced in [0, room]
    const int at = count > 1 ? int(std::int64_t(k) * room / (count - 1)) : 0;
    return at / 16 * 16;
  };
  std::vector<Tile> tiles;
  for (int k = 0; k < views; ++k)
    tiles.push_back({place(k % cols, cols, width - tw), place(k / cols, rows, height - th), tw, th});
  return tiles;
}

// A tile as a view into the panorama (same pitch).
gp::ImageView tile_view(const gp::ImageView& panorama, const Tile& t) {
  gp::ImageView v = panorama;
  v.data = static_cast<std::uint8_t*>(panorama.data) + std::size_t(t.y) * panorama.pitch + std::size_t(t.x) * 3;
  v.width = t.width;
  v.height = t.height;
  return v;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

template <class F>
double wall_seconds(F&& f) {
  const auto start = Clock::now();
  f();
  return seconds_since(start);
}

// Process CPU time (user + system, all threads) in seconds.
double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Hands out 0 .. n-1 to whoever asks next; stop() makes every later take() fail.
class WorkQueue {
 public:
  explicit WorkQueue(std::size_t n) : n_(n) {}
  bool take(std::size_t& i) {
    i = next_++;
    return i < n_;
  }
  void stop() { next_ = n_; }

 private:
  std::size_t n_;
  std::atomic<std::size_t> next_{0};
};

// Runs worker(t) for t = 0 .. count-1 on their own threads; rethrows the first error once all have
// ended. A worker that fails stops the queue so the others finish early.
template <class Worker>
void run_threads(unsigned count, WorkQueue* queue, Worker worker) {
  std::vector<std::exception_ptr> errors(count);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < count; ++t)
    pool.emplace_back([&, t] {
      try {
        worker(t);
      } catch (...) {
        errors[t] = std::current_exception();
        if (queue) queue->stop();
      }
    });
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

double rate(std::size_t count, double seconds) { return seconds > 0 ? double(count) / seconds : 0.0; }

const char* bound_by(double decode_only_s, double encode_only_s) {
  return decode_only_s >= encode_only_s ? "decode" : "encode";
}

// ---- CPU: TurboJPEG, one panorama per thread at a time

json run_cpu(const Options& o, const std::vector<Input>& inputs) {
  struct Slot {
    gp::io::CpuJpegCodec codec;
    std::vector<std::uint8_t> pixels;  // the decoded panorama, reused
    gp::ImageView panorama;
    std::vector<std::uint8_t> encoded;  // reused; only its size is kept
    double decode_s = 0, encode_s = 0;
    std::uint64_t bytes_out = 0, outputs = 0;
  };
  const unsigned threads = unsigned(std::min<std::size_t>(o.threads, inputs.size()));
  std::vector<Slot> slots(threads);
  auto decode = [&](Slot& s, const Input& in) {
    s.pixels.resize(gp::io::jpeg_decoded_bytes(in.info, 3));
    s.panorama = gp::packed_view(s.pixels.data(), in.info.width, in.info.height, 3, gp::PixelType::u8);
    s.codec.decode(in.bytes.data(), in.bytes.size(), s.panorama, in.path);
  };
  auto encode = [&](Slot& s, const std::string& name) {
    for (const Tile& t : tile_layout(s.panorama.width, s.panorama.height, o.views, o.size)) {
      s.codec.encode(tile_view(s.panorama, t), o.encode, s.encoded, name);
      s.bytes_out += s.encoded.size();
      ++s.outputs;
    }
  };
  auto reset = [&] {
    for (Slot& s : slots) s.decode_s = s.encode_s = 0, s.bytes_out = s.outputs = 0;
  };

  // Untimed: every thread decodes once (buffers and codecs made), also the encode-only pass's content.
  run_threads(threads, nullptr, [&](unsigned t) { decode(slots[t], inputs[t]); });

  // Decode + encode: the limit.
  reset();
  WorkQueue full(inputs.size());
  double cpu_mark = process_cpu_seconds();
  const double wall_s = wall_seconds([&] {
    run_threads(threads, &full, [&](unsigned t) {
      Slot& s = slots[t];
      for (std::size_t i; full.take(i);) {
        auto start = Clock::now();
        decode(s, inputs[i]);
        s.decode_s += seconds_since(start);
        start = Clock::now();
        encode(s, inputs[i].path);
        s.encode_s += seconds_since(start);
      }
    });
  });
  const double cpu_s = process_cpu_seconds() - cpu_mark;
  double decode_s = 0, encode_s = 0;
  std::uint64_t bytes_out = 0, outputs = 0;
  for (const Slot& s : slots) decode_s += s.decode_s, encode_s += s.encode_s, bytes_out += s.bytes_out, outputs += s.outputs;

  WorkQueue decodes(inputs.size());
  const double decode_only_s = wall_seconds([&] {
    run_threads(threads, &decodes, [&](unsigned t) {
      for (std::size_t i; decodes.take(i);) decode(slots[t], inputs[i]);
    });
  });
  // Each thread's last decoded panorama stands in for the ones it takes.
  WorkQueue encodes(inputs.size());
  const double encode_only_s = wall_seconds([&] {
    run_threads(threads, &encodes, [&](unsigned t) {
      for (std::size_t i; encodes.take(i);) encode(slots[t], inputs[i].path);
    });
  });

  const std::size_t n = inputs.size();
  return json{{"codec", "cpu"},
              {"encoder", "TurboJPEG (libjpeg-turbo), accurate DCT"},
              {"decoder", "TurboJPEG (libjpeg-turbo), accurate IDCT, strict"},
              {"threads", threads},
              {"wall_s", wall_s},
              {"panoramas_per_s", rate(n, wall_s)},
              {"decode_s", decode_s},
              {"encode_s", encode_s},
              {"sums_note", "decode_s and encode_s: summed over threads"},
              {"cpu_s", cpu_s},
              {"outputs", outputs},
              {"output_bytes", bytes_out},
              {"decode_only", {{"wall_s", decode_only_s}, {"panoramas_per_s", rate(n, decode_only_s)}}},
              {"encode_only", {{"wall_s", encode_only_s}, {"panoramas_per_s", rate(n, encode_only_s)}}},
              {"bound_by", bound_by(decode_only_s, encode_only_s)}};
}

// ---- GPU: nvJPEG, W workers taking batches of B panoramas

#ifdef GPUPROC_HAVE_NVJPEG

json run_gpu(const Options& o, const std::vector<Input>& inputs) {
  gp::RuntimeOptions ro;
  ro.device = gp::DeviceChoice::parse(o.device);
  if (ro.device.kind != gp::DeviceChoice::Kind::cuda) throw gp::UsageError("--gpu needs --device cuda:N");
  gp::Runtime runtime(ro);
  if (!gp::io::gpu_jpeg_available(runtime)) throw gp::Error("no GPU JPEG codec on " + runtime.device_name());
  runtime.bind_thread();  // this thread frees the workers' buffers and codecs at the end

  std::size_t panorama_bytes = 0;
  for (const Input& in : inputs) panorama_bytes = std::max(panorama_bytes, gp::io::jpeg_decoded_bytes(in.info, 3));
  const std::size_t n = inputs.size();
  const std::size_t batch = std::size_t(o.batch);
  const std::size_t batches = (n + batch - 1) / batch;

  struct Worker {
    std::unique_ptr<gp::io::GpuJpegCodec> codec;
    gp::Stream stream;
    std::vector<gp::DeviceBuffer> buffers;  // B panoramas
    std::vector<gp::DeviceBuffer> view_buffers;  // --project: B x V views
    gp::DeviceBuffer remap_table;                 // --project: for panoramas of remap_size
    std::pair<int, int> remap_size{0, 0};
    std::vector<gp::ImageView> panoramas;   // views of the last batch decoded
    std::vector<std::vector<std::uint8_t>> encoded;  // reused; only sizes are kept
    double decode_s = 0, encode_s = 0;
    std::uint64_t bytes_out = 0, outputs = 0;
  };
  const unsigned workers = unsigned(std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(o.workers), batches)));
  std::vector<Worker> slots(workers);

  // Batch b's panoramas decoded into the worker's buffers (synchronised); throws the first failure.
  auto decode = [&](Worker& w, std::size_t b) {
    std::vector<gp::io::JpegSource> sources;
    w.panoramas.clear();
    for (std::size_t i = b * batch; i < std::min(n, (b + 1) * batch); ++i) {
      const Input& in = inputs[i];
      sources.push_back({in.bytes.data(), in.bytes.size(), in.path});
      w.panoramas.push_back(gp::packed_view(w.buffers[w.panoramas.size()].get(), in.info.width, in.info.height, 3,
                                            gp::PixelType::u8));
    }
    const std::vector<gp::io::ItemOutcome> outcomes = w.codec->decode_batch(sources, w.panoramas, w.stream);
    w.stream.synchronize("bench-jpeg decode batch");
    for (const gp::io::ItemOutcome& outcome : outcomes)
      if (outcome) throw *outcome;
  };
  // The tiles of batch b's panoramas in one encode batch (returns synchronised), cut from the
  // worker's decoded panoramas: batch b's own after decode(w, b), else stand-ins (cycled).
  auto encode = [&](Worker& w, std::size_t b) {
    std::vector<gp::ImageView> tiles;
    std::vector<std::string> names;
    for (std::size_t i = b * batch; i < std::min(n, (b + 1) * batch); ++i) {
      const gp::ImageView& panorama = w.panoramas[(i - b * batch) % w.panoramas.size()];
      if (o.project) {
        std::vector<gp::stitch::PerspectiveTarget> targets;
        for (int k = 0; k < o.views; ++k) {
          gp::DeviceBuffer& buffer = w.view_buffers[(i - b * batch) * std::size_t(o.views) + std::size_t(k)];
          const gp::ImageView view = gp::packed_view(buffer.get(), o.size, o.size, 3, gp::PixelType::u8);
          targets.push_back({gp::stitch::make_camera(360.0 * k / o.views, 0, 0, 90, o.size, o.size), view, gp::ImageView{}});
          tiles.push_back(view);
          names.push_back(inputs[i].path + " view " + std::to_string(k));
        }
        // As gpuproc's GPU worker: the views' remap table made once per panorama size.
        const gp::stitch::SampleOptions options;
        if (w.remap_size != std::make_pair(panorama.width, panorama.height)) {
          w.remap_table = runtime.device_alloc(
              gp::stitch::perspective_remap_bytes(targets.data(), int(targets.size())), w.stream, "bench-jpeg remap table");
          gp::stitch::build_perspective_remap_gpu(panorama, targets.data(), int(targets.size()), options,
                                                  w.remap_table.get(), w.stream.get());
          w.remap_size = {panorama.width, panorama.height};
        }
        gp::stitch::equirect_to_perspective_remap_gpu(panorama, targets.data(), int(targets.size()), options,
                                                      w.remap_table.get(), w.stream.get());
        continue;
      }
      int k = 0;
      for (const Tile& t : tile_layout(panorama.width, panorama.height, o.views, o.size)) {
        tiles.push_back(tile_view(panorama, t));
        names.push_back(inputs[i].path + " tile " + std::to_string(k++));
      }
    }
    const std::vector<gp::io::ItemOutcome> outcomes = w.codec->encode_batch(tiles, names, o.encode, w.stream, w.encoded);
    for (std::size_t k = 0; k < tiles.size(); ++k) {
      if (outcomes[k]) throw *outcomes[k];
      w.bytes_out += w.encoded[k].size();
      ++w.outputs;
    }
  };
  auto reset = [&] {
    for (Worker& w : slots) w.decode_s = w.encode_s = 0, w.bytes_out = w.outputs = 0;
  };

  // Untimed set-up, on the workers' own threads as gpuproc does: codec, stream, buffers, and one
  // batch decoded and encoded (nvJPEG allocates its scratch and starts the hardware decoder on first
  // use). Worker t's batch t (or the last) stays decoded for the encode-only pass.
  // One nvJPEG handle shared by the workers, as gpuproc's stitch-360 workers share one.
  std::mutex context_mutex;
  std::shared_ptr<const gp::io::GpuJpegContext> context;
  const double warmup_s = wall_seconds([&] {
    run_threads(workers, nullptr, [&](unsigned t) {
      Worker& w = slots[t];
      runtime.bind_thread();
      {
        std::lock_guard<std::mutex> lock(context_mutex);
        if (!context) context = std::make_shared<const gp::io::GpuJpegContext>(runtime);
      }
      gp::io::GpuJpegOptions options;
      options.encoder_states = 16;  // as gpuproc's stitch-360 GPU worker (GpuWorker::encoder_states)
      w.codec = std::make_unique<gp::io::GpuJpegCodec>(context, options);
      w.stream = runtime.make_stream();
      for (std::size_t k = 0; k < batch; ++k)
        w.buffers.push_back(runtime.device_alloc(panorama_bytes, w.stream, "bench-jpeg panorama " + std::to_string(k)));
      if (o.project)
        for (std::size_t k = 0; k < batch * std::size_t(o.views); ++k)
          w.view_buffers.push_back(runtime.device_alloc(std::size_t(o.size) * o.size * 3, w.stream, "bench-jpeg view"));
      const std::size_t b = std::min<std::size_t>(t, batches - 1);
      decode(w, b);
      encode(w, b);
    });
  });

  // Decode + encode: the limit. Per-call times summed over workers.
  reset();
  WorkQueue full(batches);
  double cpu_mark = process_cpu_seconds();
  const double wall_s = wall_seconds([&] {
    run_threads(workers, &full, [&](unsigned t) {
      runtime.bind_thread();
      Worker& w = slots[t];
      for (std::size_t b; full.take(b);) {
        auto start = Clock::now();
        decode(w, b);
        w.decode_s += seconds_since(start);
        start = Clock::now();
        encode(w, b);
        w.encode_s += seconds_since(start);
      }
    });
  });
  const double cpu_s = process_cpu_seconds() - cpu_mark;
  double decode_s = 0, encode_s = 0;
  std::uint64_t bytes_out = 0, outputs = 0;
  for (const Worker& w : slots) decode_s += w.decode_s, encode_s += w.encode_s, bytes_out += w.bytes_out, outputs += w.outputs;

  WorkQueue decodes(batches);
  const double decode_only_s = wall_seconds([&] {
    run_threads(workers, &decodes, [&](unsigned t) {
      runtime.bind_thread();
      for (std::size_t b; decodes.take(b);) decode(slots[t], b);
    });
  });
  // Each worker's last decoded batch stands in for the panoramas of the batches it takes.
  WorkQueue encodes(batches);
  const double encode_only_s = wall_seconds([&] {
    run_threads(workers, &encodes, [&](unsigned t) {
      runtime.bind_thread();
      for (std::size_t b; encodes.take(b);) encode(slots[t], b);
    });
  });

  gp::io::GpuJpegCounters counters;
  std::string decoder;
  for (const Worker& w : slots) {
    const gp::io::GpuJpegCounters c = w.codec->counters();
    counters.batched += c.batched, counters.single += c.single, counters.failed_batches += c.failed_batches,
        counters.allocator_retries += c.allocator_retries;
    decoder = w.codec->decoder_description();
  }
  const gp::MemoryStats memory = runtime.memory_stats();
  return json{{"codec", "gpu"},
              {"device", runtime.device_name()},
              {"decoder", decoder},
              {"encoder", "nvJPEG nvjpegEncodeImage (16 encoder states per worker, one nvJPEG handle shared), baseline, standard Huffman tables"},
              {"workers", workers},
              {"batch", batch},
              {"warmup_s", warmup_s},
              {"wall_s", wall_s},
              {"panoramas_per_s", rate(n, wall_s)},
              {"decode_s", decode_s},
              {"encode_s", encode_s},
              {"sums_note", "decode_s and encode_s: per-call times (stream synchronised) summed over workers"},
              {"cpu_s", cpu_s},
              {"outputs", outputs},
              {"output_bytes", bytes_out},
              {"decode_only", {{"wall_s", decode_only_s}, {"panoramas_per_s", rate(n, decode_only_s)}}},
              {"encode_only", {{"wall_s", encode_only_s}, {"panoramas_per_s", rate(n, encode_only_s)}}},
              {"bound_by", bound_by(decode_only_s, encode_only_s)},
              {"counters",
               {{"batched", counters.batched}, {"single", counters.single}, {"failed_batches", counters.failed_batches},
                {"allocator_retries", counters.allocator_retries},
                {"note", "decodes since each codec was made, warm-up and all passes included"}}},
              {"device_peak_bytes", memory.device_peak},
              {"device_pool_reserved_bytes_at_end", memory.device_reserved},
              {"device_free_bytes_at_end", memory.device_free}};
}

#endif  // GPUPROC_HAVE_NVJPEG

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse_options(argc, argv);
#ifndef GPUPROC_HAVE_NVJPEG
    if (o.gpu) throw gp::Error("--gpu: this build has no nvJPEG (CMake did not find it in the CUDA toolkit)");
#endif
    std::vector<Input> inputs(o.inputs.size());
    std::uint64_t bytes_in = 0, pixels_in = 0;
    const double read_s = wall_seconds([&] {
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        inputs[i].path = o.inputs[i];
        inputs[i].bytes = gp::io::read_file_bytes(o.inputs[i]);
      }
    });
    for (Input& in : inputs) {
      in.info = gp::io::jpeg_info(in.bytes, in.path);
      if (!in.info.has_end_marker) throw gp::ItemError(in.path, "decode", "truncated: no end-of-image marker");
      bytes_in += in.bytes.size();
      pixels_in += std::uint64_t(in.info.width) * std::uint64_t(in.info.height);
    }
    const gp::io::JpegInfo& first = inputs[0].info;
    const std::vector<Tile> tiles = tile_layout(first.width, first.height, o.views, o.size);
    json tile_list = json::array();
    for (const Tile& t : tiles)  // WxH+X+Y
      tile_list.push_back(std::to_string(t.width) + "x" + std::to_string(t.height) + "+" + std::to_string(t.x) + "+" +
                          std::to_string(t.y));
    const bool exact = tiles[0].width == o.size && tiles[0].height == o.size;

    json result;
#ifdef GPUPROC_HAVE_NVJPEG
    if (o.gpu) result = run_gpu(o, inputs);
#endif
    if (!o.gpu) result = run_cpu(o, inputs);

    json report = {{"panoramas", inputs.size()},
                   {"panorama_size", {first.width, first.height}},
                   {"input_bytes", bytes_in},
                   {"input_pixels", pixels_in},
                   {"read_s", read_s},
                   {"views", o.views},
                   {"view_size", o.size},
                   {"tiles_of_first", tile_list},
                   {"tiles_note", exact ? "views are tiles of the decoded panorama (its pitch), evenly spaced, clamped"
                                        : "panorama smaller than a view: tiles shrunk to fit (fewer pixels than real views)"},
                   {"projected", o.gpu && o.project},  // true: ring views projected on the GPU, not tiles
                   {"quality", o.encode.quality},
                   {"chroma", gp::io::chroma_subsampling_name(o.encode.subsampling)}};
    report.update(result);
    report["gpuproc"] = std::string(GPUPROC_VERSION) + " " + GPUPROC_GIT_REVISION;
    std::cout << report.dump(2) << "\n";
    return 0;
  } catch (const gp::UsageError& e) {
    std::cerr << "gpuproc-bench-jpeg: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "gpuproc-bench-jpeg: " << e.what() << "\n";
    return 1;
  }
}

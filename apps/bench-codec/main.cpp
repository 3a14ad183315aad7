// gpuproc-bench-codec: the codec floor of a tonemap-exr run, through the same gp::io calls gpuproc
// makes. (a) decode every input (default RGBA selection) on T threads; (b) encode, on T threads, an
// 8-bit RGBA PNG for every image gpuproc would write with MIP files on: the full size and each MIP
// level (max(1, floor(n/2)) down to 1x1). The PNG contents are prepared from the decoded inputs
// before timing. decode_s + encode_s = codec_limit_s is what a perfectly overlapped, compute-free
// run would take with T decode/encode threads. With --gpu (and --png-compression 1), encoding is
// the GPU fast PNG path gpuproc uses there: upload, filter and entropy code on T streams, download
// the stream, write the file. With --exr-faces N (stitch-360's float cubemaps), (b) encodes instead six
// N x N float RGB faces per input as EXR (half unless --exr-float, --exr-compression C, zip by
// default), cut from the decoded input: the EXR codec floor of equirect EXR -> cube-face EXRs.
// With --gpu-decode, only the GPU EXR decoder (cuda/exr) is timed instead: every input's blocks
// uploaded as one batch, then each compression's launch (decompress + unpack into the inputs'
// pixels) best of 3, in GB/s of decoded pixels; the upload is timed too.
//   gpuproc-bench-codec [--threads T] [--png-compression 1] [--direct] [--gpu]
//                       [--exr-faces N [--exr-float] [--exr-compression C]] --out DIR FILE.exr...
//   gpuproc-bench-codec --gpu-decode FILE.exr...
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sys/resource.h>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "gpuproc/build_info.hpp"
#include "core/gpu_runtime.hpp"
#include "core/outputs.hpp"
#include "io/exr_blocks.hpp"
#include "io/file_bytes.hpp"
#include "io/image_io.hpp"
#include "io/png_encoder.hpp"
#include "tonemap/compute_backend.hpp"
#include "tonemap/fast_png_step.hpp"

namespace {

struct Options {
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  int png_compression = 1;
  bool gpu = false;           // encode with the GPU fast PNG path
  bool atomic_writes = true;  // as gpuproc writes (temporary, fsync, rename); --direct: plain writes
  int exr_faces = 0;          // > 0: encode six float faces of this size per input as EXR
  bool exr_half = true;
  std::string exr_compression = "zip";
  bool gpu_decode = false;    // time the GPU EXR decoder alone
  std::string out_dir;
  std::vector<std::string> inputs;
};

Options parse_options(int argc, char** argv) {
  Options o;
  auto value = [&](int& i) {
    if (i + 1 >= argc) throw gp::UsageError(std::string(argv[i]) + " needs a value");
    return std::string(argv[++i]);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads") o.threads = unsigned(std::max(1, std::stoi(value(i))));
    else if (arg == "--png-compression") o.png_compression = std::clamp(std::stoi(value(i)), 0, 9);
    else if (arg == "--out") o.out_dir = value(i);
    else if (arg == "--direct") o.atomic_writes = false;
    else if (arg == "--gpu") o.gpu = true;
    else if (arg == "--exr-faces") o.exr_faces = std::max(1, std::stoi(value(i)));
    else if (arg == "--exr-float") o.exr_half = false;
    else if (arg == "--exr-compression") o.exr_compression = value(i);
    else if (arg == "--gpu-decode") o.gpu_decode = true;
    else if (arg.rfind("--", 0) == 0) throw gp::UsageError("unknown option " + arg);
    else o.inputs.push_back(arg);
  }
  if (o.gpu_decode && !o.inputs.empty()) return o;
  if (o.out_dir.empty() || o.inputs.empty())
    throw gp::UsageError("usage: gpuproc-bench-codec [--threads T] [--png-compression N] [--direct] [--gpu] "
                         "[--exr-faces N [--exr-float] [--exr-compression C]] --out DIR FILE.exr...");
  if (o.gpu && o.png_compression != 1) throw gp::UsageError("--gpu encodes with the fast PNG path: --png-compression 1");
  if (o.gpu && o.exr_faces) throw gp::UsageError("--exr-faces encodes EXR on the CPU: no --gpu");
  return o;
}

// Runs job(0) .. job(n-1) on `threads` threads, each taking the next index; rethrows the first error.
template <class Job>
void run_parallel(std::size_t n, unsigned threads, Job job) {
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        for (std::size_t i; (i = next++) < n;) job(i);
      } catch (...) {
        errors[t] = std::current_exception();
        next = n;  // stop the others early
      }
    });
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

template <class F>
double wall_seconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Rgba8 {
  int width = 0, height = 0;
  std::vector<std::uint8_t> pixels;
  gp::ImageView view() { return gp::packed_view(pixels.data(), width, height, 4, gp::PixelType::u8); }
};

// Realistic 8-bit content: Reinhard, then a 2.2 gamma (roughly what tonemap-exr writes).
std::uint8_t display_value(float linear) {
  const float v = std::max(0.f, linear);
  return std::uint8_t(std::pow(v / (1.f + v), 1.f / 2.2f) * 255.f + 0.5f);
}

// 2x2 box average down to max(1, floor(n/2)), clamping at odd edges.
Rgba8 half_size(const Rgba8& src) {
  Rgba8 dst{std::max(1, src.width / 2), std::max(1, src.height / 2), {}};
  dst.pixels.resize(std::size_t(dst.width) * dst.height * 4);
  auto at = [&](int x, int y, int c) {
    return int(src.pixels[(std::size_t(std::min(y, src.height - 1)) * src.width + std::min(x, src.width - 1)) * 4 + c]);
  };
  for (int y = 0; y < dst.height; ++y)
    for (int x = 0; x < dst.width; ++x)
      for (int c = 0; c < 4; ++c)
        dst.pixels[(std::size_t(y) * dst.width + x) * 4 + c] = std::uint8_t(
            (at(2 * x, 2 * y, c) + at(2 * x + 1, 2 * y, c) + at(2 * x, 2 * y + 1, c) + at(2 * x + 1, 2 * y + 1, c) + 2) / 4);
  return dst;
}

// The full-size image and its MIP chain down to 1x1, from the decoded input.
std::vector<Rgba8> prepare_outputs(const std::string& path) {
  gp::io::HdrReader reader(path);
  gp::io::ReadPlan plan = reader.plan({});
  plan.type = gp::PixelType::f32;  // floats are simpler to quantise; this part is not timed
  std::vector<float> source(plan.bytes() / sizeof(float));
  reader.read(plan, source.data(), plan.row_bytes());
  const int nch = plan.channel_count();
  Rgba8 full{plan.width, plan.height, {}};
  full.pixels.resize(std::size_t(plan.width) * plan.height * 4);
  for (std::size_t p = 0; p < std::size_t(plan.width) * plan.height; ++p)
    for (int c = 0; c < 4; ++c) {
      const int src = plan.rgba_index[c];
      const float v = src < 0 ? 1.f : source[p * nch + src];
      full.pixels[p * 4 + c] = c == 3 ? std::uint8_t(std::clamp(v, 0.f, 1.f) * 255.f + 0.5f) : display_value(v);
    }
  std::vector<Rgba8> levels{std::move(full)};
  while (levels.back().width > 1 || levels.back().height > 1) levels.push_back(half_size(levels.back()));
  return levels;
}

// Six n x n float RGB faces cut from the decoded input (columns k n, wrapping; rows from the
// top, clamped): an equirect's content at the cube faces' size, for the EXR encode.
std::vector<std::vector<float>> prepare_exr_faces(const std::string& path, int n) {
  gp::io::HdrReader reader(path);
  gp::io::ReadPlan plan = reader.plan({});
  plan.type = gp::PixelType::f32;
  std::vector<float> source(plan.bytes() / sizeof(float));
  reader.read(plan, source.data(), plan.row_bytes());
  const int nch = plan.channel_count();
  std::vector<std::vector<float>> faces(6, std::vector<float>(std::size_t(n) * n * 3));
  for (int f = 0; f < 6; ++f)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const std::size_t p = std::size_t(std::min(y, plan.height - 1)) * plan.width + std::size_t((f * n + x) % plan.width);
        for (int c = 0; c < 3; ++c)
          faces[std::size_t(f)][(std::size_t(y) * n + x) * 3 + c] = source[p * nch + std::size_t(plan.rgba_index[c])];
      }
  return faces;
}

void decode_only(const std::string& path, int threads_per_file) {
  gp::io::HdrReader reader(path);
  const gp::io::ReadPlan plan = reader.plan({});
  // Reused per thread, like gpuproc's host pool: fresh pages would add page faults to the decode.
  thread_local std::vector<unsigned char> pixels;
  if (pixels.size() < plan.bytes()) pixels.resize(plan.bytes());
  reader.read(plan, pixels.data(), plan.row_bytes(), threads_per_file);
}

// The GPU EXR decoder alone (--gpu-decode): the inputs of each compression as one batch, then all
// of them as one batch (as tonemap-exr decodes them): GB/s of decoded pixels, each the best of 3
// launches after a warm-up; and the upload of the file bytes from pinned memory.
nlohmann::ordered_json gpu_decode_rates(const std::vector<std::string>& inputs) {
  gp::RuntimeOptions ro;
  ro.device = gp::DeviceChoice::parse("cuda:0");
  gp::Runtime rt(ro);
  rt.bind_thread();
  const gp::Stream stream = rt.make_stream();
  std::vector<gp::io::ReadPlan> plans;
  std::vector<gp::io::ExrBlocks> blocks;
  std::vector<std::vector<std::uint8_t>> files;
  for (const std::string& path : inputs) {
    gp::io::HdrReader reader(path);
    plans.push_back(reader.plan({}));
    auto b = reader.exr_blocks(plans.back());
    if (!b || !gp::io::exr_blocks_supported(b->compression))
      throw gp::Error(path + ": not an EXR of a compression the GPU decoder takes");
    blocks.push_back(std::move(*b));
    files.push_back(gp::io::read_file_bytes(path));
  }
  std::vector<gp::DeviceBuffer> d_pixels;
  for (const gp::io::ReadPlan& plan : plans) d_pixels.push_back(rt.device_alloc(plan.bytes(), stream, "pixels"));

  // One batch of the inputs `chosen`: uploaded, decoded 4 times, the best of the last 3.
  auto time_batch = [&](const std::vector<std::size_t>& chosen) {
    gp::io::ExrBlockBatch batch;
    std::vector<gp::exr::PixelTarget> targets;
    for (std::size_t k : chosen) {
      batch.add(inputs[k], files[k].size(), blocks[k], plans[k]);
      targets.push_back(gp::io::exr_pixel_target(plans[k], d_pixels[k].get(), plans[k].row_bytes()));
    }
    auto d_packed = rt.device_alloc(batch.packed_bytes(), stream, "EXR file bytes");
    auto d_unpacked = rt.device_alloc(batch.unpacked_bytes(), stream, "EXR unpacked blocks");
    auto d_entropy = rt.device_alloc(batch.unpacked_bytes(), stream, "EXR entropy scratch");
    auto d_piz = rt.device_alloc(gp::exr::piz_tables_bytes(batch.block_count(gp::exr::Compression::piz)) + 1, stream,
                                 "EXR PIZ tables");  // every PIZ block's: one launch
    auto d_results = rt.device_alloc(std::size_t(batch.block_count()) * sizeof(gp::exr::BlockResult), stream, "EXR results");
    auto d_channels = rt.device_alloc(batch.channels().size() * sizeof(gp::exr::ChannelTarget), stream, "EXR channels");
    gp::PinnedBuffer pinned = rt.pinned_alloc(batch.packed_bytes());
    for (std::size_t j = 0; j < chosen.size(); ++j)
      std::copy(files[chosen[j]].begin(), files[chosen[j]].end(),
                static_cast<std::uint8_t*>(pinned.get()) + batch.packed_offset(int(j)));
    gp::Event start, end;
    start.record(stream);
    stream.copy_to_device(d_packed.get(), pinned.get(), batch.packed_bytes());
    end.record(stream);
    end.synchronize();
    const double upload_s = end.elapsed_ms_since(start) / 1e3;
    stream.copy_to_device(d_channels.get(), batch.channels().data(), batch.channels().size() * sizeof(gp::exr::ChannelTarget));
    const std::vector<gp::exr::BlockFile> block_files = batch.block_files(
        {d_packed.as<std::uint8_t>(), d_unpacked.as<std::uint8_t>(), d_entropy.as<std::uint8_t>(),
         d_results.as<gp::exr::BlockResult>(), d_channels.as<gp::exr::ChannelTarget>()},
        targets);
    auto d_files = rt.device_alloc(block_files.size() * sizeof(gp::exr::BlockFile), stream, "EXR files");
    stream.copy_to_device(d_files.get(), block_files.data(), block_files.size() * sizeof(gp::exr::BlockFile));
    std::vector<gp::io::ExrBlockBatch::Launch> launches;
    const std::vector<gp::exr::BlockDesc> descs = batch.descs(&launches);
    auto d_descs = rt.device_alloc(descs.size() * sizeof(gp::exr::BlockDesc), stream, "EXR blocks");
    stream.copy_to_device(d_descs.get(), descs.data(), descs.size() * sizeof(gp::exr::BlockDesc));
    const gp::io::ExrBlockBatch::Launch& l = launches.at(0);
    const gp::exr::BlockBatch kernels{d_descs.as<gp::exr::BlockDesc>(), l.zip_count, l.other_count, l.piz_count,
                                      d_files.as<gp::exr::BlockFile>(), d_piz.as<gp::exr::PizScratch>()};
    double best = 1e30;
    for (int rep = 0; rep < 4; ++rep) {  // the first is the warm-up
      start.record(stream);
      gp::exr::decompress_blocks_gpu(kernels, stream.get());
      gp::exr::unpack_blocks_gpu(kernels, stream.get());
      end.record(stream);
      end.synchronize();
      if (rep > 0) best = std::min(best, double(end.elapsed_ms_since(start)) / 1e3);
    }
    std::vector<gp::exr::BlockResult> results(std::size_t(batch.block_count()));
    stream.copy_to_host(results.data(), d_results.get(), results.size() * sizeof(gp::exr::BlockResult));
    stream.synchronize("EXR decode results");
    for (int k = 0; k < batch.files(); ++k) batch.check(k, results.data());
    return nlohmann::ordered_json{{"files", chosen.size()},
                                  {"blocks", batch.block_count()},
                                  {"packed_bytes", batch.packed_bytes()},
                                  {"decoded_bytes", batch.unpacked_bytes()},
                                  {"upload_s", upload_s},
                                  {"best_s", best},
                                  {"gb_per_s", double(batch.unpacked_bytes()) / 1e9 / best}};
  };
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  std::vector<int> compressions;
  for (const gp::io::ExrBlocks& b : blocks)
    if (std::find(compressions.begin(), compressions.end(), b.compression) == compressions.end()) compressions.push_back(b.compression);
  std::vector<std::size_t> all;
  for (int c : compressions) {
    std::vector<std::size_t> chosen;
    for (std::size_t k = 0; k < blocks.size(); ++k)
      if (blocks[k].compression == c) chosen.push_back(k);
    all.insert(all.end(), chosen.begin(), chosen.end());
    out[gp::io::exr_compression_name(c)] = time_batch(chosen);
  }
  if (compressions.size() > 1) out["all"] = time_batch(all);
  return out;
}

// Process CPU time (user + system, all threads) in seconds: what a phase costs the machine.
double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse_options(argc, argv);
    if (o.gpu_decode) {
      std::cout << gpu_decode_rates(o.inputs).dump(2) << "\n";
      return 0;
    }
    std::filesystem::create_directories(o.out_dir);

    std::vector<std::vector<Rgba8>> images(o.inputs.size());
    std::vector<std::vector<std::vector<float>>> exr_faces(o.inputs.size());
    run_parallel(o.inputs.size(), o.threads, [&](std::size_t i) {
      if (o.exr_faces) exr_faces[i] = prepare_exr_faces(o.inputs[i], o.exr_faces);
      else images[i] = prepare_outputs(o.inputs[i]);
    });

    struct EncodeJob {
      gp::ImageView view;
      std::string path;
    };
    std::vector<EncodeJob> jobs;
    std::uint64_t pixels_in = 0, pixels_out = 0;
    for (std::size_t i = 0; i < o.inputs.size(); ++i) {
      const std::string stem = std::filesystem::path(o.inputs[i]).stem().string() + "-" + std::to_string(i);
      const auto out_path = [&](const std::string& name) { return (std::filesystem::path(o.out_dir) / name).string(); };
      if (o.exr_faces) {
        gp::io::HdrReader reader(o.inputs[i]);
        const gp::io::ReadPlan plan = reader.plan({});
        pixels_in += std::uint64_t(plan.width) * plan.height;
        for (std::size_t f = 0; f < 6; ++f) {
          jobs.push_back({gp::packed_view(exr_faces[i][f].data(), o.exr_faces, o.exr_faces, 3, gp::PixelType::f32),
                          out_path(stem + "_face" + std::to_string(f) + ".exr")});
          pixels_out += std::uint64_t(o.exr_faces) * o.exr_faces;
        }
        continue;
      }
      pixels_in += std::uint64_t(images[i][0].width) * images[i][0].height;
      for (std::size_t l = 0; l < images[i].size(); ++l) {
        const std::string name = l == 0 ? stem + ".png" : stem + "_mip" + std::to_string(l) + ".png";
        jobs.push_back({images[i][l].view(), out_path(name)});
        pixels_out += std::uint64_t(images[i][l].width) * images[i][l].height;
      }
    }

    double cpu_mark = process_cpu_seconds();
    // As gpuproc splits T threads: T/4 files at a time, each decoded on 4 threads, so the last
    // files do not decode alone on one core each.
    const unsigned files_at_once = std::max(2u, o.threads / 4);
    const int threads_per_file = int(std::max(1u, o.threads / files_at_once));
    const double decode_s = wall_seconds([&] {
      run_parallel(o.inputs.size(), files_at_once, [&](std::size_t i) { decode_only(o.inputs[i], threads_per_file); });
    });
    const double decode_cpu_s = process_cpu_seconds() - cpu_mark;

    gp::io::WriteOptions write;
    write.png_compression = o.png_compression;
    write.exr_half = o.exr_half;
    write.exr_compression = o.exr_compression;
    // GPU encoding: one backend (stream) per thread, made before timing like gpuproc's workers.
    std::unique_ptr<gp::Runtime> runtime;
    std::vector<std::unique_ptr<gp::tonemap::ComputeBackend>> backends(o.threads);
    if (o.gpu) {
      gp::RuntimeOptions ro;
      ro.device = gp::DeviceChoice::parse("cuda:0");
      runtime = std::make_unique<gp::Runtime>(ro);
      run_parallel(o.threads, o.threads, [&](std::size_t t) {
        runtime->bind_thread();
        backends[t] = gp::tonemap::make_gpu_backend(*runtime, int(t));
      });
    }
    std::atomic<unsigned> thread_slot{0};
    auto encode_file = [&](const std::string& path, const gp::ImageView& view) {
      if (!o.gpu) return gp::io::write_image(path, view, write);
      thread_local unsigned slot = thread_slot++;
      thread_local bool bound = (runtime->bind_thread(), true);
      (void)bound;
      gp::tonemap::ComputeBackend& b = *backends[slot % o.threads];
      void* device_image = b.alloc(view.bytes(), "image");
      b.upload(device_image, view.data, view.bytes());
      gp::ImageView device_view = view;
      device_view.data = device_image;
      std::vector<std::uint32_t> streams;
      const auto encoded = gp::tonemap::encode_fast_pngs({device_view}, b, streams);
      b.release();
      gp::io::write_png_stream(path, view, reinterpret_cast<const std::uint8_t*>(streams.data()), encoded[0].bytes);
    };
    cpu_mark = process_cpu_seconds();
    const double encode_s = wall_seconds([&] {
      run_parallel(jobs.size(), o.threads, [&](std::size_t j) {
        const gp::ImageView view = jobs[j].view;
        if (o.atomic_writes)
          gp::write_atomically(jobs[j].path, [&](const std::string& tmp) { encode_file(tmp, view); });
        else
          encode_file(jobs[j].path, view);
      });
    });
    const double encode_cpu_s = process_cpu_seconds() - cpu_mark;

    std::uintmax_t bytes_out = 0;
    for (auto& j : jobs) bytes_out += std::filesystem::file_size(j.path);
    const nlohmann::ordered_json report = {
        {"decode_s", decode_s},         {"encode_s", encode_s},
        {"codec_limit_s", decode_s + encode_s},
        {"decode_cpu_s", decode_cpu_s},  {"encode_cpu_s", encode_cpu_s},
        {"files", o.inputs.size()},     {"outputs", jobs.size()},
        {"threads", o.threads},         {"png_compression", o.png_compression},
        {"writes", o.atomic_writes ? "atomic" : "direct"},
        {"encoder", o.exr_faces ? "openexr " + std::string(o.exr_half ? "half " : "float ") + o.exr_compression
                    : o.gpu         ? "gpu fast png"
                    : o.png_compression == 1 ? "cpu fast png" : "libdeflate png"},
        {"pixels_in", pixels_in},       {"pixels_out", pixels_out},
        {"bytes_out", bytes_out},       {"oiio_version", GPUPROC_OIIO_VERSION}};
    std::cout << report.dump(2) << "\n";
    return 0;
  } catch (const gp::UsageError& e) {
    std::cerr << "gpuproc-bench-codec: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "gpuproc-bench-codec: " << e.what() << "\n";
    return 1;
  }
}

// nvJPEG against TurboJPEG (the CPU codec, itself checked in jpeg_codec_test.cpp):
//   decode: the hardware decoder and the CUDA decoder give TurboJPEG's pixels within a few LSB
//     (other IDCTs and colour conversions; at 4:2:0/4:2:2 the chroma upsampling may be nearest or
//     interpolated, so the closer of TurboJPEG's two upsamplings is the reference);
//   encode: nvJPEG's files decode with TurboJPEG to within 1.5 dB of TurboJPEG's own round trip;
//   a batch with bad files reports each of them by index and name and decodes the rest;
//   nvJPEG's scratch comes from the runtime's pool and all of it goes back.
// [.perf]: decode of 16 7680x3840 q95 panoramas and encode of 128 1920x1920 views.
// Compiled only where CMake found nvJPEG.
#ifdef GPUPROC_HAVE_NVJPEG

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/gpu_runtime.hpp"
#include "io/jpeg_codec.hpp"
#include "io/jpeg_test_images.hpp"

namespace {

using gp::ImageView;
using gp::io::ChromaSubsampling;
using gp::test::Canvas;
using gp::test::Difference;
using gp::test::TestImage;

struct Gpu {
  gp::Runtime runtime{gp::RuntimeOptions{}};
  gp::Stream stream = runtime.make_stream();
};

struct DeviceImage {
  gp::DeviceBuffer buffer;
  ImageView view;
};

// A device image, filled with 0x5A, rows `alignment` bytes aligned (0: packed).
DeviceImage device_image(Gpu& gpu, int width, int height, int channels, std::size_t alignment = 256) {
  DeviceImage d;
  d.view = gp::packed_view(nullptr, width, height, channels, gp::PixelType::u8);
  if (alignment) d.view.pitch = (d.view.row_bytes() + alignment - 1) / alignment * alignment;
  d.buffer = gpu.runtime.device_alloc(d.view.bytes(), gpu.stream, "test image");
  d.view.data = d.buffer.get();
  gpu.stream.memset(d.view.data, 0x5A, d.view.bytes());
  return d;
}

DeviceImage upload(Gpu& gpu, const ImageView& host) {
  DeviceImage d = device_image(gpu, host.width, host.height, host.channels);
  gpu.stream.copy_2d(d.view.data, d.view.pitch, host.data, host.pitch, host.row_bytes(), std::size_t(host.height));
  return d;
}

Canvas download(Gpu& gpu, const ImageView& device) {
  Canvas c(device.width, device.height, device.channels);
  gpu.stream.copy_2d(c.view.data, c.view.pitch, device.data, device.pitch, device.row_bytes(), std::size_t(device.height));
  gpu.stream.synchronize("test download");
  return c;
}

Canvas cpu_decode(const std::vector<std::uint8_t>& jpeg, int width, int height, int channels, bool fast_upsample) {
  Canvas c(width, height, channels);
  gp::io::JpegDecodeOptions options;
  options.fast_upsample = fast_upsample;
  gp::io::decode_jpeg(jpeg.data(), jpeg.size(), c.view, "reference.jpg", options);
  return c;
}

// The GPU's decode against the closer of TurboJPEG's accurate decodes (interpolated or nearest
// chroma upsampling).
Difference against_turbojpeg(const Canvas& gpu_result, const std::vector<std::uint8_t>& jpeg) {
  const ImageView& v = gpu_result.view;
  const Difference fancy = gp::test::difference(v, cpu_decode(jpeg, v.width, v.height, v.channels, false).view);
  const Difference nearest = gp::test::difference(v, cpu_decode(jpeg, v.width, v.height, v.channels, true).view);
  return fancy.mean <= nearest.mean ? fancy : nearest;
}

std::string describe(const Difference& d) {
  std::ostringstream s;
  s << "max " << d.max << ", 99.9% within " << d.p999 << ", mean " << d.mean;
  return s.str();
}

gp::io::JpegSource source(const std::vector<std::uint8_t>& bytes, const std::string& name) {
  return gp::io::JpegSource{bytes.data(), bytes.size(), name};
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("nvJPEG decode equals TurboJPEG's within a few LSB", "[io][jpeg][nvjpeg]") {
  Gpu gpu;
  const TestImage rgb(1001, 667, 3);
  const TestImage grey(640, 481, 1);
  for (const bool hardware : {true, false}) {
    gp::io::GpuJpegOptions options;
    options.hardware_decode = hardware;
    gp::io::GpuJpegCodec codec(gpu.runtime, options);
    WARN(codec.decoder_description());
    if (!hardware) CHECK_FALSE(codec.hardware_decoder());

    struct Case {
      ChromaSubsampling subsampling;
      bool progressive;
    };
    for (const Case& c : {Case{ChromaSubsampling::s444, false}, Case{ChromaSubsampling::s420, false},
                          Case{ChromaSubsampling::s422, false}, Case{ChromaSubsampling::s420, true}}) {
      gp::io::JpegEncodeOptions encode;
      encode.subsampling = c.subsampling;
      encode.progressive = c.progressive;
      const std::vector<std::uint8_t> jpeg = gp::io::encode_jpeg(rgb.view, encode, "rgb.jpg");
      DeviceImage out = device_image(gpu, rgb.view.width, rgb.view.height, 3);
      const gp::io::GpuJpegCounters before = codec.counters();
      codec.decode(source(jpeg, "rgb.jpg"), out.view, gpu.stream);
      const gp::io::GpuJpegCounters after = codec.counters();
      // The hardware decoder takes baseline files; progressive ones go to nvjpegDecode.
      if (codec.hardware_decoder()) {
        CHECK(after.batched - before.batched == (c.progressive ? 0u : 1u));
        CHECK(after.failed_batches == before.failed_batches);
      }
      const Difference d = against_turbojpeg(download(gpu, out.view), jpeg);
      const std::string what = std::string(hardware ? "hardware requested, " : "CUDA decoder, ") +
                               gp::io::chroma_subsampling_name(c.subsampling) + (c.progressive ? " progressive" : "");
      WARN(what << ": " << describe(d));
      if (c.subsampling == ChromaSubsampling::s444) {
        CHECK(d.max <= 4);
        CHECK(d.mean <= 0.75);
      } else {
        CHECK(d.p999 <= 4);
        CHECK(d.mean <= 1.0);
      }
    }

    // A grey file into a grey output and into an RGB one (R = G = B = luma).
    const std::vector<std::uint8_t> grey_jpeg = gp::io::encode_jpeg(grey.view, {}, "grey.jpg");
    for (const int channels : {1, 3}) {
      DeviceImage out = device_image(gpu, grey.view.width, grey.view.height, channels);
      codec.decode(source(grey_jpeg, "grey.jpg"), out.view, gpu.stream);
      const Difference d = against_turbojpeg(download(gpu, out.view), grey_jpeg);
      WARN("grey file into " << channels << " channels: " << describe(d));
      CHECK(d.max <= 3);
    }
  }
}

TEST_CASE("nvJPEG encode decodes with TurboJPEG as well as TurboJPEG's own", "[io][jpeg][nvjpeg]") {
  Gpu gpu;
  gp::io::GpuJpegCodec codec(gpu.runtime);
  const TestImage rgb(1280, 721, 3, 5);
  const DeviceImage device = upload(gpu, rgb.view);
  std::vector<std::vector<std::uint8_t>> files;

  for (const ChromaSubsampling subsampling : {ChromaSubsampling::s420, ChromaSubsampling::s444}) {
    gp::io::JpegEncodeOptions options;
    options.quality = 95;
    options.subsampling = subsampling;
    const std::vector<gp::io::ItemOutcome> outcomes = codec.encode_batch({device.view}, {"view.jpg"}, options, gpu.stream, files);
    REQUIRE(outcomes.size() == 1);
    REQUIRE_FALSE(outcomes[0]);
    const gp::io::JpegInfo info = gp::io::jpeg_info(files[0], "view.jpg");
    CHECK(info.width == 1280);
    CHECK(info.height == 721);
    CHECK(info.channels == 3);
    CHECK(info.subsampling == subsampling);
    CHECK_FALSE(info.progressive);
    CHECK(info.has_end_marker);
    const double gpu_psnr = gp::test::psnr(rgb.view, cpu_decode(files[0], 1280, 721, 3, false).view);
    const std::vector<std::uint8_t> cpu_file = gp::io::encode_jpeg(rgb.view, options, "cpu.jpg");
    const double cpu_psnr = gp::test::psnr(rgb.view, cpu_decode(cpu_file, 1280, 721, 3, false).view);
    WARN(gp::io::chroma_subsampling_name(subsampling) << " q95: nvJPEG " << gpu_psnr << " dB, " << files[0].size()
                                                      << " B; TurboJPEG " << cpu_psnr << " dB, " << cpu_file.size() << " B");
    CHECK(gpu_psnr > cpu_psnr - 1.5);
    CHECK(gpu_psnr > (subsampling == ChromaSubsampling::s444 ? 37.5 : 35.0));
  }

  gp::io::JpegEncodeOptions options;
  options.quality = 95;
  codec.encode_batch({device.view}, {"q95.jpg"}, options, gpu.stream, files);
  const std::vector<std::uint8_t> q95 = files[0];
  options.quality = 50;
  codec.encode_batch({device.view}, {"q50.jpg"}, options, gpu.stream, files);
  CHECK(files[0].size() < q95.size() / 2);
  CHECK(gp::test::psnr(rgb.view, cpu_decode(files[0], 1280, 721, 3, false).view) <
        gp::test::psnr(rgb.view, cpu_decode(q95, 1280, 721, 3, false).view) - 3.0);

  options.quality = 90;
  options.progressive = true;
  REQUIRE_FALSE(codec.encode_batch({device.view}, {"progressive.jpg"}, options, gpu.stream, files)[0]);
  CHECK(gp::io::jpeg_info(files[0], "progressive.jpg").progressive);
  CHECK(gp::test::psnr(rgb.view, cpu_decode(files[0], 1280, 721, 3, false).view) > 33.0);
}

TEST_CASE("nvJPEG encodes a batch larger than its encoder states, each file from its image", "[io][jpeg][nvjpeg]") {
  Gpu gpu;
  gp::io::GpuJpegOptions codec_options;
  codec_options.encoder_states = 3;  // 11 images: four rounds, the last one short
  gp::io::GpuJpegCodec codec(gpu.runtime, codec_options);
  std::vector<TestImage> hosts;
  std::vector<DeviceImage> devices;
  for (int v = 0; v < 5; ++v) {
    hosts.emplace_back(320, 240, 3, 0, v);
    devices.push_back(upload(gpu, hosts.back().view));
  }
  std::vector<ImageView> images;
  std::vector<std::string> names;
  for (int i = 0; i < 11; ++i) {
    images.push_back(devices[std::size_t(i % 5)].view);
    names.push_back("view-" + std::to_string(i) + ".jpg");
  }
  std::vector<std::vector<std::uint8_t>> files;
  const std::vector<gp::io::ItemOutcome> outcomes = codec.encode_batch(images, names, {}, gpu.stream, files);
  REQUIRE(outcomes.size() == 11);
  REQUIRE(files.size() == 11);
  for (int i = 0; i < 11; ++i) {
    INFO(names[std::size_t(i)]);
    REQUIRE_FALSE(outcomes[std::size_t(i)]);
    const Canvas back = cpu_decode(files[std::size_t(i)], 320, 240, 3, false);
    CHECK(gp::test::psnr(hosts[std::size_t(i % 5)].view, back.view) > 35.0);
    CHECK(gp::test::psnr(hosts[std::size_t((i + 1) % 5)].view, back.view) < 25.0);  // not a neighbour's
  }
}

TEST_CASE("codecs sharing one nvJPEG handle decode and encode on several threads at once", "[io][jpeg][nvjpeg]") {
  Gpu gpu;
  const auto context = std::make_shared<const gp::io::GpuJpegContext>(gpu.runtime);
  WARN(context->decoder_description());
  std::vector<TestImage> hosts;
  std::vector<std::vector<std::uint8_t>> jpegs;
  for (int v = 0; v < 4; ++v) {
    hosts.emplace_back(1024, 512, 3, 0, v);
    jpegs.push_back(gp::io::encode_jpeg(hosts.back().view, {}, "pano" + std::to_string(v) + ".jpg"));
  }
  constexpr int threads = 3, rounds = 4;
  std::vector<std::string> failures(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        gpu.runtime.bind_thread();
        gp::io::GpuJpegCodec codec(context);  // its own states on the shared handle
        gp::Stream stream = gpu.runtime.make_stream();
        for (int round = 0; round < rounds; ++round) {
          std::vector<DeviceImage> outs;
          std::vector<gp::io::JpegSource> sources;
          std::vector<ImageView> views;
          for (std::size_t k = 0; k < jpegs.size(); ++k) {
            DeviceImage d;
            d.view = gp::packed_view(nullptr, 1024, 512, 3, gp::PixelType::u8);
            d.buffer = gpu.runtime.device_alloc(d.view.bytes(), stream, "shared-handle test");
            d.view.data = d.buffer.get();
            views.push_back(d.view);
            outs.push_back(std::move(d));
            sources.push_back(source(jpegs[k], "pano" + std::to_string(k) + ".jpg"));
          }
          const auto decoded = codec.decode_batch(sources, views, stream);
          std::vector<std::vector<std::uint8_t>> files;
          const auto encoded = codec.encode_batch(views, {"a.jpg", "b.jpg", "c.jpg", "d.jpg"}, {}, stream, files);
          for (std::size_t k = 0; k < jpegs.size(); ++k) {
            if (decoded[k] || encoded[k]) throw std::runtime_error("item " + std::to_string(k) + " failed");
            const Canvas back = cpu_decode(files[k], 1024, 512, 3, false);
            const double db = gp::test::psnr(hosts[k].view, back.view);
            if (db < 33.0) throw std::runtime_error("item " + std::to_string(k) + ": PSNR " + std::to_string(db));
          }
        }
      } catch (const std::exception& e) {
        failures[std::size_t(t)] = e.what();
      }
    });
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) {
    INFO("thread " << t);
    CHECK(failures[std::size_t(t)].empty());
    if (!failures[std::size_t(t)].empty()) WARN(failures[std::size_t(t)]);
  }
}

TEST_CASE("nvJPEG batch: bad files are reported by index and name, the rest decoded", "[io][jpeg][nvjpeg]") {
  Gpu gpu;
  gp::io::GpuJpegCodec codec(gpu.runtime);
  const int width = 640, height = 360;
  const TestImage a(width, height, 3, 0, 0), b(width, height, 3, 0, 1), c(width, height, 3, 0, 2);
  const TestImage small(320, 180, 3);
  gp::io::JpegEncodeOptions progressive;
  progressive.progressive = true;
  const std::vector<std::uint8_t> ja = gp::io::encode_jpeg(a.view, {}, "a.jpg");
  const std::vector<std::uint8_t> jb = gp::io::encode_jpeg(b.view, {}, "b.jpg");
  const std::vector<std::uint8_t> jc = gp::io::encode_jpeg(c.view, {}, "c.jpg");
  const std::vector<std::uint8_t> jp = gp::io::encode_jpeg(b.view, progressive, "p.jpg");
  const std::vector<std::uint8_t> truncated(ja.begin(), ja.begin() + std::ptrdiff_t(ja.size() * 6 / 10));
  const std::vector<std::uint8_t> not_jpeg = {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0, 0, 0};
  const std::vector<std::uint8_t> wrong_size = gp::io::encode_jpeg(small.view, {}, "small.jpg");
  // A Huffman table with an impossible class and index: only nvJPEG's own parse can object.
  std::vector<std::uint8_t> bad_table = jc;
  std::size_t dht = 2;
  while (dht + 5 < bad_table.size() && !(bad_table[dht] == 0xFF && bad_table[dht + 1] == 0xC4))
    dht += 2 + (std::size_t(bad_table[dht + 2]) << 8 | bad_table[dht + 3]);
  REQUIRE(dht + 5 < bad_table.size());
  bad_table[dht + 4] = 0x55;  // Tc = 5, Th = 5

  const std::vector<gp::io::JpegSource> sources = {
      source(ja, "0-good.jpg"),      source(truncated, "1-truncated.jpg"), source(jb, "2-good.jpg"),
      source(not_jpeg, "3-gif.jpg"), source(jp, "4-progressive.jpg"),     source(wrong_size, "5-small.jpg"),
      source(bad_table, "6-table.jpg"), source(jc, "7-good.jpg")};
  const std::vector<const std::vector<std::uint8_t>*> expected = {&ja, nullptr, &jb, nullptr, &jp, nullptr, nullptr, &jc};
  std::vector<DeviceImage> outputs;
  std::vector<ImageView> views;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    outputs.push_back(device_image(gpu, width, height, 3));
    views.push_back(outputs.back().view);
  }
  const std::vector<gp::io::ItemOutcome> outcomes = codec.decode_batch(sources, views, gpu.stream);
  gpu.stream.synchronize("test decode");
  REQUIRE(outcomes.size() == sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    INFO(sources[i].name);
    if (expected[i]) {
      REQUIRE_FALSE(outcomes[i]);
      const Difference d = against_turbojpeg(download(gpu, views[i]), *expected[i]);
      CHECK(d.p999 <= 4);
    } else {
      REQUIRE(outcomes[i]);
      WARN(outcomes[i]->what());
      CHECK(outcomes[i]->file() == sources[i].name);
      CHECK(outcomes[i]->stage() == "decode");
    }
  }
  CHECK_THAT(outcomes[1]->what(), Catch::Contains("truncated"));
  CHECK_THAT(outcomes[5]->what(), Catch::Contains("320x180"));

  // The codec goes on with whole batches afterwards.
  const std::vector<gp::io::ItemOutcome> again =
      codec.decode_batch({source(jc, "c.jpg"), source(ja, "a.jpg")}, {views[0], views[1]}, gpu.stream);
  REQUIRE_FALSE(again[0]);
  REQUIRE_FALSE(again[1]);
  CHECK(against_turbojpeg(download(gpu, views[0]), jc).p999 <= 4);
  CHECK(against_turbojpeg(download(gpu, views[1]), ja).p999 <= 4);

  try {
    codec.decode(source(truncated, "cut.jpg"), views[0], gpu.stream);
    FAIL("no ItemError");
  } catch (const gp::ItemError& e) {
    CHECK(e.file() == "cut.jpg");
  }
}

TEST_CASE("nvJPEG scratch comes from the runtime's pool and goes back", "[io][jpeg][nvjpeg]") {
  Gpu gpu;
  const TestImage rgb(800, 600, 3);
  const std::vector<std::uint8_t> jpeg = gp::io::encode_jpeg(rgb.view, {}, "pool.jpg");
  DeviceImage out = device_image(gpu, 800, 600, 3);
  gpu.stream.synchronize("test setup");
  const std::size_t before = gpu.runtime.memory_stats().device_in_use;
  for (const bool runtime_allocators : {true, false}) {
    INFO("runtime allocators " << runtime_allocators);
    {
      gp::io::GpuJpegOptions options;
      options.runtime_allocators = runtime_allocators;
      gp::io::GpuJpegCodec codec(gpu.runtime, options);
      codec.decode(source(jpeg, "pool.jpg"), out.view, gpu.stream);
      std::vector<std::vector<std::uint8_t>> files;
      REQUIRE_FALSE(codec.encode_batch({out.view}, {"pool-out.jpg"}, {}, gpu.stream, files)[0]);
      gpu.stream.synchronize("test decode");
      const std::size_t during = gpu.runtime.memory_stats().device_in_use;
      WARN("runtime allocators " << runtime_allocators << ": the runtime's pool holds "
                                 << (double(during) - double(before)) / 1024 << " KiB more");
      if (runtime_allocators)
        CHECK(during > before);
      else
        CHECK(during == before);
      // q95 4:2:0 of this image through nvJPEG's decoder: 34.7 dB on the H100.
      CHECK(gp::test::psnr(rgb.view, download(gpu, out.view).view) > 33.0);
    }
    CHECK(gpu.runtime.memory_stats().device_in_use == before);
  }
}

TEST_CASE("nvJPEG throughput: 16 7680x3840 q95 panoramas, 128 1920x1920 views", "[io][jpeg][nvjpeg][.perf]") {
  Gpu gpu;
  const int width = 7680, height = 3840, panoramas = 16;
  const TestImage pano(width, height, 3);
  gp::io::JpegEncodeOptions q95;
  q95.quality = 95;
  const std::vector<std::uint8_t> jpeg = gp::io::encode_jpeg(pano.view, q95, "pano.jpg");
  {
    Canvas cpu(width, height, 3);
    const auto start = std::chrono::steady_clock::now();
    gp::io::decode_jpeg(jpeg.data(), jpeg.size(), cpu.view, "pano.jpg");
    WARN("TurboJPEG, one thread: " << seconds_since(start) * 1000 << " ms per panorama (" << jpeg.size() / 1024
                                   << " KiB file)");
  }

  gp::io::GpuJpegOptions options;
  options.expected_batch = panoramas;
  options.expected_width = width;
  options.expected_height = height;
  gp::io::GpuJpegCodec codec(gpu.runtime, options);
  std::vector<gp::io::JpegSource> sources(panoramas, source(jpeg, "pano.jpg"));
  std::vector<DeviceImage> outputs;
  std::vector<ImageView> views;
  for (int i = 0; i < panoramas; ++i) {
    outputs.push_back(device_image(gpu, width, height, 3, 0));  // packed, as the pipeline's
    views.push_back(outputs.back().view);
  }
  for (const gp::io::ItemOutcome& o : codec.decode_batch(sources, views, gpu.stream)) REQUIRE_FALSE(o);  // warm-up
  gpu.stream.synchronize("warm-up");
  const int rounds = 5;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < rounds; ++r) {
    for (const gp::io::ItemOutcome& o : codec.decode_batch(sources, views, gpu.stream)) REQUIRE_FALSE(o);
    gpu.stream.synchronize("decode");
  }
  const double per_batch = seconds_since(start) / rounds;
  const gp::io::GpuJpegCounters counters = codec.counters();
  WARN(codec.decoder_description() << ": " << per_batch * 1000 << " ms per batch of " << panoramas << ", "
                                   << panoramas / per_batch << " panoramas/s, "
                                   << double(width) * height * panoramas / per_batch / 1e6 << " MP/s (files batched "
                                   << counters.batched << ", one by one " << counters.single << ", failed batches "
                                   << counters.failed_batches << ")");
  if (codec.hardware_decoder()) CHECK(counters.single == 0);
  CHECK(against_turbojpeg(download(gpu, views[panoramas - 1]), jpeg).p999 <= 4);

  // 128 views: 8 different 1920x1920 crops of the panorama, 16 times each.
  const int side = 1920, view_count = 128;
  std::vector<ImageView> host_crops;
  std::vector<DeviceImage> crops;
  for (int v = 0; v < 8; ++v) {
    ImageView crop = pano.view;
    crop.data = pano.view.row<std::uint8_t>(v % 2 * side) + std::size_t(v / 2) * side * 3;
    crop.width = side;
    crop.height = side;
    host_crops.push_back(crop);
    crops.push_back(upload(gpu, crop));
  }
  std::vector<ImageView> images;
  std::vector<std::string> names;
  for (int i = 0; i < view_count; ++i) {
    images.push_back(crops[std::size_t(i % 8)].view);
    names.push_back("view-" + std::to_string(i) + ".jpg");
  }
  for (const int states : {16, 64}) {
    gp::io::GpuJpegOptions encode_options;
    encode_options.encoder_states = states;
    gp::io::GpuJpegCodec encoder(gpu.runtime, encode_options);
    std::vector<std::vector<std::uint8_t>> files;
    for (const gp::io::ItemOutcome& o : encoder.encode_batch(images, names, q95, gpu.stream, files)) REQUIRE_FALSE(o);
    const auto encode_start = std::chrono::steady_clock::now();
    const int encode_rounds = 3;
    std::size_t bytes = 0;
    for (int r = 0; r < encode_rounds; ++r) {
      for (const gp::io::ItemOutcome& o : encoder.encode_batch(images, names, q95, gpu.stream, files)) REQUIRE_FALSE(o);
      for (const auto& f : files) bytes += f.size();
    }
    const double per_round = seconds_since(encode_start) / encode_rounds;
    WARN("nvJPEG encode, " << states << " states: " << per_round * 1000 << " ms per " << view_count << " views, "
                           << view_count / per_round << " views/s, " << double(bytes) / encode_rounds / view_count / 1024
                           << " KiB per view");
    CHECK(gp::test::psnr(host_crops[5], cpu_decode(files[std::size_t(view_count - 3)], side, side, 3, false).view) > 35.0);
  }
}

#endif  // GPUPROC_HAVE_NVJPEG

// Several devices in one process (--device cuda:0,1 / all) on the GPU: runtimes that make their
// own device current, and whole stitch-360 / tonemap-exr batches through run_batch_job with two
// runtimes on GPU 0 ("cuda:0,0": the per-device plumbing without needing two GPUs), whose outputs
// must equal a one-runtime run's byte for byte. With two or more GPUs, also on cuda:0,1.
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <fstream>
#include <numeric>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/batch_job.hpp"
#include "core/gpu_runtime.hpp"
#include "core/output_tree.hpp"
#include "stitch/stitch_command.hpp"
#include "support/test_data.hpp"
#include "tonemap/tonemap_command.hpp"

namespace fs = std::filesystem;

namespace {

gp::RuntimeOptions on(int device) {
  gp::RuntimeOptions o;
  o.device = gp::DeviceChoice::parse("cuda:" + std::to_string(device));
  return o;
}

int current_device() {
  int d = -1;
  return cudaGetDevice(&d) == cudaSuccess ? d : -1;
}

// Round trip of n ints through `rt`'s memory, on a thread whose current device is `other`.
// (Catch's CHECK from the one extra thread while the test's thread waits for it; no REQUIRE,
// whose exception would end the process there.)
void round_trip_from(gp::Runtime& rt, int other) {
  std::string error;
  std::thread([&] {
    try {
      CHECK(cudaSetDevice(other) == cudaSuccess);
      const std::size_t n = 1 << 18;
      gp::PinnedBuffer host = rt.pinned_alloc(n * sizeof(int));
      std::iota(host.as<int>(), host.as<int>() + n, 7);
      gp::Stream stream = rt.make_stream();
      gp::DeviceBuffer dev = rt.device_alloc(n * sizeof(int), stream, "round trip");
      stream.copy_to_device(dev.get(), host.get(), n * sizeof(int));
      gp::PinnedBuffer back = rt.pinned_alloc(n * sizeof(int));
      stream.copy_to_host(back.get(), dev.get(), n * sizeof(int));
      stream.synchronize();
      for (std::size_t i = 0; i < n; i += 1021) CHECK(back.as<int>()[i] == int(i) + 7);
      dev.reset();
      rt.trim();
      CHECK(current_device() == rt.device());  // the runtime made its device current for its calls
      CHECK(rt.memory_stats().device_in_use == 0);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }).join();
  CHECK(error == "");
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// Runs `command` on `inputs` with --device `device`; returns the report.
nlohmann::json run_job(gp::BatchCommand& command, const std::string& config, const fs::path& inputs, const fs::path& out,
                       const std::string& device, const std::vector<std::string>& sets) {
  const gp::CommonOptions o = gp::test::job_options(config, inputs.string(), out, device, sets);
  CHECK(gp::run_batch_job(command, o) == 0);
  return read_json(o.report_path);
}

// The report of a run on `devices` devices: each listed, their items adding up to `items`, each
// with some (where there are few devices for the items), and a memory section per device.
void check_spread(const nlohmann::json& report, std::size_t devices, std::size_t items) {
  const nlohmann::json& listed = report["device"]["devices"];
  REQUIRE(listed.size() == devices);
  std::size_t total = 0;
  for (const auto& d : listed) {
    CHECK(d["used"].get<std::string>().rfind("cuda:", 0) == 0);
    if (devices <= 2) CHECK(d["items"].get<std::size_t>() > 0);
    total += d["items"].get<std::size_t>();
  }
  CHECK(total == items);
  if (devices > 1) CHECK(report["memory"]["per_device"].size() == devices);
}

// The same batch with --device cuda:0 and with `list`: identical files, the work spread.
void compare_one_and_list(gp::BatchCommand& command, const std::string& config, const fs::path& inputs, std::size_t items,
                          const std::string& list, std::size_t devices, const std::vector<std::string>& sets) {
  const fs::path out = gp::test::scratch_dir("devices-gpu");
  const nlohmann::json one = run_job(command, config, inputs, out / "one", "cuda:0", sets);
  const nlohmann::json several = run_job(command, config, inputs, out / "several", list, sets);
  CHECK(one["items"]["succeeded"] == items);
  CHECK(several["items"]["succeeded"] == items);
  check_spread(one, 1, items);
  check_spread(several, devices, items);
  const auto a = gp::test::read_tree(out / "one"), b = gp::test::read_tree(out / "several");
  CHECK(a.size() >= items);
  CHECK(a.size() == b.size());
  for (const auto& [name, bytes] : a) {
    INFO(name);
    const auto other = b.find(name);
    REQUIRE(other != b.end());
    CHECK(other->second == bytes);
  }
  fs::remove_all(out);
}

fs::path exr_inputs() {
  std::vector<std::string> samples;
  for (const auto& e : fs::directory_iterator(gp::test::source_path("data-samples/exr"))) samples.push_back(e.path().string());
  return gp::test::linked_inputs("devices-gpu-exr", samples, 4);  // 20 items
}

}  // namespace

TEST_CASE("a runtime makes its own device current for its calls, from any thread", "[core][devices][gpu]") {
  gp::Runtime first(on(0)), second(on(0));  // two runtimes on one GPU: separate accounting
  round_trip_from(first, 0);
  round_trip_from(second, 0);
  gp::Stream stream = first.make_stream();
  gp::DeviceBuffer held = first.device_alloc(1 << 20, stream, "held");
  CHECK(first.memory_stats().device_in_use == (1u << 20));
  CHECK(second.memory_stats().device_in_use == 0);
  held.reset();
  if (gp::cuda_device_count() < 2) {
    WARN("one GPU: the cross-device part of this test needs two");
    return;
  }
  gp::Runtime other(on(1));
  round_trip_from(other, 0);  // runtime on GPU 1 used from a thread on GPU 0
  round_trip_from(first, 1);
}

TEST_CASE("tonemap-exr with --device cuda:0,0 writes what --device cuda:0 writes, spread over both runtimes",
          "[core][devices][gpu][tonemap]") {
  const fs::path inputs = exr_inputs();
  auto command = gp::tonemap::make_command();
  compare_one_and_list(*command, "tonemap-exr.json", inputs, 20, "cuda:0,0", 2, {"thumbnail.size=64", "run.batch=2"});
  if (gp::cuda_device_count() >= 2)
    compare_one_and_list(*command, "tonemap-exr.json", inputs, 20, "cuda:0,1", 2, {"thumbnail.size=64", "run.batch=2"});
  fs::remove_all(inputs);
}

TEST_CASE("stitch-360 with --device cuda:0,0 writes what --device cuda:0 writes, spread over both runtimes",
          "[core][devices][gpu][stitch]") {
  const fs::path inputs =
      gp::test::linked_inputs("devices-gpu-stitch", {gp::test::source_path("data-samples/stitch/equirect.jpg")}, 16);
  auto command = gp::stitch::make_command();
  // Small batches so that every worker of both runtimes gets panoramas; JPEG views (nvJPEG in
  // builds that have it: one handle per runtime) and the rig files.
  const std::vector<std::string> sets{"run.batch=2", "run.gpu_workers=2", "views.width=480", "views.height=480"};
  compare_one_and_list(*command, "stitch-360.json", inputs, 16, "cuda:0,0", 2, sets);
  if (gp::cuda_device_count() >= 2) compare_one_and_list(*command, "stitch-360.json", inputs, 16, "all", std::size_t(gp::cuda_device_count()), sets);
  fs::remove_all(inputs);
}

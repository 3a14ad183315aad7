// The GPU monitor on a GPU: NVML samples of the runtime's device while it works, plausible values,
// a summary per device and counter tracks in the trace.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/batch_job.hpp"
#include "core/gpu_monitor.hpp"
#include "core/gpu_runtime.hpp"
#include "core/trace.hpp"
#include "support/test_data.hpp"
#include "tonemap/tonemap_command.hpp"

TEST_CASE("GPU monitor: NVML samples of a working GPU", "[core][gpu]") {
  gp::Runtime rt(gp::RuntimeOptions{});
  REQUIRE(rt.gpu());
  const auto info = rt.gpu_info();
  REQUIRE(info);
  gp::Trace::global().enable_timeline(true);
  gp::GpuMonitor monitor({&rt, &rt}, std::chrono::milliseconds(20));  // the same GPU twice: sampled once
  {
    // 1 GiB held and written over and over for about half a second.
    auto stream = rt.make_stream();
    const std::size_t bytes = std::size_t(1) << 30;
    auto buffer = rt.device_alloc(bytes, stream, "monitor test");
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    while (std::chrono::steady_clock::now() < until) {
      for (int k = 0; k < 8; ++k) stream.memset(buffer.get(), k, bytes);
      stream.synchronize();
    }
    monitor.stop();
  }
  const auto s = monitor.summary();
  INFO(s.dump(1));
  if (s["available"] == false) {
    WARN("NVML not available on this machine: " << s["why"].get<std::string>());
    return;
  }
  REQUIRE(s["devices"].size() == 1);
  const auto& d = s["devices"][0];
  CHECK(d["device"] == rt.device());
  CHECK(d["name"] == info->name);
  CHECK(d["pci_bus_id"] == info->pci_bus_id);
  CHECK(d["samples"].get<long>() >= 10);
  CHECK(d["memory_used_gib"]["max"].get<double>() >= 1.0);  // the buffer, at least
  CHECK(d["gpu_utilization_pct"]["max"].get<double>() > 0);
  CHECK(d["gpu_utilization_pct"]["max"].get<double>() <= 100);
  CHECK(d["power_w"]["mean"].get<double>() > 5);
  CHECK(d["power_w"]["max"].get<double>() < 2000);
  CHECK(d["temperature_c"]["max"].get<double>() > 5);
  CHECK(d["temperature_c"]["max"].get<double>() < 120);
  CHECK(d["sm_clock_mhz"]["max"].get<double>() > 100);
  if (!d["energy_j"].is_null()) CHECK(d["energy_j"].get<double>() > 0);
  int counters = 0;
  const auto trace = gp::Trace::global().chrome_trace();  // kept: the loop must not walk a temporary's member
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "C" && e["name"] == "GPU " + std::to_string(rt.device())) ++counters;
  CHECK(counters >= d["samples"].get<long>());
  gp::Trace::global().enable_timeline(false);
}

TEST_CASE("GPU monitor: a GPU job's report gives its GPU's figures", "[core][gpu]") {
  const auto dir = gp::test::scratch_dir("gpu-monitor-job");
  gp::CommonOptions o;
  o.config_path = gp::test::source_path("configs/tonemap-exr.json");
  o.inputs = {gp::test::source_path("data-samples/exr/sunset_half_zip.exr")};
  o.overrides = {"output.dir=" + (dir / "out").string()};
  o.device = "cuda:0";
  o.progress = "none";
  o.report_path = (dir / "report.json").string();
  auto command = gp::tonemap::make_command();
  REQUIRE(gp::run_batch_job(*command, o) == 0);
  std::ifstream f(o.report_path);
  const auto report = nlohmann::json::parse(f);
  const auto& m = report["gpu_monitor"];
  INFO(m.dump(1));
  if (m["available"] == false) {
    WARN("NVML not available on this machine: " << m["why"].get<std::string>());
    return;
  }
  REQUIRE(m["devices"].size() == 1);
  CHECK(m["devices"][0]["samples"].get<long>() >= 1);
  CHECK(m["devices"][0]["power_w"]["max"].get<double>() > 5);
}

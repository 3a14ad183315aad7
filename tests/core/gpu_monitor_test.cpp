// The GPU monitor on the CPU path: nothing sampled, and the report says why (the GPU machine's
// test, gpu_monitor_gpu_test.cpp, checks the samples).
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/batch_job.hpp"
#include "core/gpu_monitor.hpp"
#include "core/gpu_runtime.hpp"
#include "support/test_data.hpp"
#include "tonemap/tonemap_command.hpp"

TEST_CASE("GPU monitor: the CPU path samples nothing and says so", "[core]") {
  gp::Runtime cpu(gp::RuntimeOptions{gp::DeviceChoice::parse("cpu")});
  gp::GpuMonitor monitor({&cpu}, std::chrono::milliseconds(10));
  monitor.stop();
  monitor.stop();  // idempotent
  const auto s = monitor.summary();
  CHECK(s["available"] == false);
  CHECK(s["why"] == "the CPU path: no GPU in this run");
}

TEST_CASE("GPU monitor: every job's report has its section", "[core]") {
  const auto dir = gp::test::scratch_dir("gpu-monitor-report");
  gp::CommonOptions o;
  o.config_path = gp::test::source_path("configs/tonemap-exr.json");
  o.inputs = {gp::test::source_path("data-samples/exr/sunset_half_zip.exr")};
  o.overrides = {"output.dir=" + (dir / "out").string()};
  o.device = "cpu";
  o.progress = "none";
  o.report_path = (dir / "report.json").string();
  auto command = gp::tonemap::make_command();
  REQUIRE(gp::run_batch_job(*command, o) == 0);
  std::ifstream f(o.report_path);
  const auto report = nlohmann::json::parse(f);
  REQUIRE(report.contains("gpu_monitor"));
  CHECK(report["gpu_monitor"]["available"] == false);
  CHECK(report["gpu_monitor"]["why"] == "the CPU path: no GPU in this run");
}

// --device lists for the batch subcommands: parsing and its errors, the compute worker -> device
// mapping, run_batch_job's checks, and a command run through a BatchContext with two runtimes.
// Two CPU runtimes stand in for two GPUs here (the plumbing is the same: per-device workers,
// admission and item counts); multi_device_gpu_test.cpp runs the GPU path on the GPU machine.
#include <catch2/catch.hpp>

#include <fstream>
#include <numeric>

#include <nlohmann/json.hpp>

#include "core/batch_job.hpp"
#include "core/gpu_runtime.hpp"
#include "core/inputs.hpp"
#include "core/output_tree.hpp"
#include "stitch/stitch_command.hpp"
#include "support/batch_job.hpp"
#include "support/test_data.hpp"
#include "tonemap/tonemap_command.hpp"
#include "track_faces/track_command.hpp"

namespace fs = std::filesystem;
using gp::DeviceChoice;
using gp::DeviceSelection;

namespace {

std::vector<int> indices(const std::vector<DeviceChoice>& devices) {
  std::vector<int> out;
  for (const DeviceChoice& d : devices) {
    CHECK(d.kind == DeviceChoice::Kind::cuda);
    out.push_back(d.index);
  }
  return out;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

gp::RuntimeOptions cpu_runtime() {
  gp::RuntimeOptions o;
  o.device = DeviceChoice::parse("cpu");
  return o;
}

}  // namespace

TEST_CASE("device option: single forms stay one device, lists and all are several", "[core][runtime][devices]") {
  for (const char* single : {"auto", "cpu", "cuda", "cuda:0", "cuda:7"}) {
    const DeviceSelection s = DeviceSelection::parse(single);
    INFO(single);
    CHECK_FALSE(s.all_gpus);
    REQUIRE(s.devices.size() == 1);
    CHECK(s.devices[0].str() == DeviceChoice::parse(single).str());
  }
  CHECK(DeviceSelection::parse("auto").devices[0].kind == DeviceChoice::Kind::automatic);  // auto: one GPU
  CHECK(indices(DeviceSelection::parse("cuda:0,1").devices) == std::vector<int>{0, 1});
  CHECK(indices(DeviceSelection::parse("cuda:3,1,2").devices) == std::vector<int>{3, 1, 2});
  CHECK(indices(DeviceSelection::parse("cuda:1,cuda:3").devices) == std::vector<int>{1, 3});
  CHECK(indices(DeviceSelection::parse("cuda:0,0").devices) == std::vector<int>{0, 0});  // one GPU, two runtimes
  for (const char* all : {"all", "cuda:all"}) {
    const DeviceSelection s = DeviceSelection::parse(all);
    CHECK(s.all_gpus);
    CHECK(s.devices.empty());
  }
}

TEST_CASE("device option: malformed lists are usage errors naming the option and the text", "[core][runtime][devices]") {
  for (const char* bad : {"cuda:", "cuda:0,", "cuda:,1", "cuda:0,,1", "cpu,cuda:0", "cuda:0,cpu", "cuda:0,x",
                          "0,1", "cuda:0,-1", "all,cuda:0", "cuda:all,1", "cuda:0;1", "GPU", "cuda:0,auto", "cuda:0 ,1"}) {
    INFO(bad);
    CHECK_THROWS_AS(DeviceSelection::parse(bad), gp::UsageError);
    CHECK_THROWS_WITH(DeviceSelection::parse(bad), Catch::Contains("--device") && Catch::Contains(std::string("\"") + bad + "\""));
  }
}

TEST_CASE("device option: all resolves to every GPU the driver lists, and fails without one", "[core][runtime][devices]") {
  CHECK(indices(DeviceSelection::parse("all").resolve(3)) == std::vector<int>{0, 1, 2});
  CHECK(indices(DeviceSelection::parse("cuda:all").resolve(1)) == std::vector<int>{0});
  CHECK_THROWS_AS(DeviceSelection::parse("all").resolve(0), gp::GpuError);
  CHECK_THROWS_WITH(DeviceSelection::parse("all").resolve(0), Catch::Contains("--device all"));
  // Listed GPUs are taken as written: a missing one is reported by its runtime, like cuda:N.
  CHECK(indices(DeviceSelection::parse("cuda:0,5").resolve(0)) == std::vector<int>{0, 5});
}

TEST_CASE("BatchContext deals compute workers over the devices in turn and counts their items", "[core][devices]") {
  gp::Runtime a(cpu_runtime()), b(cpu_runtime()), c(cpu_runtime());
  const gp::config::json cfg = gp::config::json::object();
  gp::CommonOptions options;
  gp::Progress progress(gp::ProgressMode::none, "test", 0);
  gp::DeviceItemCounts counts(3);
  gp::test::JobState job;
  gp::BatchContext ctx = job.context(cfg, options, {&a, &b, &c}, progress, &counts);
  CHECK(ctx.devices() == 3);
  CHECK(&ctx.runtime_for_worker(0) == &a);
  CHECK(&ctx.runtime_for_worker(1) == &b);
  CHECK(&ctx.runtime_for_worker(2) == &c);
  CHECK(&ctx.runtime_for_worker(3) == &a);
  CHECK(&ctx.runtime_for_worker(7) == &b);
  ctx.count_items(0, 4);
  ctx.count_items(3, 1);
  ctx.count_items(5, 2);
  CHECK(counts[0] == 5);
  CHECK(counts[1] == 0);
  CHECK(counts[2] == 2);

  gp::BatchContext single = job.context(cfg, options, {&a}, progress, nullptr);
  single.runtimes.clear();  // as before lists existed
  CHECK(single.devices() == 1);
  CHECK(&single.runtime_for_worker(5) == &a);
  single.count_items(5, 1);  // not counted, no crash
}

TEST_CASE("run_batch_job: a malformed or missing device list fails; a list makes one runtime each",
          "[core][devices]") {
  const fs::path out = gp::test::scratch_dir("devices-usage");
  SECTION("a malformed list fails before any work, even a dry run") {
    gp::CommonOptions o = gp::test::job_options("stitch-360.json", gp::test::source_path("data-samples/stitch/equirect.jpg"),
                                                out / "st", "cuda:0,", {});
    o.dry_run = true;
    auto command = gp::stitch::make_command();
    CHECK(gp::run_batch_job(*command, o) == 2);
  }
  SECTION("a listed GPU that does not exist is fatal, and the report lists both devices") {
    gp::CommonOptions o = gp::test::job_options("stitch-360.json", gp::test::source_path("data-samples/stitch/equirect.jpg"),
                                                out / "st", "cuda:0,99", {});
    auto command = gp::stitch::make_command();
    CHECK(gp::run_batch_job(*command, o) == 3);
    const nlohmann::json report = read_json(o.report_path);
    REQUIRE(report["device"]["devices"].size() == 2);
    CHECK(report["device"]["devices"][1]["used"] == "none");
    CHECK(report["device"]["requested"] == "cuda:0,99");
  }
  fs::remove_all(out);
}

TEST_CASE("tonemap-exr through a BatchContext of two runtimes writes what one runtime writes",
          "[core][devices][tonemap]") {
  std::vector<std::string> samples;
  for (const auto& e : fs::directory_iterator(gp::test::source_path("data-samples/exr"))) samples.push_back(e.path().string());
  std::sort(samples.begin(), samples.end());
  const fs::path inputs = gp::test::linked_inputs("devices-exr", samples, 2);
  const fs::path out = gp::test::scratch_dir("devices-tonemap");
  auto command = gp::tonemap::make_command();
  gp::Runtime a(cpu_runtime()), b(cpu_runtime());

  auto run = [&](const fs::path& dir, std::vector<gp::Runtime*> runtimes, gp::DeviceItemCounts& counts) {
    const gp::CommonOptions o = gp::test::job_options("tonemap-exr.json", inputs.string(), dir, "cpu", {"thumbnail.size=64"});
    const gp::config::json cfg = gp::load_job_config(*command, o);
    const std::vector<std::string> files = gp::expand_inputs(command->input_spec(cfg));
    gp::Progress progress(gp::ProgressMode::none, "tonemap-exr", files.size());
    gp::test::JobState job(*command, cfg, files);
    gp::BatchContext ctx = job.context(cfg, o, runtimes, progress, &counts);
    command->run(ctx);
    const gp::ItemLedger::Counts done = job.ledger.counts();
    CHECK(done.failed == 0);
    return done.succeeded;
  };
  gp::DeviceItemCounts one_counts(1), two_counts(2);
  const std::size_t n = 2 * samples.size();
  CHECK(run(out / "one", {&a}, one_counts) == n);
  CHECK(run(out / "two", {&a, &b}, two_counts) == n);
  CHECK(one_counts[0] == n);
  CHECK(two_counts[0] + two_counts[1] == n);
  // The CPU path runs two compute workers: with two runtimes, one on each.
  CHECK(two_counts[0] > 0);
  CHECK(two_counts[1] > 0);
  const auto one = gp::test::read_tree(out / "one"), two = gp::test::read_tree(out / "two");
  CHECK(one.size() >= n);
  CHECK(one == two);
  fs::remove_all(out);
  fs::remove_all(inputs);
}

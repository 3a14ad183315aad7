// merge_reports on hand-made shard reports: sums, stages, errors with their shard, and the
// coverage checks (missing, repeated shards; an input in two shards; mixed commands).
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "tools/report_merge.hpp"

using nlohmann::json;

namespace {

json shard_report(int index, int count, std::vector<std::string> inputs, int failed = 0) {
  json r{{"command", "tonemap-exr"},
         {"status", failed ? "items_failed" : "ok"},
         {"shard", std::to_string(index) + "/" + std::to_string(count)},
         {"host", "node" + std::to_string(index)},
         {"wall_s", 1.5 + index},
         {"inputs", {{"count", inputs.size()}, {"files", inputs}}},
         {"outputs", {{"count", inputs.size()}, {"files", json::array()}}},
         {"items", {{"processed", inputs.size()}, {"succeeded", int(inputs.size()) - failed}, {"failed", failed},
                    {"skipped_complete", 0}}},
         {"stages", {{"decode", {{"count", inputs.size()}, {"wall_s", 0.5}}}}},
         {"errors", json::array()}};
  for (const auto& in : inputs) r["outputs"]["files"].push_back(in + ".png");
  if (failed) r["errors"].push_back({{"item", inputs.back()}, {"stage", "decode"}, {"message", "corrupt"}});
  return r;
}

}  // namespace

TEST_CASE("merge_reports: complete shards sum up, the slowest shard is the job's time", "[report_merge]") {
  const auto m = gp::tools::merge_reports({shard_report(0, 3, {"a", "d"}), shard_report(1, 3, {"b"}), shard_report(2, 3, {"c"}, 1)},
                                   {"r0.json", "r1.json", "r2.json"});
  CHECK(m.problems.empty());
  CHECK(m.items_failed);  // shard 2 had a failed item
  CHECK(m.report["status"] == "items_failed");
  CHECK(m.report["shard_count"] == 3);
  CHECK(m.report["inputs"]["count"] == 4);
  CHECK(m.report["outputs"]["count"] == 4);
  CHECK(m.report["items"]["processed"] == 4);
  CHECK(m.report["items"]["failed"] == 1);
  CHECK(m.report["wall_s"] == Approx(3.5));
  CHECK(m.report["stages"]["decode"]["count"] == 4);
  CHECK(m.report["stages"]["decode"]["wall_s"] == Approx(1.5));
  REQUIRE(m.report["errors"].size() == 1);
  CHECK(m.report["errors"][0]["report"] == "r2.json");
  CHECK(m.report["shards"][1]["host"] == "node1");
}

TEST_CASE("merge_reports: missing and repeated shards, inputs in two shards", "[report_merge]") {
  const auto missing = gp::tools::merge_reports({shard_report(0, 3, {"a"}), shard_report(2, 3, {"c"})}, {"r0", "r2"});
  REQUIRE(missing.problems.size() == 1);
  CHECK(missing.problems[0] == "shard 1/3 missing");
  CHECK(missing.report["status"] == "incomplete");

  const auto twice = gp::tools::merge_reports({shard_report(0, 2, {"a"}), shard_report(0, 2, {"a"}), shard_report(1, 2, {"b"})},
                                       {"x", "y", "z"});
  CHECK(std::find(twice.problems.begin(), twice.problems.end(), "shard 0 twice: x and y") != twice.problems.end());
  CHECK(std::find(twice.problems.begin(), twice.problems.end(), "a: in two shards (x and y)") != twice.problems.end());
  CHECK(twice.report["inputs"]["count"] == 2);

  const auto ok = gp::tools::merge_reports({shard_report(1, 2, {"b"}), shard_report(0, 2, {"a"})}, {"r1", "r0"});
  CHECK(ok.problems.empty());
  CHECK_FALSE(ok.items_failed);
  CHECK(ok.report["status"] == "ok");
}

TEST_CASE("merge_reports refuses what cannot be merged", "[report_merge]") {
  CHECK_THROWS_AS(gp::tools::merge_reports({}, {}), gp::UsageError);
  json other = shard_report(1, 2, {"b"});
  other["command"] = "stitch-360";
  CHECK_THROWS_WITH(gp::tools::merge_reports({shard_report(0, 2, {"a"}), other}, {"r0", "r1"}),
                    Catch::Contains("r1: a stitch-360 report"));
  CHECK_THROWS_AS(gp::tools::merge_reports({json{{"x", 1}}}, {"bad.json"}), gp::UsageError);
}

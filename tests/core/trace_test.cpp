#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "core/trace.hpp"

TEST_CASE("stage totals add up the spans of every thread, also of threads that ended", "[core][trace]") {
  const auto before = gp::Trace::global().totals();
  const auto count_of = [&](const std::map<std::string, gp::StageTotals>& totals, const std::string& stage) {
    const auto found = totals.find(stage);
    return found == totals.end() ? std::uint64_t{0} : found->second.count;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 1000; ++i) gp::Trace::global().add_host_span("trace test stage", gp::Trace::now_us(), 2);
      gp::Trace::global().add_gpu_span("trace test stage", 1, gp::Trace::now_us(), 500000);
    });
  for (std::thread& t : threads) t.join();
  const auto after = gp::Trace::global().totals();
  CHECK(count_of(after, "trace test stage") - count_of(before, "trace test stage") == 8000);
  const gp::StageTotals& s = after.at("trace test stage");
  CHECK(s.wall_s == Approx(8000 * 2e-6 + (before.count("trace test stage") ? before.at("trace test stage").wall_s : 0.0)));
  CHECK(s.gpu_s == Approx(8 * 0.5 + (before.count("trace test stage") ? before.at("trace test stage").gpu_s : 0.0)));
}

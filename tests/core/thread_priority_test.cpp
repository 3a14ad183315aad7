#include <catch2/catch.hpp>

#include <algorithm>
#include <thread>

#include "core/thread_priority.hpp"

TEST_CASE("lower_thread_priority lowers only the calling thread", "[core][thread_priority]") {
  const int before = gp::thread_nice_value();
  int inside = before, after_lowering = before;
  bool lowered = false;
  std::thread worker([&] {
    inside = gp::thread_nice_value();
    lowered = gp::lower_thread_priority(3);
    after_lowering = gp::thread_nice_value();
  });
  worker.join();
  CHECK(inside == before);  // a new thread starts with its creator's nice value
  REQUIRE(lowered);
  CHECK(after_lowering == std::min(19, before + 3));
  CHECK(gp::thread_nice_value() == before);  // the calling thread only
}

TEST_CASE("thread CPU time counts the calling thread's work, process CPU time every thread's", "[core][thread_priority]") {
  const auto spin = [](double seconds) {
    const double until = gp::thread_cpu_seconds() + seconds;
    volatile double x = 0;
    while (gp::thread_cpu_seconds() < until) x = x + 1;
  };
  const double process_before = gp::process_cpu_seconds();
  const double main_before = gp::thread_cpu_seconds();
  double worker_cpu = 0;
  std::thread worker([&] {
    spin(0.05);
    worker_cpu = gp::thread_cpu_seconds();
  });
  worker.join();
  CHECK(worker_cpu >= 0.05);
  CHECK(worker_cpu < 0.5);
  CHECK(gp::thread_cpu_seconds() - main_before < 0.05);  // the main thread only waited
  CHECK(gp::process_cpu_seconds() - process_before >= 0.05);
}

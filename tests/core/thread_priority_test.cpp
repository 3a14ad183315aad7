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

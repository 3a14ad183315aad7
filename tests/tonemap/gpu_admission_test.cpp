// GpuAdmission under the out-of-memory retry pattern of compute_with_retry: many holders admitted
// at a large batch all run out of memory, shrink the limit to 1 and retry alone. This deadlocked
// when holders waited to be alone while still holding their slots (seen on the H100 with
// --gpu-memory-limit 8M and run.batch=8).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "tonemap/gpu_admission.hpp"

TEST_CASE("holders that all run out of memory retry one at a time without deadlock", "[tonemap][admission]") {
  const int holders = GENERATE(2, 3, 8);
  // Shared with detached workers, so a deadlock fails the test instead of hanging it.
  struct State {
    explicit State(int n) : admission(n) {}
    gp::tonemap::GpuAdmission admission;
    std::atomic<int> admitted{0}, running{0}, max_running_after_shrink{0}, retried{0};
  };
  auto state = std::make_shared<State>(holders);

  auto worker = [state, holders] {
    auto& s = *state;
    s.admission.acquire();
    // Everyone holds a slot before anyone fails, as when a batch's images all start at once.
    ++s.admitted;
    while (s.admitted < holders) std::this_thread::yield();
    while (s.admission.shrink()) {
    }
    s.admission.release();
    s.admission.wait_idle();
    s.admission.acquire();  // the retry: at limit 1, alone
    const int now = ++s.running;
    int seen = s.max_running_after_shrink;
    while (now > seen && !s.max_running_after_shrink.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    --s.running;
    ++s.retried;
    s.admission.release();
  };
  for (int i = 0; i < holders; ++i) std::thread(worker).detach();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (state->retried < holders && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(state->retried == holders);
  CHECK(state->max_running_after_shrink == 1);
  CHECK(state->admission.limit() == 1);
}

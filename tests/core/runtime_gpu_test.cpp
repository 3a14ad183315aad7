#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "core/gpu_runtime.hpp"

TEST_CASE("device buffers round-trip data through pinned memory", "[runtime][gpu]") {
  gp::Runtime rt(gp::RuntimeOptions{});
  REQUIRE(rt.gpu());
  auto stream = rt.make_stream();
  const std::size_t n = 1 << 20;
  auto host = rt.pinned_alloc(n * sizeof(int));
  std::iota(host.as<int>(), host.as<int>() + n, 0);
  auto dev = rt.device_alloc(n * sizeof(int), stream, "test");
  stream.copy_to_device(dev.get(), host.get(), n * sizeof(int));
  auto back = rt.pinned_alloc(n * sizeof(int));
  stream.copy_to_host(back.get(), dev.get(), n * sizeof(int));
  stream.synchronize();
  for (std::size_t i = 0; i < n; i += 4099) CHECK(back.as<int>()[i] == int(i));
  CHECK(rt.memory_stats().device_in_use == n * sizeof(int));
  dev.reset();
  CHECK(rt.memory_stats().device_in_use == 0);
  CHECK(rt.memory_stats().device_peak >= n * sizeof(int));
}

TEST_CASE("the memory limit turns big allocations into GpuOutOfMemory", "[runtime][gpu]") {
  gp::RuntimeOptions o;
  o.gpu_memory_limit = 1 << 20;
  gp::Runtime rt(o);
  auto stream = rt.make_stream();
  auto a = rt.device_alloc(600 << 10, stream, "first");
  CHECK_THROWS_AS(rt.device_alloc(600 << 10, stream, "second"), gp::GpuOutOfMemory);
  a.reset();
  CHECK_NOTHROW(rt.device_alloc(600 << 10, stream, "third"));
}

TEST_CASE("a real out-of-memory is reported as GpuOutOfMemory", "[runtime][gpu]") {
  gp::Runtime rt(gp::RuntimeOptions{});
  auto stream = rt.make_stream();
  const std::size_t huge = std::size_t(1) << 50;  // 1 PiB
  CHECK_THROWS_AS(rt.device_alloc(huge, stream, "huge"), gp::GpuOutOfMemory);
  CHECK_NOTHROW(rt.device_alloc(1024, stream, "small after failure"));
}

TEST_CASE("events time GPU work", "[runtime][gpu]") {
  gp::Runtime rt(gp::RuntimeOptions{});
  auto stream = rt.make_stream();
  auto dev = rt.device_alloc(64 << 20, stream);
  gp::Event start, stop;
  start.record(stream);
  stream.memset(dev.get(), 0, 64 << 20);
  stop.record(stream);
  stop.synchronize();
  CHECK(stop.elapsed_ms_since(start) >= 0.0f);
}

#include <catch2/catch.hpp>

#include <cstring>

#include "core/batch_job.hpp"
#include "core/gpu_runtime.hpp"
#include "core/progress.hpp"

TEST_CASE("device choices parse and reject nonsense", "[runtime]") {
  CHECK(gp::DeviceChoice::parse("auto").kind == gp::DeviceChoice::Kind::automatic);
  CHECK(gp::DeviceChoice::parse("cpu").kind == gp::DeviceChoice::Kind::cpu);
  auto c = gp::DeviceChoice::parse("cuda:3");
  CHECK(c.kind == gp::DeviceChoice::Kind::cuda);
  CHECK(c.index == 3);
  CHECK(c.str() == "cuda:3");
  CHECK_THROWS_AS(gp::DeviceChoice::parse("cuda:x"), gp::UsageError);
  CHECK_THROWS_AS(gp::DeviceChoice::parse("gpu0"), gp::UsageError);
  CHECK_THROWS_AS(gp::DeviceChoice::parse("cuda:-1"), gp::UsageError);
}

TEST_CASE("the CPU runtime hands out reusable host buffers and tracks their peak", "[runtime]") {
  gp::RuntimeOptions o;
  o.device = gp::DeviceChoice::parse("cpu");
  gp::Runtime rt(o);
  CHECK_FALSE(rt.gpu());
  CHECK(rt.device_name() == "cpu");
  void* first = nullptr;
  {
    auto a = rt.pinned_alloc(1000);
    auto b = rt.pinned_alloc(5000);
    std::memset(a.get(), 1, 1000);
    std::memset(b.get(), 2, 5000);
    first = a.get();
    CHECK(rt.memory_stats().pinned_in_use == 6000);
  }
  auto s = rt.memory_stats();
  CHECK(s.pinned_in_use == 0);
  CHECK(s.pinned_peak == 6000);
  CHECK(s.pinned_cached == 6000);
  auto again = rt.pinned_alloc(900);  // reuses the 1000-byte block
  CHECK(again.get() == first);
  gp::Stream none = rt.make_stream();
  CHECK_FALSE(static_cast<bool>(none));
  CHECK_THROWS_AS(rt.device_alloc(16, none), gp::GpuError);
}

TEST_CASE("asking for a GPU that does not exist is an error", "[runtime]") {
  gp::RuntimeOptions o;
  o.device = gp::DeviceChoice::parse("cuda:99");
  gp::Runtime rt(o);  // the driver answers in the background: what needs the GPU says it is missing
  CHECK(rt.gpu_expected());
  CHECK_THROWS_AS(rt.gpu(), gp::GpuError);
  CHECK_THROWS_WITH(rt.bind_thread(), Catch::Contains("--device cuda:99"));
  CHECK(rt.device_name() == "cpu");  // reports and teardown do not throw
}

TEST_CASE("byte sizes parse with binary units", "[runtime]") {
  CHECK(gp::parse_byte_size("4096", "--x") == 4096);
  CHECK(gp::parse_byte_size("512M", "--x") == 512ull << 20);
  CHECK(gp::parse_byte_size("2G", "--x") == 2ull << 30);
  CHECK(gp::parse_byte_size("1.5GiB", "--x") == 3ull << 29);
  CHECK(gp::parse_byte_size("64kb", "--x") == 64ull << 10);
  CHECK_THROWS_WITH(gp::parse_byte_size("lots", "--gpu-memory-limit"),
                    "--gpu-memory-limit: expected a size such as 512M or 2G, got \"lots\"");
  CHECK_THROWS_AS(gp::parse_byte_size("3X", "--x"), gp::UsageError);
}

TEST_CASE("progress modes parse", "[runtime]") {
  CHECK(gp::parse_progress_mode("json") == gp::ProgressMode::json);
  CHECK(gp::parse_progress_mode("none") == gp::ProgressMode::none);
  CHECK_THROWS_AS(gp::parse_progress_mode("fancy"), gp::UsageError);
}

// The host-memory budget and scratch files: what segment-pnm's out-of-core path keeps its
// volumes in when they do not fit the budget.
#include <catch2/catch.hpp>

#include <filesystem>
#include <numeric>
#include <vector>

#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "core/scratch_space.hpp"
#include "support/test_data.hpp"

namespace fs = std::filesystem;

TEST_CASE("host memory budget: reservations within the limit, released, peak kept", "[core][host_memory]") {
  gp::HostMemoryBudget budget(1000);
  CHECK(budget.try_reserve(600));
  CHECK_FALSE(budget.try_reserve(500));  // 1100 > 1000: nothing taken
  CHECK(budget.reserved() == 600);
  {
    REQUIRE(budget.try_reserve(400));
    gp::HostReservation r(budget, 400);  // gives the 400 back when it goes
    CHECK(budget.try_reserve(0));
    CHECK_FALSE(budget.try_reserve(1));
  }
  CHECK(budget.reserved() == 600);  // the reservation went back
  budget.release(600);
  CHECK(budget.reserved() == 0);
  CHECK(budget.peak_reserved() == 1000);
  CHECK_FALSE(budget.try_reserve(~std::uint64_t(0)));  // no overflow
  CHECK(gp::default_host_memory_limit() > 0);
  CHECK(gp::default_host_memory_limit() <= gp::host_memory_available());
  CHECK(gp::current_rss_bytes() > 0);
}

TEST_CASE("scratch files: unlinked at once, positioned reads and writes counted, folder removed", "[core][scratch]") {
  const fs::path parent = gp::test::scratch_dir("scratch-space");
  const fs::path folder = parent / "made" / "here";
  fs::remove_all(parent / "made");
  std::vector<std::uint32_t> values(5'000'000);  // 20 MB: several pieces on several threads
  std::iota(values.begin(), values.end(), 7u);
  {
    gp::ScratchSpace space(folder.string(), "run.scratch_dir");
    gp::ScratchFile file = space.create("labels", values.size() * 4 + 16);
    CHECK(fs::is_directory(folder));
    CHECK(fs::is_empty(folder));  // the file has no name: nothing is left if the process dies
    file.write(16, values.data(), values.size() * 4);
    std::vector<std::uint32_t> back(values.size());
    file.read(16, back.data(), back.size() * 4);
    CHECK(back == values);
    {
      const auto mapping = file.map_read_only();
      const auto* mapped = reinterpret_cast<const std::uint32_t*>(static_cast<const char*>(mapping.data()) + 16);
      CHECK(mapped[4'999'999] == values.back());
    }
    CHECK(space.bytes_written() == values.size() * 4);
    CHECK(space.bytes_read() == values.size() * 4);
    CHECK(space.bytes_allocated() == values.size() * 4 + 16);
    CHECK_THROWS_AS(file.read(file.size() - 2, back.data(), 4), gp::Error);
  }
  CHECK_FALSE(fs::exists(folder));  // made for the run, empty, removed
}

TEST_CASE("scratch files: a folder without room is an error naming it and the setting", "[core][scratch]") {
  const fs::path folder = gp::test::scratch_dir("scratch-full");
  gp::ScratchSpace space(folder.string(), "run.scratch_dir");
  try {
    space.create("labels", std::uint64_t(1) << 60);  // an exabyte
    FAIL("no error");
  } catch (const gp::Error& e) {
    const std::string what = e.what();
    CHECK(what.find(folder.string()) != std::string::npos);
    CHECK(what.find("run.scratch_dir") != std::string::npos);
  }
}

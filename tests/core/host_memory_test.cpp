// The host-memory budget and scratch files: what segment-pnm's out-of-core path keeps its
// volumes in when they do not fit the budget.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <vector>

#include "core/compressed_scratch.hpp"
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

TEST_CASE("scratch files grow on demand; compressed scratch keeps blocks in slots, rewritten in place or moved",
          "[core][scratch]") {
  const fs::path folder = gp::test::scratch_dir("scratch-compressed");
  gp::ScratchSpace space(folder.string(), "run.scratch_dir");
  {
    gp::ScratchFile file = space.create("grown", 0);
    file.extend(4096);
    CHECK(file.size() == 4096);
    CHECK(space.bytes_allocated() == 4096);
    const std::uint32_t value = 42;
    file.write(4092, &value, 4);
    std::uint32_t back = 0;
    file.read(4092, &back, 4);
    CHECK(back == 42);
    try {
      file.extend(std::uint64_t(1) << 60);
      FAIL("no error");
    } catch (const gp::Error& e) {
      CHECK(std::string(e.what()).find("run.scratch_dir") != std::string::npos);
    }
  }
  CHECK(space.bytes_allocated() == 0);

  gp::CompressedScratch packed(space, "labels", 3);
  std::vector<std::uint32_t> runs(200'000), noise(200'000), back(200'000, 1);
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i] = std::uint32_t(i / 5000);
  std::uint64_t x = 88172645463325252ull;
  for (auto& v : noise) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v = std::uint32_t(x);
  }
  packed.read_block(1, back.data(), back.size() * 4);  // never written: zeros
  CHECK(std::all_of(back.begin(), back.end(), [](std::uint32_t v) { return v == 0; }));
  packed.write_block(0, runs.data(), runs.size() * 4);
  packed.write_block(1, runs.data(), runs.size() * 4);
  CHECK(packed.stored_bytes() < runs.size() * 4 / 20);  // label runs compress well
  packed.write_block(0, noise.data(), noise.size() * 4);  // outgrows its slot: moved
  packed.write_block(2, runs.data(), runs.size() * 4);    // takes the slot block 0 gave up
  packed.write_block(1, runs.data(), runs.size() * 2);    // a smaller block stays in place
  packed.read_block(0, back.data(), back.size() * 4);
  CHECK(back == noise);
  packed.read_block(2, back.data(), back.size() * 4);
  CHECK(back == runs);
  std::vector<std::uint32_t> half(runs.size() / 2);
  packed.read_block(1, half.data(), half.size() * 4);
  CHECK(std::equal(half.begin(), half.end(), runs.begin()));
  CHECK_THROWS_AS(packed.read_block(1, back.data(), back.size() * 4), gp::Error);  // not its size
  CHECK(gp::free_disk_bytes((folder / "not" / "made" / "yet").string()).has_value());
}

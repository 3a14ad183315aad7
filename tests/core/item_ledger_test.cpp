// The item ledger: per-item statuses and records, failed items' outputs removed, and the
// completion records --resume trusts instead of files that merely exist.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/item_ledger.hpp"
#include "core/progress.hpp"
#include "support/test_data.hpp"

namespace fs = std::filesystem;
using gp::InputItem;
using gp::ItemResult;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

TEST_CASE("completion records: an item is complete only with its record and its outputs as recorded", "[ledger]") {
  const fs::path dir = gp::test::scratch_dir("ledger-records");
  const InputItem item{(dir / "in/a.exr").string(), 0, ""};
  write(item.path, "input");
  const std::string out = (dir / "out/a.png").string(), mip = (dir / "out/a_mip1.png").string();
  write(out, "image");
  write(mip, "level");
  const std::vector<gp::PlannedFile> planned{{out, "/output/name"}, {(dir / "out/a_mip{level}.png").string(), "/mip/name"}};

  gp::CompletionRecords records((dir / "out").string(), "tonemap-exr");
  CHECK_FALSE(records.complete(item, planned));  // files alone do not make an item complete
  records.record(item, {out, mip});
  records.commit();
  CHECK(records.complete(item, planned));
  CHECK(fs::exists(dir / "out/.gpuproc/complete"));

  SECTION("a changed output") {
    write(out, "other bytes");
    CHECK_FALSE(records.complete(item, planned));
  }
  SECTION("a missing output") {
    fs::remove(mip);
    CHECK_FALSE(records.complete(item, planned));
  }
  SECTION("a changed input") {
    write(item.path, "a longer input");
    CHECK_FALSE(records.complete(item, planned));
  }
  SECTION("a planned file the record lacks (the config changed)") {
    auto more = planned;
    more.push_back({(dir / "out/a_thumb.jpg").string(), "/thumbnail/name"});
    CHECK_FALSE(records.complete(item, more));
  }
  SECTION("another command's record") {
    gp::CompletionRecords other((dir / "out").string(), "stitch-360");
    CHECK_FALSE(other.complete(item, planned));
  }
  SECTION("forgotten when the item is done again") {
    records.forget(item);
    CHECK_FALSE(records.complete(item, planned));
  }
  SECTION("a damaged record") {
    for (const auto& e : fs::directory_iterator(dir / "out/.gpuproc/complete")) std::ofstream(e.path()) << "{\"command\":";
    CHECK_FALSE(records.complete(item, planned));
  }
  fs::remove_all(dir);
}

TEST_CASE("completion records: a video's frame files match a pattern with {frame} and {time}", "[ledger]") {
  const fs::path dir = gp::test::scratch_dir("ledger-frames");
  const InputItem item{(dir / "in/clip.mp4").string(), 0, ""};
  write(item.path, "video");
  const std::string f12 = (dir / "out/front/clip_000012_0.400s.jpg").string(),
                    f24 = (dir / "out/front/clip_000024_0.800s.jpg").string();
  write(f12, "frame 12");
  write(f24, "frame 24");
  const std::vector<gp::PlannedFile> planned{{(dir / "out/front/clip_{frame}_{time}s.jpg").string(), "/output/video_name"}};
  gp::CompletionRecords records((dir / "out").string(), "stitch-360");
  CHECK_FALSE(records.recorded_outputs(item, planned).has_value());
  records.record(item, {f12, f24});
  records.commit();
  const auto outputs = records.recorded_outputs(item, planned);
  REQUIRE(outputs.has_value());
  CHECK(*outputs == std::vector<std::string>{f12, f24});
  CHECK(records.complete(item, planned));
  // Each placeholder stands for at least one character, and the text between them must be there.
  CHECK_FALSE(records.complete(item, {{(dir / "out/back/clip_{frame}_{time}s.jpg").string(), "/output/video_name"}}));
  CHECK_FALSE(records.complete(item, {{(dir / "out/front/clip_{frame}-{time}s.jpg").string(), "/output/video_name"}}));
  CHECK_FALSE(records.complete(item, {{(dir / "out/front/clip_000012_0.400s.jpg{frame}").string(), "/output/video_name"}}));
  CHECK(records.complete(item, {{(dir / "out/front/clip_{frame}.jpg").string(), "/output/video_name"}}));
  fs::remove_all(dir);
}

TEST_CASE("the ledger keeps a finished item's outputs and removes a failed one's", "[ledger]") {
  const fs::path dir = gp::test::scratch_dir("ledger-finish");
  std::vector<InputItem> items;
  for (const char* name : {"a", "b", "c", "d"}) {
    items.push_back({(dir / "in" / (std::string(name) + ".exr")).string(), items.size(), ""});
    write(items.back().path, name);
  }
  gp::CompletionRecords records((dir / "out").string(), "tonemap-exr");
  gp::ItemLedger ledger(items, &records);
  gp::Progress progress(gp::ProgressMode::none, "test", items.size());
  const std::string a_out = (dir / "out/a.png").string(), b_out = (dir / "out/b.png").string();
  write(a_out, "a");
  write(b_out, "b, half written");

  ledger.finish(0, ItemResult{true, false, {a_out}, {{"decode", 0.5}}, "", ""}, progress);
  ledger.finish(1, ItemResult{false, false, {b_out}, {}, "encode", "b.exr: encode: disk full"}, progress);
  ledger.finish(2, ItemResult{false, true, {}, {}, "compute", "c.exr: cancelled"}, progress);
  ledger.mark_skipped(3);

  CHECK(fs::exists(a_out));
  CHECK_FALSE(fs::exists(b_out));  // no output of a failed item stays under its final name
  CHECK(records.complete(items[0], {{a_out, "/output/name"}}));
  CHECK_FALSE(records.complete(items[1], {{b_out, "/output/name"}}));
  const auto counts = ledger.counts();
  CHECK(counts.succeeded == 1);
  CHECK(counts.failed == 1);
  CHECK(counts.cancelled == 1);
  CHECK(counts.skipped_complete == 1);
  CHECK(counts.processed == 3);
  CHECK(ledger.outputs() == std::vector<std::string>{a_out});
  CHECK(ledger.failure_messages() == std::vector<std::string>{"b.exr: encode: disk full"});

  const auto records_json = ledger.records_json();
  REQUIRE(records_json.size() == 4);
  CHECK(records_json[0]["status"] == "ok");
  CHECK(records_json[0]["stages_s"]["decode"] == 0.5);
  CHECK(records_json[1]["status"] == "failed");
  CHECK(records_json[1]["error"]["stage"] == "encode");
  CHECK(records_json[1]["outputs"].empty());
  CHECK(records_json[2]["status"] == "cancelled");
  CHECK(records_json[3]["status"] == "skipped_complete");
  fs::remove_all(dir);
}

TEST_CASE("abandoning a run marks what had not finished as cancelled", "[ledger]") {
  std::vector<InputItem> items{{"a.exr", 0, ""}, {"b.exr", 1, ""}};
  gp::ItemLedger ledger(items, nullptr);
  gp::Progress progress(gp::ProgressMode::none, "test", 2);
  ledger.finish(0, ItemResult{}, progress);
  ledger.abandon_unfinished("not finished when the run stopped (SIGTERM)");
  CHECK(ledger.counts().succeeded == 1);
  CHECK(ledger.counts().cancelled == 1);
  CHECK(ledger.records_json()[1]["error"]["message"] == "b.exr: not finished when the run stopped (SIGTERM)");
}

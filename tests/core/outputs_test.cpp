// gp output naming (templates, path safety) and atomic writes.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <thread>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "support/test_data.hpp"
#include "support/text_files.hpp"

namespace {

namespace fs = std::filesystem;
using gp::UsageError;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

const std::map<std::string, std::string> vars = {
    {"stem", "shot_010"}, {"name", "shot_010.exr"}, {"ext", "png"}, {"index", "7"}, {"level", "3"}};

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("name templates expand variables, widths and escaped braces", "[outputs]") {
  CHECK(gp::expand_template("{stem}.{ext}", vars) == "shot_010.png");
  CHECK(gp::expand_template("{name}", vars) == "shot_010.exr");
  CHECK(gp::expand_template("{stem}_mip{level}.{ext}", vars) == "shot_010_mip3.png");
  CHECK(gp::expand_template("{index:05}_{stem}", vars) == "00007_shot_010");
  CHECK(gp::expand_template("{index:3}", vars) == "  7");
  CHECK(gp::expand_template("{stem:2}", vars) == "shot_010");  // never truncated
  CHECK(gp::expand_template("{{literal}}_{index}", vars) == "{literal}_7");
  CHECK(gp::expand_template("plain", vars) == "plain");
  CHECK(gp::expand_template("{custom}", {{"custom", "x"}}) == "x");
}

TEST_CASE("unknown template variables list the known ones", "[outputs]") {
  CHECK_THROWS_AS(gp::expand_template("{stme}.png", vars), UsageError);
  CHECK_THROWS_WITH(gp::expand_template("{stme}.png", vars),
                    "name template \"{stme}.png\": unknown {stme}; known: {ext}, {index}, {level}, {name}, {stem}");
  CHECK_THROWS_WITH(gp::expand_template("{stem", vars), Contains("unclosed {"));
  CHECK_THROWS_WITH(gp::expand_template("{index:x}", vars), Contains("bad width in {index:x}"));
  CHECK_THROWS_WITH(gp::expand_template("{index:}", vars), Contains("bad width"));
  CHECK_THROWS_WITH(gp::expand_template("{}", vars), Contains("unknown {}"));
}

TEST_CASE("relative output names are checked and normalised", "[outputs]") {
  CHECK(gp::checked_relative_name("a.png", "/output/name") == "a.png");
  CHECK(gp::checked_relative_name("./a//b.png", "/output/name") == "a/b.png");
  CHECK(gp::checked_relative_name("a/./b/c.png", "/output/name") == "a/b/c.png");

  CHECK_THROWS_WITH(gp::checked_relative_name("../x", "/output/name"),
                    "/output/name: output names must not contain \"..\", got \"../x\"");
  CHECK_THROWS_WITH(gp::checked_relative_name("/abs", "/output/name"),
                    "/output/name: output names must be relative to the output folder, got \"/abs\"");
  CHECK_THROWS_WITH(gp::checked_relative_name("a/../../b", "/mip/name"),
                    "/mip/name: output names must not contain \"..\", got \"a/../../b\"");
  CHECK_THROWS_AS(gp::checked_relative_name("a/../b", "f"), UsageError);  // harmless, but never needed
  CHECK_THROWS_WITH(gp::checked_relative_name("", "/output/name"), "/output/name: output name is empty");
  CHECK_THROWS_WITH(gp::checked_relative_name(std::string("a\0b", 3), "f"), "f: output name contains a NUL byte");
  for (const char* folder : {".", "./", "a/", "a/."}) {
    INFO(folder);
    CHECK_THROWS_WITH(gp::checked_relative_name(folder, "f"), Contains("names a folder, not a file"));
  }
}

TEST_CASE("output paths stay inside the output folder", "[outputs]") {
  CHECK(gp::output_path("out", "a.png", "f") == "out/a.png");
  CHECK(gp::output_path("out/", "./sub//a.png", "f") == "out/sub/a.png");
  CHECK(gp::output_path("./out", "a.png", "f") == "out/a.png");
  CHECK(gp::output_path(".", "a.png", "f") == "a.png");
  CHECK(gp::output_path("", "a.png", "f") == "a.png");
  CHECK(gp::output_path("/data/out", "a.png", "f") == "/data/out/a.png");
  CHECK(gp::output_path("../out", "a.png", "f") == "../out/a.png");
  CHECK_THROWS_AS(gp::output_path("out", "../x", "f"), UsageError);
  CHECK_THROWS_AS(gp::output_path("out", "/abs", "f"), UsageError);
  CHECK_THROWS_AS(gp::output_path("out", "a/../../b", "f"), UsageError);
}

TEST_CASE("output paths may not escape through a symbolic link", "[outputs]") {
  const fs::path root = gp::test::scratch_dir("outputs-link");
  fs::create_directories(root / "out");
  fs::create_directories(root / "elsewhere");
  fs::create_directory_symlink(root / "elsewhere", root / "out" / "link");
  fs::create_directory_symlink(root / "out" / "inner_target", root / "out" / "inner");
  CHECK_THROWS_WITH(gp::output_path((root / "out").string(), "link/a.png", "/output/name"),
                    Contains("leaves the output folder") && Contains("through a symbolic link"));
  CHECK(gp::output_path((root / "out").string(), "inner/a.png", "f") == (root / "out/inner/a.png").string());
  // The output folder itself may be a link.
  fs::create_directory_symlink(root / "out", root / "out_link");
  CHECK(gp::output_path((root / "out_link").string(), "a.png", "f") == (root / "out_link/a.png").string());
}

TEST_CASE("temporary names are hidden, beside the target, with the same extension, unique", "[outputs]") {
  const std::string first = gp::temporary_path_for("out/sub/a.png");
  const std::string second = gp::temporary_path_for("out/sub/a.png");
  CHECK(first != second);
  const fs::path p(first);
  CHECK(p.parent_path() == "out/sub");
  CHECK(p.extension() == ".png");
  // ".a.png.part-<host hash>-<pid>-<n>.png"
  CHECK_THAT(p.filename().string(), StartsWith(".a.png.part-"));
  CHECK_THAT(p.filename().string(), Catch::Contains("-" + std::to_string(::getpid()) + "-"));
  CHECK(fs::path(gp::temporary_path_for("a.exr")).parent_path().empty());
  // A legal 255-byte name still gets a temporary a file system takes.
  const std::string longest = std::string(251, 'n') + ".png";
  const fs::path long_temp(gp::temporary_path_for("out/" + longest));
  CHECK(long_temp.filename().string().size() <= 255);
  CHECK(long_temp.extension() == ".png");
  CHECK(long_temp.parent_path() == "out");

  // Unique across threads too.
  std::vector<std::string> names(400);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) names[std::size_t(t * 100 + i)] = gp::temporary_path_for("x.png");
    });
  for (auto& t : threads) t.join();
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
}

TEST_CASE("write_atomically creates folders and publishes the finished file only", "[outputs]") {
  const fs::path dir = gp::test::scratch_dir("outputs-atomic");
  const fs::path target = dir / "deep/er/result.txt";
  std::string written_to;
  gp::write_atomically(target.string(), [&](const std::string& temp) {
    written_to = temp;
    CHECK_FALSE(fs::exists(target));  // not visible under its final name while being written
    std::ofstream(temp) << "new";
  });
  CHECK(gp::test::read_text(target) == "new");
  CHECK(fs::path(written_to).parent_path() == target.parent_path());
  CHECK(names_in(target.parent_path()) == std::set<std::string>{"result.txt"});

  gp::write_atomically(target.string(), [](const std::string& temp) { std::ofstream(temp) << "replaced"; });
  CHECK(gp::test::read_text(target) == "replaced");
}

TEST_CASE("write_atomically leaves no temporary and keeps the old file on failure", "[outputs]") {
  const fs::path dir = gp::test::scratch_dir("outputs-failure");
  const fs::path target = dir / "result.txt";
  std::ofstream(target) << "old";
  CHECK_THROWS_WITH(gp::write_atomically(target.string(),
                                         [](const std::string& temp) {
                                           std::ofstream(temp) << "half";
                                           throw std::runtime_error("encoder failed");
                                         }),
                    "encoder failed");
  CHECK(gp::test::read_text(target) == "old");
  CHECK(names_in(dir) == std::set<std::string>{"result.txt"});

  // A writer that writes nothing is an error too.
  CHECK_THROWS_AS(gp::write_atomically((dir / "none.txt").string(), [](const std::string&) {}), gp::Error);
  CHECK(names_in(dir) == std::set<std::string>{"result.txt"});
}

TEST_CASE("AtomicWriteGroup publishes each file at once and syncs each folder once at commit", "[outputs]") {
  const fs::path dir = gp::test::scratch_dir("outputs-group");
  gp::AtomicWriteGroup group;
  for (const char* name : {"a/1.txt", "a/2.txt", "b/3.txt"}) {
    group.write((dir / name).string(), [&](const std::string& temp) { std::ofstream(temp) << name; });
    CHECK(gp::test::read_text(dir / name) == name);  // renamed into place before the commit
  }
  CHECK(group.pending_folders() == 2);
  group.commit();
  CHECK(group.pending_folders() == 0);
  CHECK(names_in(dir / "a") == std::set<std::string>{"1.txt", "2.txt"});

  // A failed write leaves no temporary, and the group goes on.
  CHECK_THROWS_WITH(group.write((dir / "a/4.txt").string(),
                                [](const std::string& temp) {
                                  std::ofstream(temp) << "half";
                                  throw std::runtime_error("encoder failed");
                                }),
                    "encoder failed");
  CHECK(names_in(dir / "a") == std::set<std::string>{"1.txt", "2.txt"});
  group.write((dir / "a/5.txt").string(), [](const std::string& temp) { std::ofstream(temp) << "5"; });
  CHECK(group.pending_folders() == 1);
}

TEST_CASE("write_atomically: a writer's error about the temporary names the output", "[outputs]") {
  const fs::path dir = gp::test::scratch_dir("outputs-error-name");
  const std::string target = (dir / "view.png").string();
  try {
    gp::write_atomically(target, [](const std::string& temp) {
      std::ofstream(temp) << "half";
      throw gp::ItemError(temp, "encode", "writing failed: File too large");
    });
    FAIL("no exception");
  } catch (const gp::ItemError& e) {
    CHECK(e.file() == target);
    CHECK(e.stage() == "encode");
    CHECK(std::string(e.what()) == target + ": encode: writing failed: File too large");
  }
  CHECK(names_in(dir).empty());
}

TEST_CASE("without fsync, writes stay atomic: published whole, no temporaries, old file kept on failure", "[outputs]") {
  struct RestoreFsync {
    ~RestoreFsync() { gp::set_outputs_fsync(true); }
  } restore;
  REQUIRE(gp::outputs_fsync());  // the default
  gp::set_outputs_fsync(false);
  REQUIRE_FALSE(gp::outputs_fsync());
  const fs::path dir = gp::test::scratch_dir("outputs-nofsync");
  const fs::path target = dir / "sub/result.txt";
  gp::write_atomically(target.string(), [&](const std::string& temp) {
    CHECK_FALSE(fs::exists(target));
    std::ofstream(temp) << "new";
  });
  CHECK(gp::test::read_text(target) == "new");
  CHECK_THROWS_WITH(gp::write_atomically(target.string(),
                                         [](const std::string& temp) {
                                           std::ofstream(temp) << "half";
                                           throw std::runtime_error("encoder failed");
                                         }),
                    "encoder failed");
  CHECK(gp::test::read_text(target) == "new");
  gp::AtomicWriteGroup group;
  group.write((dir / "sub/2.txt").string(), [](const std::string& temp) { std::ofstream(temp) << "2"; });
  group.commit();
  CHECK(names_in(dir / "sub") == std::set<std::string>{"2.txt", "result.txt"});
}

TEST_CASE("remove_stale_temporaries removes the temporaries no live process owns", "[outputs]") {
  const fs::path dir = gp::test::scratch_dir("outputs-stale");
  fs::create_directories(dir / "sub");
  // This process's own: alive, kept whatever their age.
  const std::string own = gp::temporary_path_for((dir / "a.png").string());
  const std::string own_nested = gp::temporary_path_for((dir / "sub/b.tif").string());
  // This host's, of a process that has ended: removed at once.
  const pid_t ended = ::fork();
  if (ended == 0) ::_exit(0);
  ::waitpid(ended, nullptr, 0);
  const std::string host = fs::path(own).filename().string().substr(std::string(".a.png.part-").size(), 8);
  const fs::path dead = dir / (".c.png.part-" + host + "-" + std::to_string(ended) + "-0.png");
  // Another host's (or an earlier version's name): only when unmodified for an hour.
  const fs::path foreign_old = dir / ".d.png.part-00000000-1-0.png", foreign_fresh = dir / "sub/.e.png.part-00000000-1-1.png";
  const fs::path earlier_old = dir / ".f.png.part-12-3.png";
  for (const fs::path& p : {fs::path(own), fs::path(own_nested), dead, foreign_old, foreign_fresh, earlier_old})
    std::ofstream(p) << "partial";
  for (const char* keep : {"a.png", ".hidden", "x.part-1-2.png", ".notes.part-of-it"}) std::ofstream(dir / keep) << "keep";
  const auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  for (const fs::path& p : {fs::path(own), foreign_old, earlier_old}) fs::last_write_time(p, two_hours_ago);

  CHECK(gp::remove_stale_temporaries(dir.string()) == 3);  // default: others' unmodified for an hour
  CHECK_FALSE(fs::exists(dead));
  CHECK_FALSE(fs::exists(foreign_old));
  CHECK_FALSE(fs::exists(earlier_old));
  CHECK(fs::exists(own));
  CHECK(fs::exists(own_nested));
  CHECK(fs::exists(foreign_fresh));  // a task on another node may still be writing it
  CHECK(gp::remove_stale_temporaries(dir.string(), std::chrono::seconds(0)) == 1);
  CHECK(fs::exists(own));
  CHECK(gp::remove_own_temporaries() >= 2);  // what a stopping run does
  CHECK_FALSE(fs::exists(own));
  CHECK_FALSE(fs::exists(own_nested));
  CHECK(names_in(dir) == std::set<std::string>{"a.png", ".hidden", "x.part-1-2.png", ".notes.part-of-it", "sub"});
  CHECK(gp::remove_stale_temporaries((dir / "missing").string()) == 0);
}

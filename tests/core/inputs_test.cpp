// gp::expand_inputs (files, folders, globs, @lists) and sharding (--shard, Slurm, Kubernetes).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/file_checks.hpp"
#include "core/inputs.hpp"
#include "support/test_data.hpp"
#include "support/within.hpp"

namespace {

namespace fs = std::filesystem;
using gp::InputSpec;
using gp::Shard;
using gp::UsageError;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using gp::test::usage_error_within;
using Strings = std::vector<std::string>;

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "x";
}

// A folder of inputs: a.exr b.EXR c.png sub/d.exr .hidden.exr .git/e.exr
fs::path make_tree() {
  const fs::path dir = gp::test::scratch_dir("inputs");
  for (const char* name : {"a.exr", "b.EXR", "c.png", "sub/d.exr", ".hidden.exr", ".git/e.exr"}) touch(dir / name);
  return dir;
}

std::string s(const fs::path& p) { return p.string(); }

// Sets environment variables for one scope, and clears every sharding variable before and after.
class ShardEnvironment {
 public:
  explicit ShardEnvironment(std::initializer_list<std::pair<const char*, const char*>> vars) {
    clear();
    for (const auto& [name, value] : vars) ::setenv(name, value, 1);
  }
  ~ShardEnvironment() { clear(); }

 private:
  static void clear() {
    for (const char* name : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT",
                             "SLURM_ARRAY_TASK_STEP", "JOB_COMPLETION_INDEX", "GPUPROC_SHARD_COUNT"})
      ::unsetenv(name);
  }
};

}  // namespace

TEST_CASE("plain files are taken as named; missing ones name themselves", "[inputs]") {
  const fs::path dir = make_tree();
  CHECK(gp::expand_inputs({{s(dir / "c.png"), s(dir / "a.exr")}, {".exr"}, false}) ==
        Strings{s(dir / "a.exr"), s(dir / "c.png")});  // sorted; explicit files ignore the extension filter
  const std::string missing = s(dir / "nope.exr");
  CHECK_THROWS_AS(gp::expand_inputs({{missing}, {}, false}), UsageError);
  CHECK_THROWS_WITH(gp::expand_inputs({{missing}, {}, false}), missing + ": no such file or folder");
  CHECK_THROWS_WITH(gp::expand_inputs({{""}, {}, false}), Contains("empty input name"));
}

TEST_CASE("duplicates are removed and paths normalised", "[inputs]") {
  const fs::path dir = make_tree();
  const Strings got = gp::expand_inputs({{s(dir / "a.exr"), s(dir) + "/./a.exr", s(dir) + "//a.exr", s(dir / "*.exr")}, {}, false});
  CHECK(got == Strings{s(dir / "a.exr")});
}

TEST_CASE("folders give their files with accepted extensions, case-insensitively", "[inputs]") {
  const fs::path dir = make_tree();
  CHECK(gp::expand_inputs({{s(dir)}, {".exr"}, false}) == Strings{s(dir / "a.exr"), s(dir / "b.EXR")});
  CHECK(gp::expand_inputs({{s(dir)}, {"EXR"}, false}) == Strings{s(dir / "a.exr"), s(dir / "b.EXR")});
  CHECK(gp::expand_inputs({{s(dir)}, {".exr", ".png"}, false}) ==
        Strings{s(dir / "a.exr"), s(dir / "b.EXR"), s(dir / "c.png")});
  CHECK(gp::expand_inputs({{s(dir)}, {}, false}) == Strings{s(dir / "a.exr"), s(dir / "b.EXR"), s(dir / "c.png")});
}

TEST_CASE("recursive folders descend, skipping hidden files and folders", "[inputs]") {
  const fs::path dir = make_tree();
  CHECK(gp::expand_inputs({{s(dir)}, {".exr"}, true}) ==
        Strings{s(dir / "a.exr"), s(dir / "b.EXR"), s(dir / "sub/d.exr")});
}

TEST_CASE("folders can be items themselves (a DICOM series, a TIFF stack)", "[inputs]") {
  const fs::path dir = make_tree();
  InputSpec spec{{s(dir / "sub"), s(dir / "a.exr"), s(dir / "s*")}, {".exr"}, false, true};
  CHECK(gp::expand_inputs(spec) == Strings{s(dir / "a.exr"), s(dir / "sub")});
}

TEST_CASE("a folder of sequence files (and no accepted file) is one item among files", "[inputs]") {
  // cams/front.mp4, cams/side/0001.png 0002.png, cams/mixed/a.mp4 b.png, cams/deep/x/0001.png
  const fs::path dir = gp::test::scratch_dir("inputs-sequences");
  for (const char* name : {"front.mp4", "side/0001.png", "side/0002.PNG", "mixed/a.mp4", "mixed/b.png",
                           "deep/x/0001.png", ".hidden/0001.png"})
    touch(dir / name);
  InputSpec spec{{s(dir)}, {".mp4"}, false};
  spec.sequence_extensions = {".png"};
  // Not recursive: the folder's own files and its sequence folders.
  CHECK(gp::expand_inputs(spec) == Strings{s(dir / "front.mp4"), s(dir / "side")});
  // Recursive: a folder with a video in it is searched, a sequence folder is not entered.
  spec.recursive = true;
  CHECK(gp::expand_inputs(spec) ==
        Strings{s(dir / "deep/x"), s(dir / "front.mp4"), s(dir / "mixed/a.mp4"), s(dir / "side")});
  // Named directly, globbed, or without sequence extensions (then it is searched as before).
  spec = InputSpec{{s(dir / "side"), s(dir / "d*/x")}, {".mp4"}, false};
  spec.sequence_extensions = {"png"};
  CHECK(gp::expand_inputs(spec) == Strings{s(dir / "deep/x"), s(dir / "side")});
  spec.sequence_extensions.clear();
  CHECK_THROWS_WITH(gp::expand_inputs(spec), Contains(s(dir / "side") + ": no file of the kinds"));
}

TEST_CASE("globs expand with glob(3)", "[inputs]") {
  const fs::path dir = make_tree();
  CHECK(gp::expand_inputs({{s(dir / "*.exr")}, {}, false}) == Strings{s(dir / "a.exr")});
  CHECK(gp::expand_inputs({{s(dir / "[ab].*")}, {}, false}) == Strings{s(dir / "a.exr"), s(dir / "b.EXR")});
  CHECK(gp::expand_inputs({{s(dir / "?.png")}, {}, false}) == Strings{s(dir / "c.png")});
  CHECK(gp::expand_inputs({{s(dir / "s*")}, {".exr"}, false}) == Strings{s(dir / "sub/d.exr")});  // a matched folder
  const std::string nothing = s(dir / "*.tif");
  CHECK_THROWS_AS(gp::expand_inputs({{nothing}, {}, false}), UsageError);
  CHECK_THROWS_WITH(gp::expand_inputs({{nothing}, {}, false}), nothing + ": no file matches this pattern");
}

TEST_CASE("@list files hold one entry per line, relative to the list", "[inputs]") {
  const fs::path dir = make_tree();
  std::ofstream(dir / "sub/more.txt") << "d.exr\n";
  std::ofstream(dir / "list.txt") << "# inputs\n\n  a.exr  \nc.png\r\n" << s(dir / "b.EXR") << "\n@sub/more.txt\n";
  CHECK(gp::expand_inputs({{"@" + s(dir / "list.txt")}, {}, false}) ==
        Strings{s(dir / "a.exr"), s(dir / "b.EXR"), s(dir / "c.png"), s(dir / "sub/d.exr")});

  std::ofstream(dir / "bad.txt") << "a.exr\nmissing.exr\n";
  CHECK_THROWS_WITH(gp::expand_inputs({{"@" + s(dir / "bad.txt")}, {}, false}), s(dir / "missing.exr") + ": no such file or folder");
  CHECK_THROWS_WITH(gp::expand_inputs({{"@" + s(dir / "none.txt")}, {}, false}),
                    "list file: " + s(dir / "none.txt") + " does not exist");
  std::ofstream(dir / "self.txt") << "@self.txt\n";
  CHECK_THROWS_WITH(gp::expand_inputs({{"@" + s(dir / "self.txt")}, {}, false}), Contains("nest too deeply"));
}

TEST_CASE("the --shard option: i/N is parsed strictly", "[inputs]") {
  ShardEnvironment env({});
  const Shard s = gp::resolve_shard(std::string("2/8"), std::nullopt);
  CHECK(s.index == 2);
  CHECK(s.count == 8);
  CHECK(s.active());
  CHECK(s.str() == "2/8");
  CHECK_FALSE(gp::resolve_shard(std::string("0/1"), std::nullopt).active());

  CHECK_THROWS_WITH(gp::resolve_shard(std::string("8/8"), std::nullopt),
                    "--shard 8/8: shard index 8 must be less than the count 8 (0-based)");
  CHECK_THROWS_WITH(gp::resolve_shard(std::string("0/0"), std::nullopt), "--shard 0/0: the shard count must be at least 1");
  CHECK_THROWS_WITH(gp::resolve_shard(std::string("3"), std::nullopt),
                    "--shard 3: expected i/N (0-based index / count), such as 0/8");
  CHECK_THROWS_WITH(gp::resolve_shard(std::string("a/4"), std::nullopt),
                    "--shard a/4: index: expected a non-negative integer, got \"a\"");
  CHECK_THROWS_WITH(gp::resolve_shard(std::string("1/4.5"), std::nullopt),
                    "--shard 1/4.5: count: expected a non-negative integer, got \"4.5\"");
  for (const char* bad : {"-1/4", "1/-4", "/4", "1/", " 1/4", "1/4/2", "+1/4"}) {
    INFO(bad);
    CHECK_THROWS_AS(gp::resolve_shard(std::string(bad), std::nullopt), UsageError);
  }
}

TEST_CASE("the --shard option: wins over the environment; no sharding without one", "[inputs]") {
  ShardEnvironment env({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "4"}});
  CHECK(gp::resolve_shard(std::string("1/2"), std::nullopt).str() == "1/2");
  ShardEnvironment none({});
  CHECK(gp::resolve_shard(std::nullopt, std::nullopt).str() == "0/1");
  CHECK(gp::resolve_shard(std::nullopt, 1).str() == "0/1");
  CHECK_THROWS_WITH(gp::resolve_shard(std::nullopt, 4), Contains("--shard-count 4 needs JOB_COMPLETION_INDEX"));
}

TEST_CASE("Slurm array variables give the shard", "[inputs]") {
  {
    ShardEnvironment env({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "8"}});
    CHECK(gp::resolve_shard(std::nullopt, std::nullopt).str() == "3/8");
  }
  {  // --array=1-8: task ids count from the minimum
    ShardEnvironment env({{"SLURM_ARRAY_TASK_ID", "8"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "8"}});
    CHECK(gp::resolve_shard(std::nullopt, std::nullopt).str() == "7/8");
  }
  {  // --array=10-16:2 -> ids 10 12 14 16
    ShardEnvironment env({{"SLURM_ARRAY_TASK_ID", "14"}, {"SLURM_ARRAY_TASK_MIN", "10"},
                          {"SLURM_ARRAY_TASK_STEP", "2"}, {"SLURM_ARRAY_TASK_COUNT", "4"}});
    CHECK(gp::resolve_shard(std::nullopt, std::nullopt).str() == "2/4");
  }
  {
    ShardEnvironment env({{"SLURM_ARRAY_TASK_ID", "3"}});
    CHECK_THROWS_WITH(gp::resolve_shard(std::nullopt, std::nullopt),
                      "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not");
  }
  {  // --array=1,3,7: not a grid the shard index can come from
    ShardEnvironment env({{"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "3"}});
    CHECK_THROWS_WITH(gp::resolve_shard(std::nullopt, std::nullopt), Contains("shard index 6 must be less than the count 3"));
  }
  {
    ShardEnvironment env({{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "3"}});
    CHECK_THROWS_WITH(gp::resolve_shard(std::nullopt, std::nullopt),
                      "SLURM_ARRAY_TASK_ID: expected a non-negative integer, got \"x\"");
  }
}

TEST_CASE("Kubernetes JOB_COMPLETION_INDEX pairs with the shard count", "[inputs]") {
  {
    ShardEnvironment env({{"JOB_COMPLETION_INDEX", "5"}});
    CHECK(gp::resolve_shard(std::nullopt, 6).str() == "5/6");
    CHECK_THROWS_WITH(gp::resolve_shard(std::nullopt, std::nullopt), Contains("--shard-count N"));
    CHECK_THROWS_WITH(gp::resolve_shard(std::nullopt, 5),
                      "JOB_COMPLETION_INDEX 5: shard index 5 must be less than the count 5 (0-based)");
  }
  {
    ShardEnvironment env({{"JOB_COMPLETION_INDEX", "1"}, {"GPUPROC_SHARD_COUNT", "3"}});
    CHECK(gp::resolve_shard(std::nullopt, std::nullopt).str() == "1/3");
  }
}

TEST_CASE("select_shard deals items round-robin, covering each exactly once", "[inputs]") {
  const Strings items = {"0", "1", "2", "3", "4", "5", "6"};
  CHECK(gp::select_shard(items, Shard{0, 3}) == Strings{"0", "3", "6"});
  CHECK(gp::select_shard(items, Shard{1, 3}) == Strings{"1", "4"});
  CHECK(gp::select_shard(items, Shard{2, 3}) == Strings{"2", "5"});
  CHECK(gp::select_shard(items, Shard{}) == items);
  CHECK(gp::select_shard(items, Shard{7, 8}).empty());
}

TEST_CASE("inputs must be regular files: FIFOs and devices are refused at once", "[inputs]") {
  const fs::path dir = make_tree();
  const std::string fifo = s(dir / "fifo.exr");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string fifo_message = "input: " + fifo + " is a FIFO (named pipe), not a regular file";
  CHECK_THAT(usage_error_within([&] { gp::expand_inputs({{fifo}, {".exr"}, false}); }), Equals(fifo_message));
  CHECK_THAT(usage_error_within([&] { gp::expand_inputs({{s(dir / "fifo.*")}, {".exr"}, false}); }), Equals(fifo_message));
  std::ofstream(dir / "list.txt") << "a.exr\nfifo.exr\n";
  CHECK_THAT(usage_error_within([&] { gp::expand_inputs({{"@" + s(dir / "list.txt")}, {".exr"}, false}); }),
             Equals(fifo_message));
  CHECK_THAT(usage_error_within([] { gp::expand_inputs({{"/dev/zero"}, {".exr"}, false}); }),
             Equals("input: /dev/zero is a character device, not a regular file"));
  // A folder's FIFO is skipped, as any other entry that is not a regular file.
  CHECK(gp::expand_inputs({{s(dir)}, {".exr"}, false}) == Strings{s(dir / "a.exr"), s(dir / "b.EXR")});
  // A link to a regular file is fine.
  fs::create_symlink(dir / "a.exr", dir / "link.exr");
  CHECK(gp::expand_inputs({{s(dir / "link.exr")}, {}, false}) == Strings{s(dir / "link.exr")});
}

TEST_CASE("@list files must be regular text files of bounded size", "[inputs]") {
  const fs::path dir = make_tree();
  CHECK_THAT(usage_error_within([] { gp::expand_inputs({{"@/dev/zero"}, {}, false}); }),
             Equals("list file: /dev/zero is a character device, not a regular file"));
  const std::string fifo = s(dir / "list.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(usage_error_within([&] { gp::expand_inputs({{"@" + fifo}, {}, false}); }),
             Equals("list file: " + fifo + " is a FIFO (named pipe), not a regular file"));
  const std::string big = s(dir / "big.txt");
  std::ofstream(big) << "a.exr\n";
  fs::resize_file(big, gp::max_list_bytes + 1);  // sparse
  CHECK_THAT(usage_error_within([&] { gp::expand_inputs({{"@" + big}, {}, false}); }),
             Equals("list file: " + big + " is larger than the limit of 64 MiB"));
  std::ofstream(dir / "nul.txt", std::ios::binary) << "a.exr\n" << std::string(3, '\0') << "\n";
  CHECK_THROWS_WITH(gp::expand_inputs({{"@" + s(dir / "nul.txt")}, {}, false}), Contains("holds NUL bytes"));
  std::ofstream(dir / "long.txt") << "a.exr\n" << std::string(5000, 'x') << "\n";
  CHECK_THROWS_WITH(gp::expand_inputs({{"@" + s(dir / "long.txt")}, {}, false}),
                    "inputs: \"" + s(dir / std::string(100, 'x')).substr(0, 57) + "...\" is longer than 4096 bytes: not a file name");
  std::ofstream(dir / "no-newline.txt") << "a.exr";  // the last line needs no newline
  CHECK(gp::expand_inputs({{"@" + s(dir / "no-newline.txt")}, {}, false}) == Strings{s(dir / "a.exr")});
}

TEST_CASE("an input set that yields nothing is a usage error that says why", "[inputs]") {
  const fs::path dir = gp::test::scratch_dir("inputs-nothing");
  const gp::config::json tonemap = {{"command", "tonemap-exr"}, {"input", {{"recursive", false}}}};
  const gp::config::json pnm = {{"command", "segment-pnm"}, {"input", {{"one_volume", false}}}};
  auto expanded = [](const InputSpec& spec, const gp::config::json& config) {
    return [=] { gp::expand_inputs(spec, config); };
  };

  // No patterns at all ("inputs": [], as --print-config writes).
  CHECK_THROWS_WITH(gp::expand_inputs({{}, {".exr"}, false}, tonemap),
                    "no inputs: give files, folders, globs or @lists on the command line or in the config's inputs");

  // An empty folder; one with other kinds only; one whose inputs are in sub-folders.
  fs::create_directories(dir / "empty");
  CHECK_THROWS_WITH(expanded({{s(dir / "empty")}, {".exr", ".hdr"}, false}, tonemap)(),
                    "no input to process: " + s(dir / "empty") + ": no file of the kinds tonemap-exr reads (.exr, .hdr)");
  touch(dir / "other/notes.txt");
  touch(dir / "other/.hidden.exr");
  CHECK_THROWS_WITH(expanded({{s(dir / "other")}, {".exr"}, false}, tonemap)(),
                    "no input to process: " + s(dir / "other") + ": no file of the kinds tonemap-exr reads (.exr)");
  touch(dir / "shots/a/frame_0001.exr");
  CHECK_THROWS_WITH(expanded({{s(dir / "shots")}, {".exr"}, false}, tonemap)(),
                    "no input to process: " + s(dir / "shots") +
                        ": no file of the kinds tonemap-exr reads (.exr) (sub-folders are not searched; set input.recursive)");
  CHECK(gp::expand_inputs({{s(dir / "shots")}, {".exr"}, true}, tonemap) == Strings{s(dir / "shots/a/frame_0001.exr")});
  // Without input.recursive in the config (or without a config) the hint is not given.
  CHECK_THROWS_WITH(expanded({{s(dir / "shots")}, {".exr"}, false}, {{"command", "x"}})(),
                    "no input to process: " + s(dir / "shots") + ": no file of the kinds x reads (.exr)");
  CHECK_THROWS_WITH(expanded({{s(dir / "shots")}, {".exr"}, false}, {})(),
                    Contains("no file of the kinds this subcommand reads (.exr)"));
  // Sequence folders are named among the kinds.
  InputSpec cameras{{s(dir / "other")}, {".mp4"}, false};
  cameras.sequence_extensions = {".png"};
  CHECK_THROWS_WITH(gp::expand_inputs(cameras, {{"command", "track-faces"}}),
                    Contains("no file of the kinds track-faces reads (.mp4; or folders of .png images)"));

  // An empty list; a list of an empty folder; several reasons at once.
  std::ofstream(dir / "empty.txt") << "# nothing yet\n\n";
  CHECK_THROWS_WITH(expanded({{"@" + s(dir / "empty.txt")}, {".exr"}, false}, tonemap)(),
                    "no input to process: " + s(dir / "empty.txt") +
                        ": the list file names no input (only blank lines or # comments)");
  std::ofstream(dir / "folders.txt") << "empty\nother\n";
  CHECK_THROWS_WITH(expanded({{"@" + s(dir / "folders.txt")}, {".exr"}, false}, tonemap)(),
                    "no input to process: " + s(dir / "empty") + ": no file of the kinds tonemap-exr reads (.exr)\n" +
                        s(dir / "other") + ": no file of the kinds tonemap-exr reads (.exr)");
  // A glob of many empty folders: the first ten reasons, then how many more.
  for (int i = 0; i < 15; ++i) fs::create_directories(dir / "many" / ("f" + std::to_string(i)));
  const std::string many = gp::test::usage_error_within(expanded({{s(dir / "many/*")}, {".exr"}, false}, tonemap));
  CHECK(std::count(many.begin(), many.end(), '\n') == 10);
  CHECK_THAT(many, Contains("\n... and 5 more folders or lists"));

  // A folder giving nothing beside one that gives something is fine (the check is on the whole set).
  touch(dir / "one/a.exr");
  CHECK(gp::expand_inputs({{s(dir / "empty"), s(dir / "one")}, {".exr"}, false}, tonemap) == Strings{s(dir / "one/a.exr")});

  // Folders as items (segment-pnm): one without a file of its own is an item only beside usable ones.
  InputSpec volumes{{s(dir / "empty")}, {".dcm"}, false, true};
  CHECK_THROWS_WITH(gp::expand_inputs(volumes, pnm),
                    "no input to process: " + s(dir / "empty") + ": no file in the folder itself (segment-pnm reads each "
                        "folder as one item; name its sub-folders, if any: " + s(dir / "empty/*") + ")");
  volumes.patterns = {s(dir / "empty"), s(dir / "one")};
  CHECK(gp::expand_inputs(volumes, pnm) == Strings{s(dir / "empty"), s(dir / "one")});
}

// The libraries' messages (core/library_log.hpp): off stderr unless verbose, counted, one line
// each, the thread's last few as an item's reason; one_line (core/text.hpp).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "core/library_log.hpp"
#include "core/text.hpp"
#include "support/test_data.hpp"

namespace {

using gp::LibraryLevel;
using gp::library_message;

// What `body` writes on stderr (fd 2, through stdio).
template <class F>
std::string stderr_of(F body) {
  const auto path = gp::test::scratch_dir("library-log") / "stderr";
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(file, STDERR_FILENO);
  ::close(file);
  body();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("one_line joins a message's lines", "[core][library_log]") {
  CHECK(gp::one_line("plain") == "plain");
  CHECK(gp::one_line("ends with a newline\n") == "ends with a newline");
  CHECK(gp::one_line("first  \n   second\r\nthird\n\n") == "first; second; third");
  CHECK(gp::one_line("\n\nlate start") == "late start");
  CHECK(gp::one_line("tabs\t\n\tand spaces  ") == "tabs; and spaces");
  CHECK(gp::one_line("   \n  ").empty());
}

TEST_CASE("library messages are counted and kept off stderr by default", "[core][library_log]") {
  gp::set_library_log(false, false);
  const auto before = gp::library_message_counts();
  const auto count = [](const std::map<std::string, std::size_t>& counts, const std::string& source) {
    const auto it = counts.find(source);
    return it == counts.end() ? std::size_t(0) : it->second;
  };
  const std::string printed = stderr_of([] {
    library_message("testlib", LibraryLevel::warning, "something odd\n");
    library_message("testlib", LibraryLevel::info, "a note");
    library_message("testlib", LibraryLevel::error, "  \n");  // empty: dropped
  });
  CHECK(printed.empty());
  CHECK(count(gp::library_message_counts(), "testlib") == count(before, "testlib") + 2);
  // `show` prints one regardless (GPUPROC_LIBAV_LOG).
  CHECK(stderr_of([] { library_message("testlib", LibraryLevel::info, "asked for", true); }) ==
        "testlib: info: asked for\n");
}

TEST_CASE("verbose: library messages printed one line each, as JSON with JSON progress", "[core][library_log]") {
  gp::set_library_log(true, false);
  CHECK(stderr_of([] { library_message("libav", LibraryLevel::warning, "line one\nline two\n"); }) ==
        "libav: warning: line one; line two\n");
  gp::set_library_log(true, true);
  const std::string json_line =
      stderr_of([] { library_message("dcmtk", LibraryLevel::error, "bad \"tag\"\n\xff end"); });
  gp::set_library_log(false, false);
  REQUIRE(!json_line.empty());
  CHECK(json_line.back() == '\n');
  CHECK(json_line.find('\n') == json_line.size() - 1);
  const auto j = nlohmann::json::parse(json_line);
  CHECK(j["event"] == "library");
  CHECK(j["source"] == "dcmtk");
  CHECK(j["level"] == "error");
  CHECK(j["text"] == "bad \"tag\"; \xef\xbf\xbd end");  // invalid UTF-8 replaced, not thrown
}

TEST_CASE("library_reason quotes this thread's last warnings and errors since a mark", "[core][library_log]") {
  gp::set_library_log(false, false);
  std::uint64_t mark = gp::library_mark();
  CHECK(gp::library_reason(mark).empty());
  library_message("libav", LibraryLevel::info, "not a reason");
  CHECK(gp::library_reason(mark).empty());
  library_message("libav", LibraryLevel::error, "moov atom not found");
  CHECK(gp::library_reason(mark) == "libav: moov atom not found");
  std::thread([] { library_message("other", LibraryLevel::error, "another thread's"); }).join();
  CHECK(gp::library_reason(mark) == "libav: moov atom not found");
  for (int k = 1; k <= 4; ++k) library_message("lib", LibraryLevel::warning, "w" + std::to_string(k));
  CHECK(gp::library_reason(mark) == "lib: w2; lib: w3; lib: w4");  // the last three
  mark = gp::library_mark();
  CHECK(gp::library_reason(mark).empty());
}

#include "core/library_log.hpp"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <mutex>

#include "core/progress.hpp"
#include "core/text.hpp"

namespace gp {
namespace {

std::atomic<bool> verbose{false}, json_lines{false};
std::mutex counts_mutex;
std::map<std::string, std::size_t> counts;

// This thread's last few messages of level warning or worse (a ring), and how many there were.
constexpr std::size_t kRecent = 3;
struct Recent {
  std::uint64_t count = 0;
  std::array<std::string, kRecent> last;
};
thread_local Recent recent;

}  // namespace

const char* library_level_name(LibraryLevel level) {
  switch (level) {
    case LibraryLevel::error: return "error";
    case LibraryLevel::warning: return "warning";
    case LibraryLevel::info: return "info";
    case LibraryLevel::debug: return "debug";
  }
  return "?";
}

void set_library_log(bool verbose_on, bool json) {
  verbose = verbose_on;
  json_lines = json;
}

void library_message(std::string_view source, LibraryLevel level, std::string_view text, bool show) {
  const std::string line = one_line(text);
  if (line.empty()) return;
  {
    std::lock_guard<std::mutex> lock(counts_mutex);
    counts[std::string(source)]++;
  }
  if (level <= LibraryLevel::warning) recent.last[recent.count++ % kRecent] = std::string(source) + ": " + line;
  if (!verbose && !show) return;
  if (json_lines) {
    print_json_line({{"event", "library"}, {"source", std::string(source)}, {"level", library_level_name(level)}, {"text", line}});
  } else {
    // On a terminal the progress bar may be on this line: clear it (the next update redraws it).
    std::fprintf(stderr, "%s%.*s: %s: %s\n", ::isatty(STDERR_FILENO) ? "\r\033[K" : "", int(source.size()),
                 source.data(), library_level_name(level), line.c_str());
  }
}

std::map<std::string, std::size_t> library_message_counts() {
  std::lock_guard<std::mutex> lock(counts_mutex);
  return counts;
}

std::uint64_t library_mark() { return recent.count; }

std::string library_reason(std::uint64_t mark) {
  std::string reason;
  const std::uint64_t first = std::max(mark, recent.count >= kRecent ? recent.count - kRecent : 0);
  for (std::uint64_t k = first; k < recent.count; ++k) reason += (reason.empty() ? "" : "; ") + recent.last[k % kRecent];
  return reason;
}

}  // namespace gp

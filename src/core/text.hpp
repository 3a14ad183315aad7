#pragma once
// Small text helpers: ASCII lowercase for file extensions, channel names and config words; one
// line of a message.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gp {

inline std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// FNV-1a, 64 bits: a stable hash of a name (file names of records, seeds), not for security.
inline std::uint64_t fnv1a64(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : text) h = (h ^ std::uint8_t(c)) * 1099511628211ull;
  return h;
}

// A path's extension in lowercase, with its dot: "a/B.JPG" -> ".jpg"; "" when it has none.
std::string lowercase_extension(const std::string& path);

// `text` as one line, for line-oriented output (one line per failure): line breaks and the white
// space around them become "; ", trailing white space goes.
std::string one_line(std::string_view text);

// "a, b, c" for join({"a", "b", "c"}, ", ").
std::string join(const std::vector<std::string>& items, const std::string& separator);

// `text` for a message: at most `limit` bytes, cut with "..." (never inside a UTF-8 sequence), so
// that a user's 10 MB value cannot flood stderr.
std::string clipped(const std::string& text, std::size_t limit = 60);

// A size for a message, in GiB or MiB with one decimal: "4.0 GiB", "64.0 MiB".
std::string gib_text(std::uint64_t bytes);
std::string mib_text(std::uint64_t bytes);

}  // namespace gp

// Text files, token by token: stitch-360's COLMAP model (cameras.txt, images.txt) and
// segment-pnm's Statoil network files (*_node1.dat ... *_link2.dat, whitespace-separated numeric
// tables). Lines must correspond; within a line, numbers compare with the tolerances (so "1.0"
// equals "1" and a float's last digit may move within them) and other tokens exactly.
#include <fmt/format.h>

#include "tools/compare_parts.hpp"

namespace gp::tools::compare {
namespace {

// Lines without their terminator ("\n" or "\r\n"); a final terminator ends the last line.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    lines.push_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return lines;
}

}  // namespace

std::vector<std::string_view> split_tokens(std::string_view line, std::string_view separators) {
  std::vector<std::string_view> tokens;
  for (std::size_t begin = line.find_first_not_of(separators); begin != std::string_view::npos;) {
    const std::size_t end = std::min(line.find_first_of(separators, begin), line.size());
    tokens.push_back(line.substr(begin, end - begin));
    begin = line.find_first_not_of(separators, end);
  }
  return tokens;
}

bool tokens_match(std::string_view a, std::string_view b, const CompareOptions& o) {
  if (a == b) return true;
  const auto x = as_number(a), y = as_number(b);
  return x && y && numbers_close(*x, *y, o);
}

FileComparison compare_text(const std::string& a, const std::string& b, const CompareOptions& o) {
  const std::string text_a = read_text(a), text_b = read_text(b);
  const auto lines_a = split_lines(text_a), lines_b = split_lines(text_b);
  FileComparison result;
  std::size_t differing_tokens = 0;
  std::string first;
  for (std::size_t line = 0; line < std::min(lines_a.size(), lines_b.size()); ++line) {
    const auto tokens_a = split_tokens(lines_a[line]), tokens_b = split_tokens(lines_b[line]);
    for (std::size_t col = 0; col < std::max(tokens_a.size(), tokens_b.size()); ++col) {
      if (col < tokens_a.size() && col < tokens_b.size() && tokens_match(tokens_a[col], tokens_b[col], o)) continue;
      if (differing_tokens++ > 0) continue;
      result.details["first_difference"] = {
          {"line", line + 1}, {"column", col + 1}, {"a", json_at(tokens_a, col)}, {"b", json_at(tokens_b, col)}};
      first = fmt::format("line {}, column {}: {} vs {}", line + 1, col + 1, quote_at(tokens_a, col),
                          quote_at(tokens_b, col));
    }
  }
  result.details["lines"] = lines_a.size();
  result.details["differing_tokens"] = differing_tokens;
  if (differing_tokens > 0)
    result.differ(first + (differing_tokens > 1 ? fmt::format("; {} tokens differ", differing_tokens) : ""));
  if (lines_a.size() != lines_b.size()) result.differ(fmt::format("{} lines vs {} in {}", lines_a.size(), lines_b.size(), b));
  return result;
}

}  // namespace gp::tools::compare

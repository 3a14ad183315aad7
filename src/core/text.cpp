#include "core/text.hpp"

#include <filesystem>

namespace gp {

std::string lowercase_extension(const std::string& path) {
  return lowercase(std::filesystem::path(path).extension().string());
}

std::string one_line(std::string_view text) {
  const auto trim_end = [](std::string& s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  };
  std::string line;
  bool pending_break = false;
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      trim_end(line);
      pending_break = !line.empty();
    } else if (!pending_break || (c != ' ' && c != '\t')) {
      if (pending_break) line += "; ";
      pending_break = false;
      line += c;
    }
  }
  trim_end(line);
  return line;
}

}  // namespace gp

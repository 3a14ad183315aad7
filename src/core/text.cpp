#include "core/text.hpp"

#include <cstdio>
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

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

std::string clipped(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit < 3 ? 0 : limit - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

std::string gib_text(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(1ull << 30));
  return text;
}

std::string mib_text(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / double(1ull << 20));
  return text;
}

}  // namespace gp

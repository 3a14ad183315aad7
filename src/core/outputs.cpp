#include "core/outputs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>

#include "core/error.hpp"

namespace gp {
namespace fs = std::filesystem;

std::string expand_template(const std::string& pattern, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '{' && i + 1 < pattern.size() && pattern[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    if (c == '}' && i + 1 < pattern.size() && pattern[i + 1] == '}') {
      out += '}';
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    const auto close = pattern.find('}', i);
    if (close == std::string::npos) throw UsageError("name template \"" + pattern + "\": unclosed {");
    std::string name = pattern.substr(i + 1, close - i - 1);
    std::string width;
    if (auto colon = name.find(':'); colon != std::string::npos) {
      width = name.substr(colon + 1);
      name.erase(colon);
    }
    auto it = vars.find(name);
    if (it == vars.end()) {
      std::string known;
      for (auto& [k, v] : vars) known += (known.empty() ? "{" : ", {") + k + "}";
      throw UsageError("name template \"" + pattern + "\": unknown {" + name + "}; known: " + known);
    }
    std::string value = it->second;
    if (!width.empty()) {
      // {index:05}: zero-padded to 5 digits.
      if (width.find_first_not_of("0123456789") != std::string::npos || width.size() > 3)
        throw UsageError("name template \"" + pattern + "\": bad width in {" + name + ":" + width + "}");
      const std::size_t w = std::stoul(width);
      if (value.size() < w) value.insert(0, w - value.size(), width[0] == '0' ? '0' : ' ');
    }
    out += value;
    i = close;
  }
  return out;
}

std::string checked_relative_name(const std::string& name, const std::string& field) {
  if (name.empty()) throw UsageError(field + ": output name is empty");
  if (name.find('\0') != std::string::npos) throw UsageError(field + ": output name contains a NUL byte");
  const fs::path p(name);
  if (p.is_absolute()) throw UsageError(field + ": output names must be relative to the output folder, got \"" + name + "\"");
  for (const auto& part : p)
    if (part == "..") throw UsageError(field + ": output names must not contain \"..\", got \"" + name + "\"");
  const std::string normal = p.lexically_normal().string();
  if (normal.empty() || normal == "." || normal.back() == '/')
    throw UsageError(field + ": output name \"" + name + "\" names no file");
  return normal;
}

std::string output_path(const std::string& dir, const std::string& relative_name, const std::string& field) {
  const std::string rel = checked_relative_name(relative_name, field);
  const fs::path base = fs::path(dir).lexically_normal();
  const fs::path full = (base / rel).lexically_normal();
  // Defence in depth: the joined path must still start with the output folder.
  auto b = base.begin(), f = full.begin();
  for (; b != base.end() && !b->empty(); ++b, ++f)
    if (f == full.end() || *b != *f) throw UsageError(field + ": \"" + relative_name + "\" leaves the output folder");
  return full.string();
}

std::string temporary_path_for(const std::string& final_path) {
  static std::atomic<unsigned> counter{0};
  const fs::path p(final_path);
  const std::string tmp_name = "." + p.filename().string() + ".part-" + std::to_string(::getpid()) + "-" +
                               std::to_string(counter++) + p.extension().string();
  return (p.parent_path() / tmp_name).string();
}

void write_atomically(const std::string& final_path, const std::function<void(const std::string&)>& write) {
  const fs::path parent = fs::path(final_path).parent_path();
  std::error_code ec;
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) throw Error(final_path + ": cannot create the folder " + parent.string() + ": " + ec.message());
  }
  const std::string tmp = temporary_path_for(final_path);
  try {
    write(tmp);
    // Data on disk before the rename, so a crash leaves the old file or the new one, never a torn one.
    const int fd = ::open(tmp.c_str(), O_RDONLY);
    if (fd < 0) throw Error(final_path + ": the writer produced no file");
    const int synced = ::fsync(fd);
    ::close(fd);
    if (synced != 0) throw Error(final_path + ": fsync failed (disk full?)");
    fs::rename(tmp, final_path, ec);
    if (ec) throw Error(final_path + ": cannot rename the finished file into place: " + ec.message());
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
}

bool output_complete(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && fs::file_size(path, ec) > 0 && !ec;
}

int remove_stale_temporaries(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file() && name.size() > 1 && name[0] == '.' && name.find(".part-") != std::string::npos) {
      std::error_code rm;
      if (fs::remove(it->path(), rm)) ++removed;
    }
  }
  return removed;
}

}  // namespace gp

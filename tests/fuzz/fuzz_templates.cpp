// Output names as the subcommands make them (core/outputs.hpp): expand_template on a config's
// name template and an input's variables, then checked_relative_name and output_path into one of
// three output folders (the current folder, a relative one, and one holding a symbolic link that
// leads out of it). Input: one byte choosing the folder, then the template and the values of
// {stem} {name} {ext} {index} {level} {view} {frame} {camera} {output}, separated by NUL bytes.
// Every outcome is a path inside the output folder (checked here lexically and with symbolic
// links resolved) or a gp::UsageError; anything else escaping, or a path outside, is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "fuzz_files.hpp"

namespace {

namespace fs = std::filesystem;

// scratch/out, holding "outside" -> scratch/elsewhere (a link that leaves the folder).
const std::string& linked_output_dir() {
  static const std::string dir = [] {
    const fs::path out = gp::fuzz::scratch_dir() / "out";
    fs::create_directories(out);
    fs::create_directories(gp::fuzz::scratch_dir() / "elsewhere");
    std::error_code ec;
    fs::create_directory_symlink(gp::fuzz::scratch_dir() / "elsewhere", out / "outside", ec);
    return out.string();
  }();
  return dir;
}

bool inside(const fs::path& path, const fs::path& dir) {
  const fs::path rel = path.lexically_relative(dir);
  return !rel.empty() && rel != "." && *rel.begin() != "..";
}

[[noreturn]] void finding(const char* what) {
  std::fputs(what, stderr);
  std::fputc('\n', stderr);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string dirs[] = {"", "out/names", linked_output_dir()};
  const std::string& dir = dirs[data[0] % 3];

  std::vector<std::string> parts;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (std::size_t start = 0;;) {
    const std::size_t end = rest.find('\0', start);
    parts.push_back(rest.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  const char* names[] = {"stem", "name", "ext", "index", "level", "view", "frame", "camera", "output"};
  std::map<std::string, std::string> vars;
  for (std::size_t k = 0; k < std::size(names); ++k) vars[names[k]] = k + 1 < parts.size() ? parts[k + 1] : "";

  std::string name;
  try {
    name = gp::expand_template(parts[0], vars);
  } catch (const gp::UsageError&) {
    return 0;
  }
  try {
    const std::string relative = gp::checked_relative_name(name, "/output/name");
    const fs::path r(relative);
    if (relative.empty() || r.is_absolute()) finding("checked_relative_name let an empty or absolute name through");
    for (const auto& part : r)
      if (part == "..") finding("checked_relative_name let .. through");
  } catch (const gp::UsageError&) {
  }
  try {
    const std::string path = gp::output_path(dir, name, "/output/name");
    const fs::path base = fs::path(dir.empty() ? "." : dir).lexically_normal();
    if (!inside(fs::path(path).lexically_normal(), base)) finding("output_path left the output folder");
    std::error_code ec1, ec2;
    const fs::path real_base = fs::weakly_canonical(fs::absolute(base), ec1);
    const fs::path real_path = fs::weakly_canonical(fs::absolute(path), ec2);
    if (!ec1 && !ec2 && !inside(real_path, real_base)) finding("output_path left the output folder through a link");
  } catch (const gp::UsageError&) {
  }
  return 0;
}

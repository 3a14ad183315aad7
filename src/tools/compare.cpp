// compare_paths: which comparer reads a file (by extension), folders, and the result. The
// comparers of each format family are in compare_<family>.cpp (see compare_parts.hpp).
#include "tools/compare.hpp"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <set>

#include "core/error.hpp"
#include "core/text.hpp"
#include "tools/compare_parts.hpp"
#include "io/file_bytes.hpp"
#include "io/video_reader.hpp"

namespace gp::tools {
namespace fs = std::filesystem;

namespace compare {

std::string quote(std::string_view s) {
  return json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<double> as_number(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return std::nullopt;
  text = text.substr(first, text.find_last_not_of(" \t") + 1 - first);
  if (text[0] == '+') text.remove_prefix(1);  // from_chars reads no '+'
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string read_text(const std::string& path) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path);  // regular files only, by their size
  return std::string(bytes.begin(), bytes.end());
}

namespace {

// The formats gpuproc writes (and their common relatives), by extension. A file of another
// extension cannot be compared: guessing would call files of an unknown format "different".
struct Format {
  const char* kind;
  std::vector<std::string> extensions;  // lowercase, with the dot
  FileComparison (*compare)(const std::string& a, const std::string& b, const CompareOptions& o);
};

const std::vector<Format>& formats() {
  static const std::vector<Format> table{
      {"image",
       {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".tx", ".webp", ".exr", ".sxr", ".mxr", ".hdr", ".rgbe", ".pfm",
        ".bmp", ".tga", ".ppm", ".pgm", ".pnm", ".pbm", ".gif", ".dpx", ".jp2", ".j2k"},
       compare_images},
      {"video", io::video_file_extensions(), compare_videos},
      {"nrrd", {".nrrd"}, compare_nrrd},
      {"vtp", {".vtp"}, compare_vtp},
      {"statoil", {".dat"}, compare_text},  // segment-pnm's *_node1.dat ... *_link2.dat
      {"text", {".txt"}, compare_text},
      {"csv", {".csv"}, compare_csv},
      {"json", {".json", ".jsonl", ".ndjson"}, compare_json},
  };
  return table;
}

const Format* format_of(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  for (const Format& f : formats())
    for (const auto& e : f.extensions)
      if (e == ext) return &f;
  return nullptr;
}

std::string kind_name(const std::string& path) {
  const Format* f = format_of(path);
  return f ? f->kind : "of unknown format";
}

FileComparison compare_files(const std::string& a, const std::string& b, const CompareOptions& o) {
  const Format* format = format_of(a);
  FileComparison result;
  try {
    if (!format) {
      throw Uncomparable(fmt::format("{}: unknown format \"{}\" (compare reads images, videos, .nrrd, .vtp, .dat, "
                                     ".txt, .csv, .json, .jsonl)",
                                     a, lowercase_extension(a)));
    }
    result = format->compare(a, b, o);
  } catch (const std::exception& e) {
    // Uncomparable, and whatever the readers throw (gp::ItemError from the file and video
    // readers, std::bad_alloc for a file too large to hold): the files could not be compared.
    result = FileComparison{};
    result.equal = false;
    result.error = e.what();
    if (result.error.find(a) == std::string::npos && result.error.find(b) == std::string::npos)
      result.error = a + ": " + result.error;  // e.g. std::bad_alloc, which names no file
    result.details["error"] = result.error;
  }
  json details{{"kind", format ? format->kind : "unknown"}, {"equal", result.equal}};
  details.update(result.details);
  result.details = std::move(details);
  return result;
}

// Compares a and b into `r` under `name`; false when they could not be compared.
bool add_file_result(CompareResult& r, const std::string& name, const std::string& a, const std::string& b,
                     const CompareOptions& o) {
  FileComparison file = compare_files(a, b, o);
  r.equal = r.equal && file.equal;
  if (!file.error.empty()) {
    r.comparable = false;
    r.errors.push_back(file.error);
  }
  for (auto& line : file.differences) r.differences.push_back(name + ": " + line);
  r.details["files"][name] = std::move(file.details);
  return file.error.empty();
}

// Relative names ("sub/a.png") of the regular files under dir; hidden files and folders (the
// temporaries of interrupted writes, the batch runner's records, .git) are skipped.
std::set<std::string> relative_files(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const bool hidden = it->path().filename().string().rfind('.', 0) == 0;
    std::error_code type_ec;
    if (hidden && it->is_directory(type_ec)) it.disable_recursion_pending();
    else if (!hidden && it->is_regular_file(type_ec)) names.insert(it->path().lexically_relative(dir).generic_string());
  }
  if (ec) throw UsageError(dir.string() + ": cannot list the folder: " + ec.message());
  return names;
}

void compare_folders(const std::string& a, const std::string& b, const CompareOptions& o, CompareResult& r) {
  const auto names_a = relative_files(a), names_b = relative_files(b);
  json only_in_a = json::array(), only_in_b = json::array(), cannot_compare = json::array();
  for (const auto& name : names_a) {
    if (!names_b.count(name)) {
      only_in_a.push_back(name);
      continue;
    }
    if (!add_file_result(r, name, (fs::path(a) / name).string(), (fs::path(b) / name).string(), o))
      cannot_compare.push_back(name);
  }
  for (const auto& name : names_b)
    if (!names_a.count(name)) only_in_b.push_back(name);
  for (const auto& name : only_in_a) r.differences.push_back(name.get<std::string>() + ": only in " + a);
  for (const auto& name : only_in_b) r.differences.push_back(name.get<std::string>() + ": only in " + b);
  r.equal = r.equal && only_in_a.empty() && only_in_b.empty();
  r.details["only_in_a"] = std::move(only_in_a);
  r.details["only_in_b"] = std::move(only_in_b);
  r.details["cannot_compare"] = std::move(cannot_compare);
}

void check_options(const CompareOptions& o) {
  if (!(o.tolerance >= 0)) throw UsageError(fmt::format("--tolerance must be 0 or more, got {}", o.tolerance));
  if (!(o.relative_tolerance >= 0))
    throw UsageError(fmt::format("--relative-tolerance must be 0 or more, got {}", o.relative_tolerance));
  if (!(o.min_psnr_db >= 0)) throw UsageError(fmt::format("--min-psnr must be 0 or more, got {}", o.min_psnr_db));
}

}  // namespace
}  // namespace compare

CompareResult compare_paths(const std::string& a, const std::string& b, const CompareOptions& options) {
  using namespace compare;
  check_options(options);
  for (const auto& p : {a, b}) {
    std::error_code ec;
    const fs::file_status status = fs::status(p, ec);
    if (!fs::exists(status)) throw UsageError(p + ": no such file or folder");
    if (!fs::is_directory(status) && !fs::is_regular_file(status))
      throw UsageError(p + ": not a regular file or folder");  // a FIFO or device would never end
  }
  const bool folders = fs::is_directory(a);
  if (folders != fs::is_directory(b))
    throw UsageError("compare: " + a + " and " + b + " must both be files or both be folders");
  if (!folders && format_of(a) != format_of(b))
    throw UsageError(fmt::format("compare: {} is {} and {} is {}; compare files of the same kind", a, kind_name(a), b,
                                 kind_name(b)));

  CompareResult r;
  r.details = {{"a", a}, {"b", b}, {"tolerance", options.tolerance}, {"relative_tolerance", options.relative_tolerance},
               {"min_psnr_db", options.min_psnr_db}, {"ignored_keys", options.ignored_keys}, {"equal", true},
               {"comparable", true}, {"files", json::object()}};
  if (folders) compare_folders(a, b, options, r);
  else add_file_result(r, a, a, b, options);
  r.details["equal"] = r.equal;
  r.details["comparable"] = r.comparable;
  return r;
}

}  // namespace gp::tools

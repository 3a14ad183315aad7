#include "io/compare.hpp"

#include <OpenImageIO/imagebuf.h>
#include <OpenImageIO/imagebufalgo.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.hpp"

namespace gp::io {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

std::string lower_ext(const std::string& path) {
  std::string e = fs::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), ::tolower);
  return e;
}

bool numbers_close(double a, double b, const CompareOptions& o) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return true;
  const double diff = std::fabs(a - b);
  return diff <= o.tolerance || diff <= o.relative_tolerance * std::max(std::fabs(a), std::fabs(b));
}

void compare_images(const std::string& a, const std::string& b, const CompareOptions& o, CompareResult& r) {
  OIIO::ImageBuf A(a), B(b);
  if (!A.read(0, 0, true, OIIO::TypeDesc::FLOAT)) throw UsageError(a + ": cannot read image: " + A.geterror());
  if (!B.read(0, 0, true, OIIO::TypeDesc::FLOAT)) throw UsageError(b + ": cannot read image: " + B.geterror());
  const auto& sa = A.spec();
  const auto& sb = B.spec();
  json d{{"kind", "image"}, {"width", sa.width}, {"height", sa.height}, {"channels", sa.nchannels}};
  if (sa.width != sb.width || sa.height != sb.height || sa.nchannels != sb.nchannels) {
    r.equal = false;
    r.differences.push_back(fmt::format("{}: size {}x{}x{} differs from {}x{}x{} in {}", a, sa.width, sa.height,
                                        sa.nchannels, sb.width, sb.height, sb.nchannels, b));
    r.details[a] = d;
    return;
  }
  // Values are normalised to [0,1] by the float read (integer formats), so tolerance 1/255 is one
  // 8-bit step. compare() counts pixels over the threshold and gives max and mean error.
  auto cmp = OIIO::ImageBufAlgo::compare(A, B, float(o.tolerance), float(o.tolerance));
  double mse = cmp.rms_error * cmp.rms_error;
  d["max_abs_error"] = cmp.maxerror;
  d["mean_abs_error"] = cmp.meanerror;
  d["psnr_db"] = mse > 0 ? 10 * std::log10(1.0 / mse) : 999.0;
  d["pixels_over_tolerance"] = cmp.nfail;
  r.details[a] = d;
  if (cmp.maxerror > o.tolerance) {
    r.equal = false;
    r.differences.push_back(fmt::format("{}: {} pixel(s) differ by more than {} (max {:.6g} at {},{} channel {}; PSNR {:.2f} dB)",
                                        a, cmp.nfail, o.tolerance, cmp.maxerror, cmp.maxx, cmp.maxy, cmp.maxc,
                                        d["psnr_db"].get<double>()));
  }
}

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(path + ": cannot read");
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted) {
        if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cell += '"', ++i;
        else if (c == '"') quoted = false;
        else cell += c;
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += c;
      }
    }
    cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

bool parse_number(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

void compare_csv(const std::string& a, const std::string& b, const CompareOptions& o, CompareResult& r) {
  const auto A = read_csv(a), B = read_csv(b);
  json d{{"kind", "csv"}, {"rows", A.size()}};
  std::size_t differing = 0;
  std::string first;
  if (A.size() != B.size()) first = fmt::format("{}: {} rows vs {} in {}", a, A.size(), B.size(), b);
  for (std::size_t row = 0; row < std::min(A.size(), B.size()); ++row) {
    if (A[row].size() != B[row].size()) {
      ++differing;
      if (first.empty()) first = fmt::format("{}: line {}: {} cells vs {}", a, row + 1, A[row].size(), B[row].size());
      continue;
    }
    for (std::size_t col = 0; col < A[row].size(); ++col) {
      double x, y;
      const bool same = parse_number(A[row][col], x) && parse_number(B[row][col], y) ? numbers_close(x, y, o)
                                                                                    : A[row][col] == B[row][col];
      if (same) continue;
      ++differing;
      if (first.empty()) {
        const std::string column = row > 0 && col < A[0].size() ? A[0][col] : std::to_string(col + 1);
        first = fmt::format("{}: line {}, column {}: \"{}\" vs \"{}\"", a, row + 1, column, A[row][col], B[row][col]);
      }
    }
  }
  d["differing_cells"] = differing;
  r.details[a] = d;
  if (!first.empty()) {
    r.equal = false;
    r.differences.push_back(first);
  }
}

// First difference between two JSON values as a JSON pointer, or "".
std::string json_difference(const json& x, const json& y, const std::string& at, const CompareOptions& o) {
  if (x.is_number() && y.is_number()) return numbers_close(x.get<double>(), y.get<double>(), o) ? "" : at;
  if (x.type() != y.type()) return at.empty() ? "/" : at;
  if (x.is_object()) {
    for (auto& [k, v] : x.items()) {
      if (!y.contains(k)) return at + "/" + k;
      auto d = json_difference(v, y.at(k), at + "/" + k, o);
      if (!d.empty()) return d;
    }
    for (auto& [k, v] : y.items())
      if (!x.contains(k)) return at + "/" + k;
    return "";
  }
  if (x.is_array()) {
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
      auto d = json_difference(x[i], y[i], at + "/" + std::to_string(i), o);
      if (!d.empty()) return d;
    }
    return x.size() == y.size() ? "" : at + "/" + std::to_string(std::min(x.size(), y.size()));
  }
  return x == y ? "" : (at.empty() ? "/" : at);
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(path + ": cannot read");
  if (lower_ext(path) == ".jsonl") {  // JSON lines: an array of the lines
    json lines = json::array();
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) lines.push_back(json::parse(line));
    return lines;
  }
  return json::parse(in, nullptr, true, true);
}

void compare_json(const std::string& a, const std::string& b, const CompareOptions& o, CompareResult& r) {
  json A, B;
  try {
    A = read_json(a);
    B = read_json(b);
  } catch (const json::exception& e) {
    throw UsageError(std::string("invalid JSON: ") + e.what());
  }
  const std::string where = json_difference(A, B, "", o);
  r.details[a] = {{"kind", "json"}, {"first_difference", where}};
  if (!where.empty()) {
    r.equal = false;
    r.differences.push_back(fmt::format("{}: differs from {} at {}", a, b, where));
  }
}

void compare_files(const std::string& a, const std::string& b, const CompareOptions& o, CompareResult& r) {
  const std::string ext = lower_ext(a);
  if (ext == ".csv") compare_csv(a, b, o, r);
  else if (ext == ".json" || ext == ".jsonl") compare_json(a, b, o, r);
  else compare_images(a, b, o, r);
}

std::set<std::string> relative_files(const fs::path& dir) {
  std::set<std::string> out;
  for (auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string()[0] != '.') out.insert(fs::relative(e.path(), dir).string());
  return out;
}

}  // namespace

CompareResult compare_paths(const std::string& a, const std::string& b, const CompareOptions& options) {
  for (auto& p : {a, b})
    if (!fs::exists(p)) throw UsageError(p + ": no such file or folder");
  if (fs::is_directory(a) != fs::is_directory(b)) throw UsageError("compare: " + a + " and " + b + " must both be files or both folders");
  CompareResult r;
  if (!fs::is_directory(a)) {
    compare_files(a, b, options, r);
    return r;
  }
  const auto fa = relative_files(a), fb = relative_files(b);
  for (auto& f : fa) {
    if (!fb.count(f)) {
      r.equal = false;
      r.differences.push_back(fmt::format("{}: only in {}", f, a));
      continue;
    }
    compare_files((fs::path(a) / f).string(), (fs::path(b) / f).string(), options, r);
  }
  for (auto& f : fb)
    if (!fa.count(f)) {
      r.equal = false;
      r.differences.push_back(fmt::format("{}: only in {}", f, b));
    }
  return r;
}

}  // namespace gp::io

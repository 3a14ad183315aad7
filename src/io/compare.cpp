#include "io/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"
#include "core/text.hpp"
#include "io/oiio_module.hpp"

namespace gp::io {
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// A file that exists but cannot be read or parsed: reported as a difference.
class UnreadableFile : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What one pair of files gave; differences without the file name (the caller adds it).
struct FileComparison {
  bool equal = true;
  std::vector<std::string> differences;
  json details = json::object();

  void differ(std::string what) {
    equal = false;
    differences.push_back(std::move(what));
  }
};

enum class Kind { image, csv, json, text };

Kind kind_of(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  if (ext == ".csv") return Kind::csv;
  if (ext == ".json" || ext == ".jsonl" || ext == ".ndjson") return Kind::json;
  if (ext == ".txt") return Kind::text;
  return Kind::image;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::csv: return "csv";
    case Kind::json: return "json";
    case Kind::text: return "text";
    default: return "image";
  }
}

bool is_json_lines(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return ext != ".json" && ext != ".JSON" && kind_of(path) == Kind::json;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UnreadableFile(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool numbers_close(double a, double b, const CompareOptions& o) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return true;
  const double diff = std::fabs(a - b);
  return diff <= o.tolerance || diff <= o.relative_tolerance * std::max(std::fabs(a), std::fabs(b));
}

// A JSON number for metrics, null where JSON has none (inf, nan).
json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// ---- images -------------------------------------------------------------------------------------

// Integer samples come out as k / (2^bits - 1) in float, so the same value stored at two bit
// depths (8-bit PNG, 16-bit TIFF) may differ by a float rounding step (~6e-8), and one 8-bit step
// is not exactly 1/255. Differences this small are noise for integer formats: far below one
// 16-bit step (1.5e-5). Float formats get no slack, so tolerance 0 stays exact for them.
constexpr double integer_rounding_slack = 1e-6;

struct ImageDifference {
  std::vector<double> channel_max;  // largest |a-b| per channel
  double sum_squares = 0;
  std::size_t samples = 0, differing_pixels = 0, pixels_over_tolerance = 0;
  int worst_x = 0, worst_y = 0, worst_channel = 0;
  double worst = 0;

  double psnr_db() const {  // peak 1; infinite when identical
    const double mse = sum_squares / double(std::max<std::size_t>(samples, 1));
    return mse > 0 ? 10 * std::log10(1 / mse) : std::numeric_limits<double>::infinity();
  }
};

std::unique_ptr<FloatImage> read_image(const std::string& path) {
  try {
    return oiio_module().open_float_image(path);
  } catch (const std::exception& e) {
    throw UnreadableFile(e.what());
  }
}

// Row y of `image`; a failure to read it is a difference, like an unreadable file.
void read_row(const FloatImage& image, int y, std::vector<float>& row) {
  try {
    image.read_row(y, row);
  } catch (const std::exception& e) {
    throw UnreadableFile(e.what());
  }
}

// Samples differing by more than `noise` make a pixel differ; by more than `limit`, fail.
ImageDifference measure(const FloatImage& a, const FloatImage& b, double noise, double limit) {
  const FloatImage& spec = a;
  const int channels = spec.channels;
  ImageDifference d;
  d.channel_max.assign(std::size_t(channels), 0.0);
  std::vector<float> row_a, row_b;
  for (int y = 0; y < spec.height; ++y) {
    read_row(a, y, row_a);
    read_row(b, y, row_b);
    for (int x = 0; x < spec.width; ++x) {
      bool differs = false, over = false;
      for (int c = 0; c < channels; ++c) {
        const std::size_t i = std::size_t(x) * std::size_t(channels) + std::size_t(c);
        const double va = row_a[i], vb = row_b[i];
        // NaN only matches NaN; a NaN against a number is as different as it gets.
        const double diff = std::isnan(va) || std::isnan(vb) ? (std::isnan(va) && std::isnan(vb) ? 0.0 : HUGE_VAL)
                                                              : std::fabs(va - vb);
        d.sum_squares += diff * diff;
        ++d.samples;
        differs = differs || diff > noise;
        over = over || diff > limit;
        d.channel_max[std::size_t(c)] = std::max(d.channel_max[std::size_t(c)], diff);
        if (diff > d.worst) {
          d.worst = diff;
          d.worst_x = spec.x + x;
          d.worst_y = spec.y + y;
          d.worst_channel = c;
        }
      }
      d.differing_pixels += differs;
      d.pixels_over_tolerance += over;
    }
  }
  return d;
}

std::string channel_name(const FloatImage& image, int c) {
  const std::string name = image.channel_names[std::size_t(c)];
  return name.empty() ? "channel" + std::to_string(c) : name;
}

json image_metrics(const FloatImage& spec, const ImageDifference& d) {
  json channel_max = json::object();
  for (int c = 0; c < spec.channels; ++c) channel_max[channel_name(spec, c)] = finite_or_null(d.channel_max[std::size_t(c)]);
  json metrics{{"max_abs_difference", channel_max},
               {"differing_pixels", d.differing_pixels},
               {"pixels_over_tolerance", d.pixels_over_tolerance},
               {"psnr_db", finite_or_null(d.psnr_db())}};
  if (d.worst > 0) metrics["worst"] = {{"x", d.worst_x}, {"y", d.worst_y}, {"channel", channel_name(spec, d.worst_channel)}};
  return metrics;
}

FileComparison compare_images(const std::string& a, const std::string& b, const CompareOptions& o) {
  const auto image_a = read_image(a), image_b = read_image(b);
  const FloatImage& sa = *image_a;
  const FloatImage& sb = *image_b;
  FileComparison result;
  result.details = {{"width", sa.width}, {"height", sa.height}, {"channels", sa.channels}};
  if (sa.width != sb.width || sa.height != sb.height || sa.depth != sb.depth || sa.channels != sb.channels) {
    result.differ(fmt::format("size {}x{} with {} channel(s) differs from {}x{} with {} in {}", sa.width, sa.height,
                              sa.channels, sb.width, sb.height, sb.channels, b));
    return result;
  }
  const double noise = sa.integer_format || sb.integer_format ? integer_rounding_slack : 0.0;
  const ImageDifference d = measure(sa, sb, noise, o.tolerance + noise);
  result.details.update(image_metrics(sa, d));
  if (d.pixels_over_tolerance == 0 || (o.min_psnr_db > 0 && d.psnr_db() >= o.min_psnr_db)) return result;
  std::vector<std::string> channel_max;
  for (int c = 0; c < sa.channels; ++c)
    channel_max.push_back(fmt::format("{} {:.6g}", channel_name(sa, c), d.channel_max[std::size_t(c)]));
  result.differ(fmt::format("{} of {} pixels differ by more than {:.6g} (max abs difference {}; worst at x={} y={}; "
                            "PSNR {:.2f} dB{})",
                            d.pixels_over_tolerance, std::size_t(sa.width) * std::size_t(sa.height), o.tolerance,
                            fmt::join(channel_max, ", "), d.worst_x, d.worst_y, d.psnr_db(),
                            o.min_psnr_db > 0 ? fmt::format(", below {:.2f}", o.min_psnr_db) : std::string()));
  return result;
}

// ---- CSV ----------------------------------------------------------------------------------------

struct CsvRecord {
  std::size_t line = 1;  // where the record starts (quoted cells may span lines)
  std::vector<std::string> cells;
};

// RFC 4180: "quoted, cells" with "" for a quote and line breaks inside quotes; \n or \r\n
// between records; blank lines skipped.
std::vector<CsvRecord> parse_csv(const std::string& text) {
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string cell;
  bool quoted = false, any_quote = false;
  std::size_t line = 1;
  auto end_record = [&] {
    record.cells.push_back(cell);
    const bool blank = record.cells.size() == 1 && cell.empty() && !any_quote;
    if (!blank) records.push_back(record);
    record = CsvRecord{line + 1, {}};
    cell.clear();
    any_quote = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      const bool doubled_quote = c == '"' && i + 1 < text.size() && text[i + 1] == '"';
      if (doubled_quote) cell += text[++i];
      else if (c == '"') quoted = false;
      else cell += c;
      if (c == '\n') ++line;
    } else if (c == '"') {
      quoted = any_quote = true;
    } else if (c == ',') {
      record.cells.push_back(cell);
      cell.clear();
    } else if (c == '\n') {
      end_record();
      ++line;
    } else if (!(c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) {
      cell += c;
    }
  }
  if (!cell.empty() || !record.cells.empty() || any_quote) end_record();
  return records;
}

// Numbers as C writes them ("1.5", "-2e-3", "inf", "nan"), surrounding blanks allowed; locale-free.
std::optional<double> as_number(const std::string& cell) {
  const auto first = cell.find_first_not_of(" \t");
  if (first == std::string::npos) return std::nullopt;
  const auto last = cell.find_last_not_of(" \t") + 1;
  const char* begin = cell.data() + first + (cell[first] == '+' ? 1 : 0);
  double value = 0;
  const auto [end, error] = std::from_chars(begin, cell.data() + last, value);
  if (error != std::errc() || end != cell.data() + last) return std::nullopt;
  return value;
}

bool cells_match(const std::string& a, const std::string& b, const CompareOptions& o) {
  if (a == b) return true;
  const auto x = as_number(a), y = as_number(b);
  return x && y && numbers_close(*x, *y, o);
}

std::string quoted_cell(const std::string& s) { return json(s).dump(-1, ' ', false, json::error_handler_t::replace); }

FileComparison compare_csv(const std::string& a, const std::string& b, const CompareOptions& o) {
  const auto rows_a = parse_csv(read_text(a)), rows_b = parse_csv(read_text(b));
  FileComparison result;
  const std::size_t data_a = rows_a.empty() ? 0 : rows_a.size() - 1, data_b = rows_b.empty() ? 0 : rows_b.size() - 1;
  result.details = {{"rows", data_a}, {"columns", rows_a.empty() ? 0 : rows_a[0].cells.size()}};
  if (rows_a.empty() || rows_b.empty()) {
    if (rows_a.size() != rows_b.size()) result.differ(rows_a.empty() ? "empty, " + b + " is not" : "not empty, " + b + " is");
    return result;
  }
  // Cells are matched by column, so the headers must be the same.
  const auto& header = rows_a[0].cells;
  if (header != rows_b[0].cells) {
    std::size_t col = 0;
    while (col < header.size() && col < rows_b[0].cells.size() && header[col] == rows_b[0].cells[col]) ++col;
    const auto cell = [](const std::vector<std::string>& cells, std::size_t i) {
      return i < cells.size() ? quoted_cell(cells[i]) : std::string("(none)");
    };
    result.differ(fmt::format("header differs at column {}: {} vs {} in {}", col + 1, cell(header, col),
                              cell(rows_b[0].cells, col), b));
    return result;
  }
  std::size_t differing_cells = 0;
  for (std::size_t row = 1; row < std::min(rows_a.size(), rows_b.size()); ++row) {
    const auto& cells_a = rows_a[row].cells;
    const auto& cells_b = rows_b[row].cells;
    for (std::size_t col = 0; col < std::max(cells_a.size(), cells_b.size()); ++col) {
      const bool in_a = col < cells_a.size(), in_b = col < cells_b.size();
      if (in_a && in_b && cells_match(cells_a[col], cells_b[col], o)) continue;
      if (differing_cells++ > 0) continue;
      const std::string name = col < header.size() ? header[col] : "";
      result.details["first_difference"] = {{"row", row}, {"column", col + 1}, {"column_name", name},
                                            {"line", rows_a[row].line}, {"a", in_a ? json(cells_a[col]) : json(nullptr)},
                                            {"b", in_b ? json(cells_b[col]) : json(nullptr)}};
      result.differ(fmt::format("row {}, column {} {} (line {}): {} vs {}", row, col + 1, quoted_cell(name),
                                rows_a[row].line, in_a ? quoted_cell(cells_a[col]) : "(none)",
                                in_b ? quoted_cell(cells_b[col]) : "(none)"));
    }
  }
  result.details["differing_cells"] = differing_cells;
  if (differing_cells > 1) result.differences.back() += fmt::format("; {} cells differ", differing_cells);
  if (data_a != data_b) result.differ(fmt::format("{} data rows vs {} in {}", data_a, data_b, b));
  return result;
}

// ---- JSON ---------------------------------------------------------------------------------------

json read_json(const std::string& path) {
  const std::string text = read_text(path);
  try {
    if (!is_json_lines(path)) return json::parse(text, nullptr, true, /*ignore_comments=*/true);
    json lines = json::array();  // JSON lines compare as an array: /3 is line 4
    std::istringstream in(text);
    std::size_t number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        lines.push_back(json::parse(line));
      } catch (const json::exception& e) {
        throw UnreadableFile(fmt::format("{}: line {}: invalid JSON: {}", path, number, e.what()));
      }
    }
    return lines;
  } catch (const json::exception& e) {
    throw UnreadableFile(fmt::format("{}: invalid JSON: {}", path, e.what()));
  }
}

std::string shown(const json& v) {
  std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

struct JsonDifference {
  std::string pointer;  // RFC 6901; "" is the whole document
  std::string what;
};

std::optional<JsonDifference> first_difference(const json& x, const json& y, const json::json_pointer& at,
                                               const CompareOptions& o) {
  if (x.is_number() && y.is_number()) {
    if (x == y || numbers_close(x.get<double>(), y.get<double>(), o)) return std::nullopt;
    return JsonDifference{at.to_string(), shown(x) + " vs " + shown(y)};
  }
  if (x.type() != y.type()) return JsonDifference{at.to_string(), shown(x) + " vs " + shown(y)};
  if (x.is_object()) {
    for (const auto& [key, value] : x.items()) {
      const json::json_pointer p = at / key;
      if (!y.contains(key)) return JsonDifference{p.to_string(), "missing in B"};
      if (auto d = first_difference(value, y[key], p, o)) return d;
    }
    for (const auto& [key, value] : y.items())
      if (!x.contains(key)) return JsonDifference{(at / key).to_string(), "only in B"};
    return std::nullopt;
  }
  if (x.is_array()) {
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i)
      if (auto d = first_difference(x[i], y[i], at / i, o)) return d;
    if (x.size() == y.size()) return std::nullopt;
    return JsonDifference{(at / std::min(x.size(), y.size())).to_string(),
                          fmt::format("{} in B ({} items vs {})", x.size() > y.size() ? "missing" : "only", x.size(), y.size())};
  }
  if (x == y) return std::nullopt;
  return JsonDifference{at.to_string(), shown(x) + " vs " + shown(y)};
}

FileComparison compare_json(const std::string& a, const std::string& b, const CompareOptions& o) {
  const json doc_a = read_json(a), doc_b = read_json(b);
  FileComparison result;
  if (const auto d = first_difference(doc_a, doc_b, json::json_pointer(), o)) {
    result.details["first_difference"] = {{"pointer", d->pointer}, {"what", d->what}};
    result.differ(fmt::format("first difference at {}: {}", d->pointer.empty() ? "the top level" : d->pointer, d->what));
  }
  return result;
}

// ---- text ---------------------------------------------------------------------------------------

// Text files (.txt, e.g. COLMAP's cameras.txt) compare exactly, line by line.
FileComparison compare_text(const std::string& a, const std::string& b) {
  std::istringstream text_a(read_text(a)), text_b(read_text(b));
  FileComparison result;
  std::string line_a, line_b;
  for (std::size_t line = 1;; ++line) {
    const bool more_a = bool(std::getline(text_a, line_a)), more_b = bool(std::getline(text_b, line_b));
    if (!more_a && !more_b) break;
    if (more_a != more_b || line_a != line_b) {
      result.details["first_difference_line"] = line;
      result.differ(fmt::format("line {} differs: \"{}\" against \"{}\"", line, more_a ? line_a : "(end of file)",
                                more_b ? line_b : "(end of file)"));
      break;
    }
  }
  return result;
}

// ---- files and folders --------------------------------------------------------------------------

FileComparison compare_files(const std::string& a, const std::string& b, const CompareOptions& o) {
  const Kind kind = kind_of(a);
  FileComparison result;
  try {
    result = kind == Kind::csv    ? compare_csv(a, b, o)
             : kind == Kind::json ? compare_json(a, b, o)
             : kind == Kind::text ? compare_text(a, b)
                                  : compare_images(a, b, o);
  } catch (const UnreadableFile& e) {
    result = FileComparison{};
    result.details["error"] = e.what();
    result.differ(e.what());
  }
  json details{{"kind", kind_name(kind)}, {"equal", result.equal}};
  details.update(result.details);
  result.details = std::move(details);
  return result;
}

void add_file_result(CompareResult& r, const std::string& name, FileComparison file) {
  r.equal = r.equal && file.equal;
  for (auto& line : file.differences) r.differences.push_back(name + ": " + line);
  r.details["files"][name] = std::move(file.details);
}

// Relative names ("sub/a.png") of the regular files under dir; hidden files and folders (the
// temporaries of interrupted writes, .git) are skipped.
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
  json only_in_a = json::array(), only_in_b = json::array();
  r.details["files"] = json::object();
  for (const auto& name : names_a) {
    if (names_b.count(name)) add_file_result(r, name, compare_files((fs::path(a) / name).string(), (fs::path(b) / name).string(), o));
    else only_in_a.push_back(name);
  }
  for (const auto& name : names_b)
    if (!names_a.count(name)) only_in_b.push_back(name);
  for (const auto& name : only_in_a) r.differences.push_back(name.get<std::string>() + ": only in " + a);
  for (const auto& name : only_in_b) r.differences.push_back(name.get<std::string>() + ": only in " + b);
  r.equal = r.equal && only_in_a.empty() && only_in_b.empty();
  r.details["only_in_a"] = std::move(only_in_a);
  r.details["only_in_b"] = std::move(only_in_b);
}

void check_options(const CompareOptions& o) {
  if (!(o.tolerance >= 0)) throw UsageError(fmt::format("--tolerance must be 0 or more, got {}", o.tolerance));
  if (!(o.relative_tolerance >= 0))
    throw UsageError(fmt::format("--relative-tolerance must be 0 or more, got {}", o.relative_tolerance));
  if (!(o.min_psnr_db >= 0)) throw UsageError(fmt::format("--min-psnr must be 0 or more, got {}", o.min_psnr_db));
}

}  // namespace

CompareResult compare_paths(const std::string& a, const std::string& b, const CompareOptions& options) {
  check_options(options);
  std::error_code ec;
  for (const auto& p : {a, b})
    if (!fs::exists(p, ec)) throw UsageError(p + ": no such file or folder");
  const bool folders = fs::is_directory(a, ec);
  if (folders != fs::is_directory(b, ec))
    throw UsageError("compare: " + a + " and " + b + " must both be files or both be folders");
  if (!folders && kind_of(a) != kind_of(b))
    throw UsageError(fmt::format("compare: {} is {} and {} is {}; compare files of the same kind", a,
                                 kind_name(kind_of(a)), b, kind_name(kind_of(b))));

  CompareResult r;
  r.details = {{"a", a}, {"b", b}, {"tolerance", options.tolerance}, {"relative_tolerance", options.relative_tolerance},
               {"min_psnr_db", options.min_psnr_db},
               {"equal", true}, {"files", json::object()}};
  if (folders) compare_folders(a, b, options, r);
  else add_file_result(r, a, compare_files(a, b, options));
  r.details["equal"] = r.equal;
  return r;
}

}  // namespace gp::io

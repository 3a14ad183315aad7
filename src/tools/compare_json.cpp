// JSON documents and JSON lines (segment-pnm's network.json and summary.json, track-faces' JSONL
// and summaries, stitch-360's cameras.json, segment-body's frame manifests): the first difference
// by JSON pointer; key order does not matter, numbers compare within the tolerances.
#include <fmt/format.h>

#include <sstream>

#include "core/text.hpp"
#include "tools/compare_parts.hpp"

namespace gp::tools::compare {
namespace {

// Deeper documents are refused: comparing and printing them recurses once per level.
constexpr int max_nesting = 1000;

bool is_json_lines(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  return ext == ".jsonl" || ext == ".ndjson";
}

// The deepest nesting of arrays and objects in the text (brackets inside strings do not count).
int nesting(const std::string& text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

json read_json(const std::string& path) {
  const std::string text = read_text(path);
  if (nesting(text) > max_nesting)
    throw Uncomparable(fmt::format("{}: JSON nested more than {} levels deep", path, max_nesting));
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
        throw Uncomparable(fmt::format("{}: line {}: invalid JSON: {}", path, number, clipped(e.what(), 200)));
      }
    }
    return lines;
  } catch (const json::exception& e) {
    throw Uncomparable(fmt::format("{}: invalid JSON: {}", path, clipped(e.what(), 200)));
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
    const auto ignored = [&o](const std::string& key) {
      return std::find(o.ignored_keys.begin(), o.ignored_keys.end(), key) != o.ignored_keys.end();
    };
    for (const auto& [key, value] : x.items()) {
      if (ignored(key)) continue;
      const json::json_pointer p = at / key;
      if (!y.contains(key)) return JsonDifference{p.to_string(), "missing in B"};
      if (auto d = first_difference(value, y[key], p, o)) return d;
    }
    for (const auto& [key, value] : y.items())
      if (!x.contains(key) && !ignored(key)) return JsonDifference{(at / key).to_string(), "only in B"};
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

}  // namespace

FileComparison compare_json(const std::string& a, const std::string& b, const CompareOptions& o) {
  const json doc_a = read_json(a), doc_b = read_json(b);
  FileComparison result;
  if (const auto d = first_difference(doc_a, doc_b, json::json_pointer(), o)) {
    result.details["first_difference"] = {{"pointer", d->pointer}, {"what", d->what}};
    result.differ(fmt::format("first difference at {}: {}", d->pointer.empty() ? "the top level" : d->pointer, d->what));
  }
  return result;
}

}  // namespace gp::tools::compare

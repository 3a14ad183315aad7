#include "core/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"
#include "core/file_checks.hpp"
#include "core/text.hpp"

namespace gp::config {
namespace {

using pointer = json::json_pointer;

// Field::min/max defaults: anything beyond these means "no bound".
constexpr double unbounded = 1e307;

// ---- small text helpers -------------------------------------------------------------------------

// A user value as JSON text for messages, shortened (without splitting a UTF-8 sequence). The
// value nests at most max_json_depth levels (parse_bounded, apply_override), so dump's recursion
// is bounded; its size is not, but a message is built only for the few problems reported.
std::string shown(const json& value) {
  // Values set with --set may hold invalid UTF-8: replace rather than throw while reporting.
  return clipped(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

std::string number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::string parent_of(const std::string& p) { return p.substr(0, p.find_last_of('/')); }
std::string key_of(const std::string& p) { return p.substr(p.find_last_of('/') + 1); }

// True when `p` is `ancestor` or lies below it.
bool is_within(const std::string& p, const std::string& ancestor) {
  return p == ancestor || (p.size() > ancestor.size() && p.compare(0, ancestor.size(), ancestor) == 0 &&
                           p[ancestor.size()] == '/');
}

// ---- what a field accepts -----------------------------------------------------------------------

bool has_range(const Field& f) { return f.min > -unbounded || f.max < unbounded; }

std::string range_text(const Field& f) { return number_text(f.min) + ".." + number_text(f.max); }

// Integers may be written 3 or 3.0, not 3.5 (and booleans are never numbers).
bool is_whole(const json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d);
}

bool in_range(const Field& f, const json& v) {
  const double d = v.get<double>();
  return d >= f.min && d <= f.max;
}

bool is_string_list(const json& v) {
  return v.is_array() && std::all_of(v.begin(), v.end(), [](const json& item) { return item.is_string(); });
}

bool accepts(const Field& f, const json& v) {
  switch (f.type) {
    case Type::boolean: return v.is_boolean();
    case Type::integer: return is_whole(v) && in_range(f, v);
    case Type::number: return v.is_number() && std::isfinite(v.get<double>()) && in_range(f, v);
    case Type::string:
      return v.is_string() &&
             (f.choices.empty() || std::find(f.choices.begin(), f.choices.end(), v.get<std::string>()) != f.choices.end());
    case Type::string_list: return is_string_list(v);
    case Type::object: return v.is_object();
  }
  return false;
}

// What the field expects, as in "expected integer 1..100".
std::string expectation(const Field& f) {
  switch (f.type) {
    case Type::boolean: return "true or false";
    case Type::integer: return has_range(f) ? "integer " + range_text(f) : "integer";
    case Type::number: return has_range(f) ? "number " + range_text(f) : "number";
    case Type::string: return f.choices.empty() ? "a string" : "one of " + join(f.choices, ", ");
    case Type::string_list: return "a list of strings";
    case Type::object: return "an object";
  }
  return "";
}

bool is_required(const Field& f) { return f.type != Type::object && f.default_value.is_null(); }

// ---- validation helpers -------------------------------------------------------------------------

// Collects "source: /pointer: what" lines; all of them are thrown together (the first
// max_lines, then how many more: a config of a million unknown keys gives a short message).
class Problems {
 public:
  explicit Problems(std::string source) : source_(std::move(source)) {}
  void add(const std::string& at, const std::string& what) {
    if (++count_ <= max_lines) lines_.push_back(source_ + ": " + clipped(at, 200) + ": " + what);
  }
  void throw_if_any() const {
    if (count_ == 0) return;
    std::string message = join(lines_, "\n");
    if (count_ > max_lines) message += fmt::format("\n{}: ... and {} more problems", source_, count_ - max_lines);
    throw UsageError(message);
  }

 private:
  static constexpr std::size_t max_lines = 50;
  std::string source_;
  std::vector<std::string> lines_;
  std::size_t count_ = 0;
};

std::vector<std::string> child_keys(const std::vector<Field>& fields, const std::string& parent) {
  std::vector<std::string> keys;
  for (const auto& f : fields)
    if (parent_of(f.pointer) == parent) keys.push_back(key_of(f.pointer));
  if (parent.empty()) keys.push_back("command");
  return keys;
}

const Field* find_field(const std::vector<Field>& fields, const std::string& p) {
  auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.pointer == p; });
  return it == fields.end() ? nullptr : &*it;
}

// Reports the keys of `object` (at pointer `at`) that the schema does not know, in document order,
// descending into known sub-objects.
void report_unknown_keys(const std::vector<Field>& fields, const json& object, const std::string& at,
                         Problems& problems) {
  const std::vector<std::string> known = child_keys(fields, at);
  for (const auto& [key, value] : object.items()) {
    const std::string p = (pointer(at) / key).to_string();  // escapes ~ and /
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      const std::string guess = did_you_mean(key, known);
      problems.add(p, guess.empty() ? "unknown key" : "unknown key (did you mean \"" + guess + "\"?)");
      continue;
    }
    const Field* f = find_field(fields, p);
    if (f && f->type == Type::object && value.is_object()) report_unknown_keys(fields, value, p, problems);
  }
}

void check_command(const json& user, const std::string& command, Problems& problems) {
  if (!user.contains("command")) return;
  const json& given = user["command"];
  if (!given.is_string()) problems.add("/command", "expected \"" + command + "\", got " + shown(given));
  else if (given.get<std::string>() != command)
    problems.add("/command", "this config is for " + clipped(given.get<std::string>()) + ", not " + command);
}

// ---- documented example -------------------------------------------------------------------------

// The comment above a field: its doc plus what the reader needs to pick a valid value.
std::string field_comment(const Field& f) {
  std::vector<std::string> notes;
  if ((f.type == Type::integer || f.type == Type::number) && has_range(f)) notes.push_back(expectation(f));
  if (!f.choices.empty()) notes.push_back(expectation(f));
  if (is_required(f)) notes.push_back("required");
  std::string comment = f.doc;
  if (!notes.empty()) comment += (comment.empty() ? "(" : " (") + join(notes, "; ") + ")";
  return comment;
}

void write_comment(std::ostream& out, const std::string& indent, const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out << indent << "// " << line << "\n";
}

// Writes the members of the object at `parent` (declaration order), one level deeper than `indent`.
void write_example_members(std::ostream& out, const std::vector<Field>& fields, const std::string& parent,
                           const std::string& indent) {
  std::vector<const Field*> members;
  for (const auto& f : fields)
    if (parent_of(f.pointer) == parent) members.push_back(&f);
  const std::string inner = indent + "  ";
  for (std::size_t i = 0; i < members.size(); ++i) {
    const Field& f = *members[i];
    write_comment(out, inner, field_comment(f));
    out << inner << json(key_of(f.pointer)).dump() << ": ";
    if (f.type == Type::object) {
      out << "{\n";
      write_example_members(out, fields, f.pointer, inner);
      out << inner << "}";
    } else {
      // A required list has no default; an empty one keeps the example valid and shows the type.
      out << (f.default_value.is_null() ? json::array() : f.default_value).dump();
    }
    out << (i + 1 < members.size() ? ",\n" : "\n");
  }
}

// ---- config files -------------------------------------------------------------------------------

// nlohmann's reason ends with "; last read: '<token>'", the whole token however long (a 5 MB
// string): keep the token's end, where the error is.
std::string shortened_reason(const std::string& reason) {
  static const std::string marker = "; last read: '";
  constexpr std::size_t kept = 40;
  const std::size_t at = reason.find(marker);
  if (at == std::string::npos) return clipped(reason, 300);
  std::string token = reason.substr(at + marker.size());
  if (token.size() > kept) {
    std::size_t cut = token.size() - kept;
    while (cut < token.size() && (static_cast<unsigned char>(token[cut]) & 0xC0) == 0x80) ++cut;
    token = "..." + token.substr(cut);
  }
  return clipped(reason.substr(0, at), 300) + marker + token;
}

// "path:line:column: invalid JSON: <reason>", with nlohmann's own position when it gives one.
// (No std::regex: libstdc++'s recursion over a message holding a 5 MB token overflowed the stack.)
std::string syntax_error_message(const std::string& path, const std::string& text, const json::parse_error& e) {
  const std::string what = e.what();
  const std::size_t at = what.find("parse error at line ");
  unsigned long line = 0, column = 0;
  int reason_start = 0;
  if (at != std::string::npos &&
      std::sscanf(what.c_str() + at, "parse error at line %lu, column %lu: %n", &line, &column, &reason_start) == 2 &&
      reason_start > 0)
    return fmt::format("{}:{}:{}: invalid JSON: {}", path, line, column, shortened_reason(what.substr(at + reason_start)));
  // No position in the message: count lines up to the last byte read (e.byte is 1-based).
  line = 1, column = 1;
  for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
    column = text[i] == '\n' ? 1 : column + 1;
    line += text[i] == '\n';
  }
  return fmt::format("{}:{}:{}: invalid JSON: {}", path, line, column, shortened_reason(what));
}

// ---- overrides ----------------------------------------------------------------------------------

// "a~1b" -> "a/b", "a~0b" -> "a~b"; false for any other "~".
bool unescape_pointer_token(std::string& token) {
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '~') {
      out += token[i];
      continue;
    }
    if (i + 1 == token.size() || (token[i + 1] != '0' && token[i + 1] != '1')) return false;
    out += token[++i] == '0' ? '~' : '/';
  }
  token = out;
  return true;
}

// "a.b.c" or "/a/b/c" (JSON pointer escapes ~0 ~1 honoured) as the keys to follow.
// `source` ("--set <assignment>") starts the messages.
std::vector<std::string> override_keys(const std::string& path, const std::string& source) {
  const bool is_pointer = path[0] == '/';
  const char separator = is_pointer ? '/' : '.';
  std::vector<std::string> keys;
  std::size_t start = is_pointer ? 1 : 0;
  while (true) {
    const std::size_t end = path.find(separator, start);
    std::string key = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (key.empty()) throw UsageError(source + ": empty key in \"" + clipped(path) + "\"");
    if (is_pointer && !unescape_pointer_token(key))
      throw UsageError(source + ": bad escape in \"" + clipped(path) + "\" (~0 is ~, ~1 is /)");
    keys.push_back(key);
    if (end == std::string::npos) return keys;
    start = end + 1;
  }
}

// JSON when it parses, else the text; the keys above it count towards the depth limit.
json override_value(const std::string& text, const std::string& source, std::size_t keys) {
  try {
    return parse_bounded(text, source, false, max_json_depth, int(keys));
  } catch (const json::exception&) {  // parse_error, or out_of_range for 1e999
    return text;                      // plain words are strings: --set tonemap.operator=agx
  }
}

}  // namespace

// ---- schema building ----------------------------------------------------------------------------

const Field* Schema::find(const std::string& p) const { return find_field(fields_, p); }

Schema& Schema::add(Field field) {
  const std::string parent = parent_of(field.pointer);
  if (!parent.empty() && !find(parent)) object(parent, "");
  if (find(field.pointer)) throw std::logic_error("config schema: " + field.pointer + " declared twice");
  if (!field.default_value.is_null() && !accepts(field, field.default_value))
    throw std::logic_error("config schema: the default of " + field.pointer + " is not " + expectation(field));
  fields_.push_back(std::move(field));
  return *this;
}

Schema& Schema::object(const std::string& p, const std::string& doc) {
  // Children may have declared it implicitly (without a doc) already.
  auto existing = std::find_if(fields_.begin(), fields_.end(), [&](const Field& f) { return f.pointer == p; });
  if (existing != fields_.end() && existing->type == Type::object) {
    if (existing->doc.empty()) existing->doc = doc;
    return *this;
  }
  Field f;
  f.pointer = p;
  f.type = Type::object;
  f.default_value = json::object();
  f.doc = doc;
  return add(std::move(f));
}

namespace {
Field make_field(const std::string& p, Type type, json default_value, const std::string& doc) {
  Field f;
  f.pointer = p;
  f.type = type;
  f.default_value = std::move(default_value);
  f.doc = doc;
  return f;
}
}  // namespace

Schema& Schema::boolean(const std::string& p, bool def, const std::string& doc) {
  return add(make_field(p, Type::boolean, def, doc));
}

Schema& Schema::integer(const std::string& p, long long def, long long min, long long max, const std::string& doc) {
  Field f = make_field(p, Type::integer, def, doc);
  f.min = double(min);
  f.max = double(max);
  return add(std::move(f));
}

Schema& Schema::number(const std::string& p, double def, double min, double max, const std::string& doc) {
  Field f = make_field(p, Type::number, def, doc);
  f.min = min;
  f.max = max;
  return add(std::move(f));
}

Schema& Schema::string(const std::string& p, const std::string& def, const std::string& doc) {
  return add(make_field(p, Type::string, def, doc));
}

Schema& Schema::choice(const std::string& p, const std::string& def, std::vector<std::string> choices,
                       const std::string& doc) {
  Field f = make_field(p, Type::string, def, doc);
  f.choices = std::move(choices);
  return add(std::move(f));
}

Schema& Schema::string_list(const std::string& p, std::vector<std::string> def, const std::string& doc) {
  return add(make_field(p, Type::string_list, json(def), doc));
}

Schema& Schema::required_string_list(const std::string& p, const std::string& doc) {
  return add(make_field(p, Type::string_list, nullptr, doc));
}

// ---- validation ---------------------------------------------------------------------------------

json Schema::validate(const json& user, const std::string& source) const {
  if (!user.is_object()) throw UsageError(source + ": expected a JSON object at the top level, got " + shown(user));
  Problems problems(source);
  report_unknown_keys(fields_, user, "", problems);
  check_command(user, command_, problems);

  // Built in declaration order, so the completed config reads like the documented example.
  json completed = json::object();
  completed["command"] = command_;
  std::vector<std::string> unusable_objects;  // reported already; their members are not checked
  for (const Field& f : fields_) {
    const bool below_unusable = std::any_of(unusable_objects.begin(), unusable_objects.end(),
                                            [&](const std::string& o) { return is_within(f.pointer, o); });
    if (below_unusable) continue;
    const pointer at(f.pointer);
    if (!user.contains(at)) {
      if (is_required(f)) problems.add(f.pointer, "required");
      else completed[at] = f.default_value;
      continue;
    }
    const json& value = user.at(at);
    if (!accepts(f, value)) {
      problems.add(f.pointer, "expected " + expectation(f) + ", got " + shown(value));
      if (f.type == Type::object) unusable_objects.push_back(f.pointer);
      continue;
    }
    if (f.type == Type::object) completed[at] = json::object();  // members follow
    else if (f.type == Type::integer && value.is_number_float()) completed[at] = static_cast<long long>(value.get<double>());
    else completed[at] = value;
  }
  problems.throw_if_any();
  return completed;
}

// ---- documented example -------------------------------------------------------------------------

std::string Schema::documented_example() const {
  std::ostringstream out;
  out << "// gpuproc " << command_ << " job config: every field with its default value.\n"
      << "// Comments like these are allowed in config files; unknown keys are errors.\n"
      << "{\n"
      << "  // the subcommand this config is for\n"
      << "  \"command\": " << json(command_).dump() << (fields_.empty() ? "\n" : ",\n");
  write_example_members(out, fields_, "", "");
  out << "}\n";
  return out.str();
}

// ---- files and overrides ------------------------------------------------------------------------

json load_file(const std::string& path) {
  const std::string text = read_text_file(path, max_config_bytes, "config file");
  try {
    return parse_bounded(text, path, /*comments=*/true);
  } catch (const json::parse_error& e) {
    throw UsageError(syntax_error_message(path, text, e));
  } catch (const json::out_of_range& e) {  // a number past double's range (1e999), found by fuzz_config
    throw UsageError(path + ": " + clipped(e.what(), 160));
  }
}

void apply_override(json& config, const std::string& assignment) {
  const std::string source = "--set " + clipped(assignment);
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw UsageError(source + ": expected key.path=value");
  const std::string path = assignment.substr(0, eq);
  const std::vector<std::string> keys = override_keys(path, source);
  if (keys.size() > std::size_t(max_json_depth))
    throw UsageError(fmt::format("{}: {} keys; the limit is {} levels", source, keys.size(), max_json_depth));
  // Parsed before the config changes, so that a refused value leaves it as it was.
  json value = override_value(assignment.substr(eq + 1), source, keys.size());

  if (config.is_null()) config = json::object();
  if (!config.is_object()) throw UsageError(source + ": the config is not a JSON object");
  // Find (or plan) the path first: a refusal must not leave created objects behind.
  json* node = &config;
  pointer at;
  std::size_t i = 0;
  for (; i + 1 < keys.size() && node->contains(keys[i]); ++i) {
    at /= keys[i];
    json& next = (*node)[keys[i]];
    // Replacing a value with an object would silently drop a setting: refuse.
    if (!next.is_object() && !next.is_null())
      throw UsageError(source + ": " + clipped(at.to_string(), 200) + " is not an object");
    if (next.is_null()) next = json::object();
    node = &next;
  }
  for (; i + 1 < keys.size(); ++i) node = &((*node)[keys[i]] = json::object());
  (*node)[keys.back()] = std::move(value);
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  // Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps.
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    return d[a.size()][b.size()];
  };
  const std::string w = lowercase(word);
  std::string best;
  std::size_t best_distance = 0;
  for (const auto& candidate : candidates) {
    const std::size_t allowed = std::max<std::size_t>(1, std::max(word.size(), candidate.size()) / 3);
    // The distance is at least the difference in length: skipping those keeps a user's 10 MB key
    // from costing a 10 MB x key-length table.
    const std::size_t length_difference = word.size() > candidate.size() ? word.size() - candidate.size()
                                                                          : candidate.size() - word.size();
    if (length_difference > allowed) continue;
    const std::size_t dist = distance(w, lowercase(candidate));
    if (dist <= allowed && (best.empty() || dist < best_distance)) best = candidate, best_distance = dist;
  }
  return best;
}

}  // namespace gp::config

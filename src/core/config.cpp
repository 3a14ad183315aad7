#include "core/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"

namespace gp::config {
namespace {

using pointer = json::json_pointer;

std::string shown(const json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::string number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

bool is_whole(const json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d);
}

// What is wrong with `value` for `field`, or "" when it is fine.
std::string check_value(const Field& f, const json& value) {
  auto range = [&](const char* what) {
    if (f.min <= -1e307 && f.max >= 1e307) return std::string("expected ") + what;
    return fmt::format("expected {} {}..{}", what, number_text(f.min), number_text(f.max));
  };
  switch (f.type) {
    case Type::boolean:
      return value.is_boolean() ? "" : "expected true or false";
    case Type::integer:
      if (!is_whole(value) || value.is_boolean()) return range("integer");
      if (value.get<double>() < f.min || value.get<double>() > f.max) return range("integer");
      return "";
    case Type::number:
      if (!value.is_number() || value.is_boolean()) return range("number");
      if (!std::isfinite(value.get<double>()) || value.get<double>() < f.min || value.get<double>() > f.max)
        return range("number");
      return "";
    case Type::string:
      if (!value.is_string()) return f.choices.empty() ? "expected a string" : "expected one of " + join(f.choices, ", ");
      if (!f.choices.empty() && std::find(f.choices.begin(), f.choices.end(), value.get<std::string>()) == f.choices.end())
        return "expected one of " + join(f.choices, ", ");
      return "";
    case Type::string_list:
      if (!value.is_array()) return "expected a list of strings";
      for (auto& item : value)
        if (!item.is_string()) return "expected a list of strings";
      return "";
    case Type::object:
      return value.is_object() ? "" : "expected an object";
  }
  return "";
}

// Pointer of the parent object ("" for the root).
std::string parent_of(const std::string& p) { return p.substr(0, p.find_last_of('/')); }
std::string key_of(const std::string& p) { return p.substr(p.find_last_of('/') + 1); }

}  // namespace

// ---- schema building ----------------------------------------------------------------------------

const Field* Schema::find(const std::string& p) const {
  for (auto& f : fields_)
    if (f.pointer == p) return &f;
  return nullptr;
}

Schema& Schema::object(const std::string& p, const std::string& doc) {
  if (!find(p)) {
    Field f;
    f.pointer = p;
    f.type = Type::object;
    f.default_value = json::object();
    f.doc = doc;
    fields_.push_back(f);
  }
  return *this;
}

namespace {
Field make_field(const std::string& p, Type t, json def, const std::string& doc) {
  Field f;
  f.pointer = p;
  f.type = t;
  f.default_value = std::move(def);
  f.doc = doc;
  return f;
}
}  // namespace

#define GP_ADD_FIELD(f)                                            \
  do {                                                             \
    const std::string parent = parent_of((f).pointer);             \
    if (!parent.empty() && !find(parent)) object(parent, "");      \
    fields_.push_back(f);                                          \
  } while (0)

Schema& Schema::boolean(const std::string& p, bool def, const std::string& doc) {
  GP_ADD_FIELD(make_field(p, Type::boolean, def, doc));
  return *this;
}

Schema& Schema::integer(const std::string& p, long long def, long long min, long long max, const std::string& doc) {
  Field f = make_field(p, Type::integer, def, doc);
  f.min = double(min);
  f.max = double(max);
  GP_ADD_FIELD(f);
  return *this;
}

Schema& Schema::number(const std::string& p, double def, double min, double max, const std::string& doc) {
  Field f = make_field(p, Type::number, def, doc);
  f.min = min;
  f.max = max;
  GP_ADD_FIELD(f);
  return *this;
}

Schema& Schema::string(const std::string& p, const std::string& def, const std::string& doc) {
  GP_ADD_FIELD(make_field(p, Type::string, def, doc));
  return *this;
}

Schema& Schema::choice(const std::string& p, const std::string& def, std::vector<std::string> choices,
                       const std::string& doc) {
  Field f = make_field(p, Type::string, def, doc);
  f.choices = std::move(choices);
  GP_ADD_FIELD(f);
  return *this;
}

Schema& Schema::string_list(const std::string& p, std::vector<std::string> def, const std::string& doc) {
  GP_ADD_FIELD(make_field(p, Type::string_list, json(def), doc));
  return *this;
}

Schema& Schema::required_string_list(const std::string& p, const std::string& doc) {
  GP_ADD_FIELD(make_field(p, Type::string_list, nullptr, doc));
  return *this;
}

#undef GP_ADD_FIELD

// ---- validation ---------------------------------------------------------------------------------

json Schema::validate(const json& user, const std::string& source) const {
  std::vector<std::string> problems;
  auto problem = [&](const std::string& p, const std::string& what) { problems.push_back(source + ": " + p + ": " + what); };
  if (!user.is_object()) throw UsageError(source + ": expected a JSON object at the top level");

  // Unknown keys, walking the user's objects against the schema's children.
  std::map<std::string, std::vector<std::string>> children;  // parent pointer -> keys
  for (auto& f : fields_) children[parent_of(f.pointer)].push_back(key_of(f.pointer));
  children[""].push_back("command");
  std::vector<std::pair<std::string, const json*>> stack{{"", &user}};
  while (!stack.empty()) {
    auto [at, obj] = stack.back();
    stack.pop_back();
    const auto& known = children[at];
    for (auto& [key, value] : obj->items()) {
      const std::string p = at + "/" + key;
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        const std::string guess = did_you_mean(key, known);
        problem(p, guess.empty() ? "unknown key" : "unknown key (did you mean \"" + guess + "\"?)");
        continue;
      }
      const Field* f = find(p);
      if (f && f->type == Type::object && value.is_object()) stack.push_back({p, &value});
    }
  }

  if (user.contains("command") && (!user["command"].is_string() || user["command"].get<std::string>() != command_)) {
    const std::string got = user["command"].is_string() ? user["command"].get<std::string>() : shown(user["command"]);
    problem("/command", "this config is for " + got + ", not " + command_);
  }

  json out = user;
  out["command"] = command_;
  for (auto& f : fields_) {
    const pointer ptr(f.pointer);
    // A parent that is not an object was already reported; do not pile up messages under it.
    const std::string parent = parent_of(f.pointer);
    if (!parent.empty() && out.contains(pointer(parent)) && !out.at(pointer(parent)).is_object()) continue;
    if (!out.contains(ptr)) {
      if (f.default_value.is_null()) problem(f.pointer, "required");
      else out[ptr] = f.default_value;
      continue;
    }
    const json& value = out.at(ptr);
    const std::string what = check_value(f, value);
    if (!what.empty()) problem(f.pointer, what + ", got " + shown(value));
    else if (f.type == Type::integer && value.is_number_float()) out[ptr] = static_cast<long long>(value.get<double>());
  }
  if (!problems.empty()) throw UsageError(join(problems, "\n"));
  // Keep the schema's key order (user key order is irrelevant; the report shows it this way).
  json ordered = json::object();
  ordered["command"] = command_;
  for (auto& f : fields_) ordered[pointer(f.pointer)] = out.at(pointer(f.pointer));
  return ordered;
}

// ---- documented example -------------------------------------------------------------------------

std::string Schema::documented_example() const {
  std::ostringstream out;
  out << "// gpuproc " << command_ << " job config: every field with its default.\n"
      << "// Fields marked (required) have no default. Comments are allowed in config files.\n";
  // Emit objects recursively in declaration order.
  std::function<void(const std::string&, int)> emit = [&](const std::string& parent, int depth) {
    std::vector<const Field*> kids;
    for (auto& f : fields_)
      if (parent_of(f.pointer) == parent) kids.push_back(&f);
    const std::string pad(2 * depth, ' ');
    if (parent.empty()) {
      out << "{\n" << pad << "  \"command\": \"" << command_ << "\",\n";
    }
    for (std::size_t i = 0; i < kids.size(); ++i) {
      const Field& f = *kids[i];
      std::string doc = f.doc;
      if (f.type == Type::integer || f.type == Type::number)
        if (f.min > -1e307 || f.max < 1e307) doc += "; " + number_text(f.min) + ".." + number_text(f.max);
      if (!f.choices.empty()) doc += " [" + join(f.choices, ", ") + "]";
      if (f.type != Type::object && f.default_value.is_null()) doc += " (required)";
      if (!doc.empty()) out << pad << "  // " << doc << "\n";
      out << pad << "  \"" << key_of(f.pointer) << "\": ";
      if (f.type == Type::object) {
        out << "{\n";
        emit(f.pointer, depth + 1);
        out << pad << "  }";
      } else if (f.default_value.is_null()) {
        out << "[]";
      } else {
        out << f.default_value.dump();
      }
      out << (i + 1 < kids.size() ? ",\n" : "\n");
    }
    if (parent.empty()) out << "}\n";
  };
  emit("", 0);
  return out.str();
}

// ---- files and overrides ------------------------------------------------------------------------

json load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(path + ": cannot open the config file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  try {
    return json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    // Turn the byte offset into line:column.
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    const auto colon = what.rfind(": ");
    throw UsageError(fmt::format("{}:{}:{}: invalid JSON: {}", path, line, column,
                                 colon == std::string::npos ? what : what.substr(colon + 2)));
  }
}

void apply_override(json& config, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError("--set " + assignment + ": expected key.path=value");
  std::string key = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  if (key[0] != '/') {
    std::replace(key.begin(), key.end(), '.', '/');
    key = "/" + key;
  }
  if (key.find("//") != std::string::npos || key.back() == '/')
    throw UsageError("--set " + assignment + ": empty key in \"" + assignment.substr(0, eq) + "\"");
  json value;
  try {
    value = json::parse(text);
  } catch (const json::parse_error&) {
    value = text;  // plain words are strings: --set tonemap.operator=agx
  }
  if (!config.is_object()) config = json::object();
  // Intermediate levels must be objects; replace nothing else silently.
  std::string at;
  std::size_t pos = 1;
  while (true) {
    const auto next = key.find('/', pos);
    if (next == std::string::npos) break;
    at = key.substr(0, next);
    const pointer ptr(at);
    if (config.contains(ptr) && !config.at(ptr).is_object())
      throw UsageError("--set " + assignment + ": " + at + " is not an object");
    pos = next + 1;
  }
  try {
    config[pointer(key)] = value;
  } catch (const json::exception& e) {
    throw UsageError("--set " + assignment + ": " + e.what());
  }
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  // Damerau-Levenshtein (optimal string alignment) distance.
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = int(i);
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = int(j);
    for (std::size_t i = 1; i <= a.size(); ++i)
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const int cost = std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1;
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    return d[a.size()][b.size()];
  };
  std::string best;
  int best_distance = 1 << 30;
  for (auto& c : candidates) {
    const int dist = distance(word, c);
    if (dist < best_distance) {
      best_distance = dist;
      best = c;
    }
  }
  // Close means at most a third of the longer word changed (and at least one edit allowed).
  const int allowed = std::max<int>(1, int(std::max(word.size(), best.size()) / 3));
  return best_distance <= allowed ? best : "";
}

}  // namespace gp::config

#pragma once
// Job configs: one JSON file per job (// and /* */ comments allowed), validated against a schema
// before any work starts. The schema also produces the documented example (`--print-config`).
//
// Error format (one line per problem, all problems reported at once):
//   config.json: /output/quality: expected integer 1..100, got "high"
//   config.json: /output/qualty: unknown key (did you mean "quality"?)
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/error.hpp"

namespace gp::config {

using json = nlohmann::ordered_json;

// The deepest nesting of arrays and objects accepted in JSON from users (configs, --set values,
// reports, files to compare). Our deepest config field is 4 levels down and our reports nest
// fewer than 10; 100 is Ruby's JSON default, and keeps every recursive walk of a value (dump,
// comparison, conversion) far from the stack's end: nlohmann's serializer crashed at 100,000.
inline constexpr int max_json_depth = 100;

// Parses `text` (JSON; // and /* */ comments when `comments`) with at most `max_depth` nested
// arrays and objects, counting `levels_above` that will hold the value: deeper throws
// gp::UsageError "<source>: nested more than N levels deep ...", before the deep value exists.
// Syntax errors throw Json::parse_error as Json::parse does.
template <class Json = json>
Json parse_bounded(const std::string& text, const std::string& source, bool comments = false,
                   int max_depth = max_json_depth, int levels_above = 0) {
  using event = typename Json::parse_event_t;
  // The callback's depth is the number of arrays and objects around the one that starts.
  const typename Json::parser_callback_t limit = [&](int depth, event e, Json&) {
    if ((e == event::object_start || e == event::array_start) && levels_above + depth >= max_depth)
      throw UsageError(source + ": nested more than " + std::to_string(max_depth) +
                       " levels deep (arrays and objects inside each other)");
    return true;
  };
  return Json::parse(text, limit, /*allow_exceptions=*/true, comments);
}

enum class Type { boolean, integer, number, string, string_list, object };

struct Field {
  std::string pointer;        // JSON pointer, e.g. "/output/quality"
  Type type = Type::string;
  json default_value;         // null = required (for non-objects)
  std::string doc;            // one line; shown in --print-config
  double min = -1e308, max = 1e308;      // integer/number range (inclusive)
  std::vector<std::string> choices;      // string: allowed values (empty = any)
};

class Schema {
 public:
  explicit Schema(std::string command) : command_(std::move(command)) {}
  const std::string& command() const { return command_; }

  // Builders; parents of a pointer are declared as objects implicitly (doc via object()).
  Schema& object(const std::string& pointer, const std::string& doc);
  Schema& boolean(const std::string& pointer, bool def, const std::string& doc);
  Schema& integer(const std::string& pointer, long long def, long long min, long long max, const std::string& doc);
  Schema& number(const std::string& pointer, double def, double min, double max, const std::string& doc);
  Schema& string(const std::string& pointer, const std::string& def, const std::string& doc);
  Schema& choice(const std::string& pointer, const std::string& def, std::vector<std::string> choices,
                 const std::string& doc);
  Schema& string_list(const std::string& pointer, std::vector<std::string> def, const std::string& doc);
  Schema& required_string_list(const std::string& pointer, const std::string& doc);

  const std::vector<Field>& fields() const { return fields_; }
  const Field* find(const std::string& pointer) const;

  // Checks `user` (source = file name used in messages) and returns it completed with defaults,
  // in the schema's key order. Integers written as 3.0 become 3. The top-level "command" key must
  // equal command() when present. Throws gp::UsageError listing every problem, one per line.
  json validate(const json& user, const std::string& source) const;

  // A complete example config: every field with its default and its doc (plus range, choices or
  // "required") as a // comment. It loads with load_file and validates as is.
  std::string documented_example() const;

 private:
  // Appends a field, declaring its parent objects first; throws std::logic_error on a duplicate
  // pointer or a default the field itself would reject (a bug in the command's schema).
  Schema& add(Field field);

  std::string command_;
  std::vector<Field> fields_;  // in declaration order
};

// A field of a validated config (every field is present, defaults filled in), e.g.
// value_at<int>(config, "/output/quality").
template <class T>
T value_at(const json& config, const std::string& pointer) {
  return config.at(json::json_pointer(pointer)).get<T>();
}

// Reads a JSON config file (comments allowed). Throws gp::UsageError naming the file: missing,
// not a regular file (a FIFO, a device, a folder), larger than max_config_bytes, nested deeper
// than max_json_depth, unreadable, or "path:line:column: invalid JSON: ..." for a syntax error.
json load_file(const std::string& path);

// Applies `--set key.path=value` (dots, or a JSON pointer when it starts with "/"). The value is
// parsed as JSON when it parses (numbers, true/false, arrays, "quoted"), else taken as a string.
// Missing intermediate objects are created. Throws gp::UsageError on bad syntax, when an
// intermediate level exists and is not an object, or when the keys and the value together nest
// deeper than max_json_depth. Messages quote the assignment shortened.
void apply_override(json& config, const std::string& assignment);

// The closest of `candidates` to `word` by case-insensitive Damerau-Levenshtein distance, or ""
// when none is close (at most one edit per three characters of the longer word, at least one).
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace gp::config

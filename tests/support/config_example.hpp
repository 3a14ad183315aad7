#pragma once
// A subcommand's documented example config (configs/<command>.json): it validates, sets every
// field of the schema, and carries each field's doc text as a comment.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/config.hpp"
#include "support/test_data.hpp"
#include "support/text_files.hpp"

namespace gp::test {

// Leaf pointers of a JSON object ("/output/quality").
inline void collect_leaves(const config::json& j, const std::string& prefix, std::set<std::string>& out) {
  for (auto& [k, v] : j.items()) {
    if (v.is_object())
      collect_leaves(v, prefix + "/" + k, out);
    else
      out.insert(prefix + "/" + k);
  }
}

// Returns the validated config (for the subcommand's read_settings).
inline config::json check_documented_example(const std::string& relative_path, const config::Schema& schema) {
  const std::string path = source_path(relative_path);
  const config::json user = config::load_file(path);
  const config::json validated = schema.validate(user, path);
  std::set<std::string> in_example;
  collect_leaves(user, "", in_example);
  const std::string text = read_text(path);
  for (const config::Field& f : schema.fields()) {
    INFO("field " << f.pointer);
    if (f.type != config::Type::object) CHECK(in_example.count(f.pointer) == 1);
    CHECK(text.find(f.doc.substr(0, 30)) != std::string::npos);
  }
  return validated;
}

}  // namespace gp::test

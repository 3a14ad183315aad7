#pragma once
// What `gpuproc compare` checks, for CI regression runs: images (any format OIIO reads), CSV and
// JSON tables, or whole folders of them.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gp::io {

struct CompareOptions {
  double tolerance = 0;           // images: max |a-b| in [0,1] units; tables: absolute number tolerance
  double relative_tolerance = 0;  // tables: relative number tolerance (either one passing is enough)
};

struct CompareResult {
  bool equal = true;
  std::vector<std::string> differences;  // one line each, naming the file and where
  nlohmann::ordered_json details = nlohmann::ordered_json::object();  // per file: metrics
};

// Compares two files (by extension: .csv, .json/.jsonl, else image) or two folders (files with
// the same relative names; missing or extra files are differences). Throws gp::UsageError when a
// path does not exist or the kinds differ.
CompareResult compare_paths(const std::string& a, const std::string& b, const CompareOptions& options);

}  // namespace gp::io

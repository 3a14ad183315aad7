// `--set` assignments as gpuproc applies them (core/batch_job.cpp): config::apply_override, one
// assignment per line of the input, on stitch-360's documented example config, then
// Schema::validate and read_settings of stitch-360 (a schema that builds without CUDA headers).
// Each assignment either applies or throws gp::UsageError and leaves the config as it was; the
// config never nests deeper than config::max_json_depth, and its dump and validation never
// crash. gp::Error (UsageError) is the documented outcome of a bad config; anything else
// escaping (a JSON type error, std::out_of_range, ...) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "core/error.hpp"
#include "stitch/stitch_settings.hpp"

namespace {

using gp::config::json;

[[noreturn]] void finding(const char* what) {
  std::fputs(what, stderr);
  std::fputc('\n', stderr);
  std::abort();
}

// Arrays and objects inside each other, counted without recursion.
int depth_of(const json& root) {
  int deepest = 0;
  std::vector<std::pair<const json*, int>> stack{{&root, root.is_structured() ? 1 : 0}};
  while (!stack.empty()) {
    const auto [value, depth] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, depth);
    if (value->is_structured())
      for (const json& child : *value)
        if (child.is_structured()) stack.push_back({&child, depth + 1});
  }
  return deepest;
}

const json& base_config() {
  static const json base = gp::config::parse_bounded(gp::stitch::schema().documented_example(), "example", true);
  return base;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  json config = base_config();
  for (std::size_t start = 0; start <= input.size();) {
    const std::size_t end = std::min(input.find('\n', start), input.size());
    const json before = config;
    try {
      gp::config::apply_override(config, input.substr(start, end - start));
    } catch (const gp::UsageError&) {
      if (config != before) finding("a refused assignment changed the config");
    }
    if (depth_of(config) > gp::config::max_json_depth) finding("an assignment nested deeper than max_json_depth");
    start = end + 1;
  }
  config.dump(-1, ' ', false, json::error_handler_t::replace);
  try {
    gp::stitch::read_settings(gp::stitch::schema().validate(config, "(command line)"));
  } catch (const gp::Error&) {
  }
  return 0;
}

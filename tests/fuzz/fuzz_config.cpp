// Job configs as gpuproc reads them (core/batch_job.cpp): config::load_file on the input (JSON
// with comments), the `--set` assignments that follow a NUL byte (one per line), then
// Schema::validate and read_settings of segment-pnm and stitch-360 (the schemas that build
// without CUDA headers). gp::Error (UsageError) is the documented outcome of a bad config;
// anything else escaping (a JSON type error, std::out_of_range, ...) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/config.hpp"
#include "core/error.hpp"
#include "fuzz_files.hpp"
#include "pnm/pnm_settings.hpp"
#include "stitch/stitch_settings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string text = input.substr(0, nul);
  const std::string path =
      gp::fuzz::write_input("config.json", reinterpret_cast<const std::uint8_t*>(text.data()), text.size());

  gp::config::json user;
  try {
    user = gp::config::load_file(path);
    if (nul != std::string::npos) {
      std::size_t start = nul + 1;
      while (start <= input.size()) {
        const std::size_t end = std::min(input.find('\n', start), input.size());
        gp::config::apply_override(user, input.substr(start, end - start));
        start = end + 1;
      }
    }
  } catch (const gp::UsageError&) {
    return 0;
  }

  try {
    gp::pnm::read_settings(gp::pnm::schema().validate(user, path));
  } catch (const gp::Error&) {
  }
  try {
    gp::stitch::read_settings(gp::stitch::schema().validate(user, path));
  } catch (const gp::Error&) {
  }
  return 0;
}

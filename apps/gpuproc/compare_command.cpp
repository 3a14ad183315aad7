#include "compare_command.hpp"

#include <iostream>

#include "core/error.hpp"
#include "tools/compare.hpp"

namespace gp::app {

void add_compare_options(CLI::App& sub, CompareArgs& args) {
  sub.add_option("a", args.a, "first file or folder")->required();
  sub.add_option("b", args.b, "second file or folder")->required();
  sub.add_option("--tolerance", args.tolerance,
                 "largest allowed absolute difference of a number (images and videos: in [0,1] units, 1/255 = one "
                 "8-bit step)")
      ->capture_default_str();
  sub.add_option("--relative-tolerance", args.relative_tolerance,
                 "largest allowed relative difference |a-b| / max(|a|,|b|) of a number (not of 8/16-bit image samples)")
      ->capture_default_str();
  sub.add_option("--min-psnr", args.min_psnr_db,
                 "images and video frames: also equal when their PSNR is at least this many dB (outputs of different "
                 "codecs)")
      ->capture_default_str();
  sub.add_option("--ignore-key", args.ignored_keys,
                 "JSON files: skip object members of this name at any depth (repeatable; e.g. wall-clock times)");
  sub.add_flag("--json", args.json, "print the comparison details as JSON");
}

int run_compare(const CompareArgs& args) {
  tools::CompareOptions options;
  options.tolerance = args.tolerance;
  options.relative_tolerance = args.relative_tolerance;
  options.min_psnr_db = args.min_psnr_db;
  options.ignored_keys = args.ignored_keys;
  const tools::CompareResult result = tools::compare_paths(args.a, args.b, options);
  if (args.json) std::cout << result.details.dump(2) << "\n";
  for (const auto& d : result.differences) std::cout << d << "\n";
  for (const auto& e : result.errors) std::cerr << "gpuproc: compare: cannot compare " << e << "\n";
  if (!result.comparable) return int(gp::ExitCode::usage);
  if (result.equal) std::cout << args.a << " and " << args.b << ": equal within tolerance\n";
  return result.equal ? 0 : 1;
}

}  // namespace gp::app

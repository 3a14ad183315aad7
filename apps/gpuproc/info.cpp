// `gpuproc info` and `gpuproc --version`: what this build is and what the machine has.
#include "info.hpp"

#include <CLI/Version.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/version.h>

#include <iostream>

#include "commands.hpp"
#include "core/gpu_runtime.hpp"
#include "gpuproc/build_info.hpp"
#include "io/image_io.hpp"

namespace gp::app {

namespace {

#ifdef GPUPROC_HAVE_NVJPEG
constexpr bool kNvjpeg = true;
#else
constexpr bool kNvjpeg = false;
#endif
constexpr bool kFacePeer = GPUPROC_FACE_PEER_BUILT;

const char* yes_no(bool b) { return b ? "yes" : "no"; }

std::string subcommand_list() {
  std::string names;
  for (const auto& [name, factory] : batch_commands()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

}  // namespace

// Build-time facts only: asking OpenImageIO (webp output, formats) would load its module (0.25 s).
std::string version_text() {
  return fmt::format("gpuproc {} (revision {}, {} build; CUDA {} for sm {}; OpenImageIO {})\n"
                     "features: nvJPEG GPU JPEG codec {}; gpuproc-face-peer (OpenCV Haar + dlib HOG) {}; "
                     "subcommands {}",
                     GPUPROC_VERSION, GPUPROC_GIT_REVISION, GPUPROC_BUILD_TYPE, GPUPROC_CUDA_TOOLKIT_VERSION,
                     GPUPROC_CUDA_ARCHITECTURES, GPUPROC_OIIO_VERSION, yes_no(kNvjpeg), yes_no(kFacePeer),
                     subcommand_list());
}

int run_info(bool as_json) {
  using json = nlohmann::ordered_json;
  json gpus = json::array();
  for (const auto& g : list_gpus())
    gpus.push_back({{"index", g.index}, {"name", g.name}, {"compute_capability", fmt::format("{}.{}", g.cc_major, g.cc_minor)},
                    {"multiprocessors", g.sm_count}, {"memory_total_bytes", g.total_bytes},
                    {"memory_free_bytes", g.free_bytes}, {"driver_version", g.driver_version},
                    {"runtime_version", g.runtime_version}});
  json subcommands = json::array();
  for (const auto& [name, factory] : batch_commands()) subcommands.push_back(name);
  int runtime_version = 0;
  cudaRuntimeGetVersion(&runtime_version);
  json info{
      {"version", GPUPROC_VERSION},
      {"revision", GPUPROC_GIT_REVISION},
      {"build_type", GPUPROC_BUILD_TYPE},
      {"cuda", {{"toolkit", GPUPROC_CUDA_TOOLKIT_VERSION}, {"runtime_version", runtime_version},
                {"architectures", GPUPROC_CUDA_ARCHITECTURES}}},
      {"gpus", gpus},
      {"libraries", {{"OpenImageIO", io::oiio_version()},
                     {"fmt", FMT_VERSION},
                     {"spdlog", fmt::format("{}.{}.{}", SPDLOG_VER_MAJOR, SPDLOG_VER_MINOR, SPDLOG_VER_PATCH)},
                     {"nlohmann_json", fmt::format("{}.{}.{}", NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR,
                                                   NLOHMANN_JSON_VERSION_PATCH)},
                     {"CLI11", CLI11_VERSION}}},
      {"features", {{"cuda_kernels", true}, {"nvtx_ranges", true}, {"nvjpeg", kNvjpeg}, {"face_peer_built", kFacePeer},
                    {"webp_output", io::can_write_extension(".webp")}, {"subcommands", subcommands}}},
      {"image_formats", io::oiio_formats()},
  };
  if (as_json) {
    std::cout << info.dump(2) << "\n";
    return 0;
  }
  std::cout << version_text() << "\n";
  if (gpus.empty()) std::cout << "GPUs: none (the CPU path is used; --device auto picks it)\n";
  for (const auto& g : gpus)
    std::cout << fmt::format("GPU {}: {} (compute {}, {} SMs, {:.1f} GiB, {:.1f} GiB free, driver {})\n",
                             g["index"].get<int>(), g["name"].get<std::string>(),
                             g["compute_capability"].get<std::string>(), g["multiprocessors"].get<int>(),
                             g["memory_total_bytes"].get<double>() / (1 << 30),
                             g["memory_free_bytes"].get<double>() / (1 << 30), g["driver_version"].get<int>());
  std::cout << "libraries:";
  for (auto& [k, v] : info["libraries"].items()) std::cout << " " << k << " " << (v.is_string() ? v.get<std::string>() : v.dump());
  std::cout << "\nwebp output: " << yes_no(io::can_write_extension(".webp")) << "\n";
  std::cout << "image formats: " << io::oiio_formats() << "\n";
  return 0;
}

}  // namespace gp::app

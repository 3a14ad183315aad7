#include "io/oiio_module.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "core/error.hpp"

namespace gp::io {
namespace {

constexpr const char* kModuleFile = "libgpuproc_oiio.so";

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

// Where the module may be, in order.
std::vector<std::string> module_candidates() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("GPUPROC_OIIO_MODULE"); env && *env) candidates.push_back(env);
  if (const std::string dir = executable_dir(); !dir.empty())
    candidates.push_back(dir + "/../lib/gpuproc/" + kModuleFile);
  candidates.push_back(GPUPROC_OIIO_MODULE_BUILD_PATH);
  return candidates;
}

const OiioModule* load_module() {
  std::string tried;
  for (const auto& path : module_candidates()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += "\n  " + path + ": not there";
      continue;
    }
    // RTLD_LOCAL: OpenImageIO's many dependencies stay out of the global symbol scope.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      tried += "\n  " + path + ": " + dlerror();
      continue;
    }
    using Entry = const OiioModule* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "gpuproc_oiio_module"));
    if (!entry) {
      tried += "\n  " + path + ": no gpuproc_oiio_module entry point";
      continue;
    }
    return entry();  // never unloaded: its objects live until the process ends
  }
  throw Error("cannot load the OpenImageIO module " + std::string(kModuleFile) + ":" + tried);
}

}  // namespace

const OiioModule& oiio_module() {
  static std::once_flag once;
  static const OiioModule* module = nullptr;
  std::call_once(once, [] { module = load_module(); });  // a throw leaves it for the next call
  return *module;
}

std::unique_ptr<ImageSource> open_oiio_source(const std::string& path) { return oiio_module().open_source(path); }

}  // namespace gp::io

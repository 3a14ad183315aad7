#include "core/gpu_devices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "cuda/common/cuda_check.hpp"

namespace gp {

// ---- device choice --------------------------------------------------------------------------

DeviceChoice DeviceChoice::parse(const std::string& text) {
  DeviceChoice c;
  if (text == "auto" || text.empty()) return c;
  if (text == "cpu") {
    c.kind = Kind::cpu;
    return c;
  }
  if (text == "cuda" || text == "gpu") {
    c.kind = Kind::cuda;
    return c;
  }
  if (text.rfind("cuda:", 0) == 0) {
    const std::string n = text.substr(5);
    char* end = nullptr;
    long v = std::strtol(n.c_str(), &end, 10);
    if (!n.empty() && end && *end == '\0' && v >= 0 && v < 1024) {
      c.kind = Kind::cuda;
      c.index = int(v);
      return c;
    }
  }
  throw UsageError("--device: expected auto, cpu or cuda:N, got \"" + text + "\"");
}

std::string DeviceChoice::str() const {
  switch (kind) {
    case Kind::automatic: return "auto";
    case Kind::cpu: return "cpu";
    case Kind::cuda: return "cuda:" + std::to_string(index);
  }
  return "auto";
}

DeviceSelection DeviceSelection::parse(const std::string& text) {
  auto bad = [&] {
    return UsageError("--device: expected auto, cpu, cuda:N, a list of GPUs such as cuda:0,1, or all, got \"" + text + "\"");
  };
  DeviceSelection selection;
  if (text == "all" || text == "cuda:all") {
    selection.all_gpus = true;
    return selection;
  }
  if (text.find(',') == std::string::npos) {
    try {
      selection.devices.push_back(DeviceChoice::parse(text));
    } catch (const UsageError&) {
      throw bad();
    }
    return selection;
  }
  // A list: "cuda:" then indices, each bare or as cuda:N ("cuda:0,1", "cuda:0,cuda:1").
  if (text.rfind("cuda:", 0) != 0) throw bad();
  const std::string list = text.substr(5);
  for (std::size_t begin = 0;;) {
    const std::size_t comma = list.find(',', begin);
    std::string entry = list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    if (entry.rfind("cuda:", 0) != 0) entry = "cuda:" + entry;
    try {
      selection.devices.push_back(DeviceChoice::parse(entry));  // "cuda:" alone (an empty entry) fails
    } catch (const UsageError&) {
      throw bad();
    }
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return selection;
}

std::vector<DeviceChoice> DeviceSelection::resolve(int gpu_count) const {
  if (!all_gpus) return devices;
  if (gpu_count <= 0) throw GpuError("--device all: no CUDA device (no GPU or no driver; use --device cpu)");
  std::vector<DeviceChoice> out;
  for (int i = 0; i < gpu_count; ++i) {
    DeviceChoice gpu;
    gpu.kind = DeviceChoice::Kind::cuda;
    gpu.index = i;
    out.push_back(gpu);
  }
  return out;
}

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error so later queries start clean
    return 0;
  }
  return n;
}

std::vector<GpuInfo> list_gpus() {
  std::vector<GpuInfo> gpus;
  int count = cuda_device_count();
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    GP_CUDA_CHECK(cudaGetDeviceProperties(&prop, i), "query GPU " + std::to_string(i));
    GpuInfo g;
    g.index = i;
    g.name = prop.name;
    g.pci_bus_id = fmt::format("{:08x}:{:02x}:{:02x}.0", prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
    g.cc_major = prop.major;
    g.cc_minor = prop.minor;
    g.sm_count = prop.multiProcessorCount;
    g.total_bytes = prop.totalGlobalMem;
    g.driver_version = driver;
    g.runtime_version = runtime;
    int previous = 0;
    cudaGetDevice(&previous);
    if (cudaSetDevice(i) == cudaSuccess) {
      std::size_t free_b = 0, total_b = 0;
      if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) g.free_bytes = free_b;
      cudaSetDevice(previous);
    }
    gpus.push_back(g);
  }
  return gpus;
}

}  // namespace gp

#pragma once
// Which GPUs a job runs on: --device parsed (one choice or a list) and the GPUs the driver lists.
#include <cstddef>
#include <string>
#include <vector>

namespace gp {

// What --device asked for: auto (GPU when present), cpu, or cuda:N.
struct DeviceChoice {
  enum class Kind { automatic, cpu, cuda } kind = Kind::automatic;
  int index = 0;
  static DeviceChoice parse(const std::string& text);  // throws UsageError
  std::string str() const;
};

// --device of the batch subcommands: one DeviceChoice as above, or several GPUs whose compute
// workers share the job's queue: "cuda:0,1" (cuda:N entries or bare indices after "cuda:"; an
// index may repeat, which gives one GPU two runtimes, as the tests do), or "cuda:all" / "all"
// (every GPU the driver lists). "auto" stays one GPU.
struct DeviceSelection {
  std::vector<DeviceChoice> devices;  // as written; empty only when all_gpus
  bool all_gpus = false;
  static DeviceSelection parse(const std::string& text);  // throws UsageError naming --device
  // The devices to run on; all_gpus: cuda:0 .. cuda:gpu_count-1 (GpuError when there is none).
  std::vector<DeviceChoice> resolve(int gpu_count) const;
};

struct GpuInfo {
  int index = -1;
  std::string name;
  std::string pci_bus_id;  // "00000000:17:00.0", as NVML names devices
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::size_t total_bytes = 0, free_bytes = 0;
  int driver_version = 0, runtime_version = 0;
};

// Number of usable CUDA devices (0 without a driver or GPU; never throws).
int cuda_device_count();
std::vector<GpuInfo> list_gpus();

}  // namespace gp

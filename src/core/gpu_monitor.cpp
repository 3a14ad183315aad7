#include "core/gpu_monitor.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/gpu_runtime.hpp"
#include "core/report_numbers.hpp"
#include "core/trace.hpp"

namespace gp {
namespace {

// The part of NVML's C ABI (nvml.h, stable since its v2 entry points) the monitor calls; declared
// here because the header is not part of every CUDA toolkit installation.
using nvmlReturn_t = int;  // 0: NVML_SUCCESS
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlUtilization_t {
  unsigned int gpu, memory;  // percent of the last sample period
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
constexpr int kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
constexpr int kNvmlClockSm = 1, kNvmlClockMem = 2;

struct Nvml {
  void* library = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*by_pci_bus_id)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned int) = nullptr;
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*power_mw)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*energy_mj)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int*) = nullptr;

  // Loads and initialises NVML; an empty string, or why not.
  std::string open() {
    library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char* e = dlerror();
      return std::string("NVML not loaded (libnvidia-ml.so.1 comes with the NVIDIA driver): ") + (e ? e : "?");
    }
    auto get = [&](auto& fn, const char* symbol) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, symbol));
      return fn != nullptr;
    };
    if (!get(init, "nvmlInit_v2") || !get(shutdown, "nvmlShutdown") || !get(error_string, "nvmlErrorString") ||
        !get(by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2") || !get(name, "nvmlDeviceGetName") ||
        !get(utilization, "nvmlDeviceGetUtilizationRates") || !get(memory, "nvmlDeviceGetMemoryInfo") ||
        !get(power_mw, "nvmlDeviceGetPowerUsage") || !get(temperature, "nvmlDeviceGetTemperature") ||
        !get(clock, "nvmlDeviceGetClockInfo"))
      return "NVML too old: a function the monitor needs is missing";
    get(energy_mj, "nvmlDeviceGetTotalEnergyConsumption");  // Volta and later; optional
    const nvmlReturn_t r = init();
    if (r != 0) {
      const std::string why = std::string("NVML did not start: ") + error_string(r);
      init = nullptr;
      return why;
    }
    return {};
  }
  ~Nvml() {
    if (init && shutdown) shutdown();
    if (library) dlclose(library);
  }
};

// Mean and maximum of one quantity over the samples.
struct Series {
  double sum = 0, max = 0;
  long n = 0;
  void add(double v) {
    sum += v;
    max = n ? std::max(max, v) : v;
    ++n;
  }
  nlohmann::ordered_json json(double scale_to = 1) const {
    if (!n) return nullptr;
    return {{"mean", round3(sum / double(n) * scale_to)}, {"max", round3(max * scale_to)}};
  }
};

struct Device {
  int index = -1;  // the CUDA device
  std::string name, pci_bus_id;
  nvmlDevice_t handle = nullptr;
  long samples = 0;
  Series gpu_util, memory_util, memory_used, power_w, temperature, sm_clock, memory_clock;
  Series query_ms;  // how long one sample's NVML calls took (they share driver locks with the job's CUDA calls)
  unsigned long long energy_first_mj = 0, energy_last_mj = 0;
  bool energy = false;
};

}  // namespace

struct GpuMonitor::Impl {
  std::vector<const Runtime*> runtimes;
  std::chrono::milliseconds interval;
  Nvml nvml;
  std::vector<Device> devices;
  std::string unavailable;  // why nothing is sampled
  mutable std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread thread;

  // The runtimes' GPUs as NVML devices (each once; a --device list may repeat one).
  void find_devices() {
    std::vector<int> seen;
    for (const Runtime* r : runtimes) {
      std::optional<GpuInfo> info;
      try {
        if (!r->gpu()) continue;
        info = r->gpu_info();
      } catch (const std::exception&) {
        continue;  // no GPU after all: the job reports that itself
      }
      if (!info || std::find(seen.begin(), seen.end(), info->index) != seen.end()) continue;
      seen.push_back(info->index);
      Device d;
      d.index = info->index;
      d.name = info->name;
      d.pci_bus_id = info->pci_bus_id;
      if (nvml.by_pci_bus_id(d.pci_bus_id.c_str(), &d.handle) != 0) continue;
      devices.push_back(std::move(d));
    }
  }

  void sample(Device& d) {
    const std::int64_t start_us = Trace::now_us();
    nvmlUtilization_t u{};
    nvmlMemory_t m{};
    unsigned int power = 0, temperature = 0, sm = 0, mem = 0;
    unsigned long long energy = 0;
    nlohmann::ordered_json values = nlohmann::ordered_json::object();
    if (nvml.utilization(d.handle, &u) == 0) {
      d.gpu_util.add(u.gpu), d.memory_util.add(u.memory);
      values["gpu %"] = u.gpu, values["memory controller %"] = u.memory;
    }
    if (nvml.memory(d.handle, &m) == 0) d.memory_used.add(double(m.used)), values["memory used GiB"] = round3(double(m.used) / (1 << 30));
    if (nvml.power_mw(d.handle, &power) == 0) d.power_w.add(power / 1000.0), values["power W"] = round3(power / 1000.0);
    if (nvml.temperature(d.handle, kNvmlTemperatureGpu, &temperature) == 0) d.temperature.add(temperature), values["temperature C"] = temperature;
    if (nvml.clock(d.handle, kNvmlClockSm, &sm) == 0) d.sm_clock.add(sm), values["SM clock MHz"] = sm;
    if (nvml.clock(d.handle, kNvmlClockMem, &mem) == 0) d.memory_clock.add(mem);
    if (nvml.energy_mj && nvml.energy_mj(d.handle, &energy) == 0) {
      if (!d.energy) d.energy_first_mj = energy;
      d.energy = true;
      d.energy_last_mj = energy;
    }
    ++d.samples;
    const std::int64_t end_us = Trace::now_us();
    d.query_ms.add(double(end_us - start_us) / 1000.0);
    Trace::global().add_counter("GPU " + std::to_string(d.index), end_us, values);
  }

  void run() {
    Trace::name_thread("gpu monitor");
    {
      // Here, not on the job's thread: loading NVML and nvmlInit take a tenth of a second or more.
      ScopedStage span("nvml start");
      std::string why = nvml.open();
      if (why.empty()) find_devices();
      if (why.empty() && devices.empty()) why = "no GPU of this run is known to NVML";
      std::lock_guard<std::mutex> lock(mutex);
      unavailable = std::move(why);
    }
    std::unique_lock<std::mutex> lock(mutex);
    for (bool last = false; !devices.empty();) {
      for (Device& d : devices) sample(d);
      if (last) break;
      wake.wait_for(lock, interval, [&] { return stopping; });
      last = stopping;
    }
  }
};

GpuMonitor::GpuMonitor(std::vector<const Runtime*> runtimes, std::chrono::milliseconds interval)
    : impl_(std::make_unique<Impl>()) {
  impl_->runtimes = std::move(runtimes);
  impl_->interval = interval;
  if (interval.count() <= 0) {
    impl_->unavailable = "turned off (--gpu-monitor 0)";
    return;
  }
  bool any_gpu = false;
  for (const Runtime* r : impl_->runtimes) any_gpu = any_gpu || r->gpu_expected();
  if (!any_gpu) {
    impl_->unavailable = "the CPU path: no GPU in this run";
    return;
  }
  impl_->thread = std::thread([this] { impl_->run(); });
}

GpuMonitor::~GpuMonitor() { stop(); }

void GpuMonitor::stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
}

nlohmann::ordered_json GpuMonitor::summary() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (!impl_->unavailable.empty()) return {{"available", false}, {"why", impl_->unavailable}};
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const Device& d : impl_->devices) {
    nlohmann::ordered_json j{{"device", d.index}, {"name", d.name}, {"pci_bus_id", d.pci_bus_id}, {"samples", d.samples}};
    j["gpu_utilization_pct"] = d.gpu_util.json();
    j["memory_controller_utilization_pct"] = d.memory_util.json();
    j["memory_used_gib"] = d.memory_used.json(1.0 / (1 << 30));
    j["power_w"] = d.power_w.json();
    j["energy_j"] = d.energy ? nlohmann::ordered_json(round3(double(d.energy_last_mj - d.energy_first_mj) / 1000.0)) : nullptr;
    j["temperature_c"] = d.temperature.json();
    j["sm_clock_mhz"] = d.sm_clock.json();
    j["memory_clock_mhz"] = d.memory_clock.json();
    j["nvml_query_ms"] = d.query_ms.json();
    devices.push_back(std::move(j));
  }
  return {{"available", true}, {"interval_ms", impl_->interval.count()}, {"devices", devices}};
}

}  // namespace gp

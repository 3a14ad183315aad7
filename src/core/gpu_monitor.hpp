#pragma once
// What the GPUs themselves did during a job, from NVML (the driver's management library): GPU and
// memory-controller utilisation, memory used, power, energy, temperature, SM and memory clocks,
// sampled every `interval` on a thread of its own. The series go to the trace (counter tracks
// "GPU N ...", --trace) and a summary per device (mean, max) to the report. NVML is loaded at run
// time (libnvidia-ml.so.1 comes with the driver), so a machine without it runs as before and the
// report says why nothing was sampled.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gp {

class Runtime;

class GpuMonitor {
 public:
  // Samples the GPUs of these runtimes (CPU-path runtimes are skipped) every `interval` (0: not
  // at all); waits for nothing: the runtimes' devices are looked up on the sampling thread.
  GpuMonitor(std::vector<const Runtime*> runtimes, std::chrono::milliseconds interval);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  // Stops sampling (one last sample first); idempotent.
  void stop();
  // {"available": true, "interval_ms", "devices": [{device, name, pci_bus_id, samples,
  //  gpu_utilization_pct: {mean, max}, memory_controller_utilization_pct, memory_used_bytes,
  //  power_w, temperature_c, sm_clock_mhz, memory_clock_mhz, energy_j, nvml_query_ms}]} or
  // {"available": false, "why": ...}. Call after stop().
  nlohmann::ordered_json summary() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gp

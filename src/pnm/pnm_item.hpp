#pragma once
// One volume travelling through the segment-pnm pipeline: load -> compute -> save.
#include <memory>
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "core/host_memory.hpp"
#include "core/scratch_space.hpp"
#include "io/slice_source.hpp"
#include "io/volume.hpp"
#include "pnm/segmentation.hpp"

namespace gp::pnm {

struct PnmItem : PipelineItem {
  std::vector<std::string> paths;  // the volume's files or folder
  std::string output_folder;       // where its files go
  io::Volume volume;                        // values empty when the scan streams from its file
  std::unique_ptr<io::VolumeStream> stream;  // the input opened for slab reads
  HostReservation values_reservation;        // the loaded values' share of --host-memory-limit
  HostReservation labels_reservation;        // in-core: the downloaded labels' share, until saved
  std::unique_ptr<ScratchSpace> scratch;     // the volume's scratch folder, when it needs one
  Segmentation segmentation;
  std::string device;              // "gpu", or "cpu" (also after an out-of-memory fallback)
  double load_seconds = 0, compute_seconds = 0, save_seconds = 0;
  std::vector<std::string> written;
  nlohmann::ordered_json summary;  // summary.json, also the report's per-volume entry
};

}  // namespace gp::pnm

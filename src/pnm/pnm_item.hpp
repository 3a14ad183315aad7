#pragma once
// One volume travelling through the segment-pnm pipeline: load -> compute -> save.
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "io/volume.hpp"
#include "pnm/segmentation.hpp"

namespace gp::pnm {

struct PnmItem : PipelineItem {
  std::vector<std::string> paths;  // the volume's files or folder
  std::string output_folder;       // where its files go
  io::Volume volume;
  Segmentation segmentation;
  std::string device;              // "gpu", or "cpu" (also after an out-of-memory fallback)
  double load_seconds = 0, compute_seconds = 0, save_seconds = 0;
  std::vector<std::string> written;
  nlohmann::ordered_json summary;  // summary.json, also the report's per-volume entry
};

}  // namespace gp::pnm

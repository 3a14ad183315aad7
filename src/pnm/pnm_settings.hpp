#pragma once
// segment-pnm's job config: the schema (the single source of the documented example and of
// validation) and the typed settings read from a validated config.
#include <string>

#include "core/config.hpp"
#include "core/output_naming.hpp"
#include "cuda/pnm/volume_view.hpp"
#include "io/volume_reader.hpp"
#include "cuda/pnm/marker_params.hpp"

namespace gp::pnm {

const config::Schema& schema();

struct Settings {
  io::VolumeReadOptions read;
  bool one_volume = false;       // all inputs together form one volume (a file list)

  std::string denoise = "none";  // none, median, gaussian
  float denoise_sigma = 1.0f;    // gaussian, in voxels

  bool otsu = true;              // else the fixed threshold
  float threshold = -300.f;      // rescaled units (Hounsfield for CT)
  bool pore_is_dark = true;      // pore = value <= threshold (air in CT); else value > threshold

  bool fill_closed_pores = true;       // pore components not touching the border become solid
  bool remove_floating_solid = true;   // solid components not touching the border become pore
  Connectivity connectivity = Connectivity::c26;

  float sigma = 0.4f;            // smoothing of the distance map, voxels
  float r_max = 4.f;             // peak search radius, voxels of the finest spacing
  MarkerParams markers;

  OutputNaming naming;           // output.dir, output.mirror_inputs
  std::string name_template;     // the per-volume output folder under output.dir
  bool write_csv = true, write_json = true, write_vtp = true, write_statoil = true, write_labels = true,
       write_quicklook = true;
  bool write_intermediates = false;  // mask, distance maps and markers as NRRD (for checking)
  std::string statoil_prefix;
  bool labels_gzip = true;     // else raw (labels.nrrd and the intermediates)
  int labels_gzip_level = 1;   // libdeflate 1..12
  bool labels_uint32 = false;  // else the smallest unsigned type that holds the region count

  std::string scratch_dir;  // run.scratch_dir; empty = <output folder>/.gpuproc-scratch
  bool stop_on_error = false;
};

Settings read_settings(const config::json& config);

// Names (relative to the volume's output folder) of the files a run writes with these settings.
std::vector<std::string> output_files(const Settings& s);

}  // namespace gp::pnm

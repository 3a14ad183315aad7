#include "pnm_samples.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "io/dicom_writer.hpp"
#include "porous_volume.hpp"

namespace gp::samples {
namespace {

using Json = nlohmann::ordered_json;

int hardware_threads() { return int(std::max(1u, std::thread::hardware_concurrency())); }

// The truth every sample carries: geometry, the construction and the exact noise-free porosity.
Json truth_json(const PorousPhantom& phantom, const PhantomCounts& counts) {
  const PorousParams& p = phantom.params;
  const double voxels = double(p.dims.voxels());
  Json j;
  j["dims"] = {p.dims.nx, p.dims.ny, p.dims.nz};
  j["spacing_mm"] = {p.spacing.x, p.spacing.y, p.spacing.z};
  j["origin_mm"] = {0.0, 0.0, 0.0};
  j["coordinates"] = "voxel (i, j, k) has its centre at origin + (i * spacing x, j * spacing y, k * spacing z); x fastest";
  j["seed"] = p.seed;
  j["values_hu"] = {{"air", p.air_hu},
                    {"solid", p.solid_hu},
                    {"solid_variation", p.solid_variation_hu},
                    {"texture_scale_mm", p.texture_scale_mm},
                    {"noise_sigma", p.noise_sigma_hu},
                    {"partial_volume_width_mm", phantom.partial_volume_width_mm}};
  j["pore_radius_distribution"] = {{"kind", "lognormal, truncated by redrawing"},
                                   {"median_mm", p.radius_median_mm},
                                   {"sigma_of_log", p.radius_sigma},
                                   {"min_mm", p.radius_min_mm},
                                   {"max_mm", p.radius_max_mm}};
  j["placement"] = {{"kind", "random sequential addition, pores grown from random existing ones"},
                    {"min_centre_distance_factor", p.min_distance_factor},
                    {"free_placement_fraction", p.free_placement_fraction},
                    {"target_porosity", p.target_porosity}};
  j["sphere_count"] = phantom.spheres.size();
  j["pore_voxels"] = counts.pore_voxels;
  j["porosity"] = double(counts.pore_voxels) / voxels;
  j["porosity_definition"] = "fraction of voxel centres strictly inside any sphere (noise-free construction)";
  j["porosity_border_connected"] = double(counts.border_connected_voxels) / voxels;
  j["porosity_border_connected_definition"] =
      "fraction of voxel centres inside spheres whose component of the sphere-overlap graph (centres closer than "
      "the sum of radii) has a sphere reaching past the voxel-centre box; an approximation of voxel connectivity";
  j["spheres_columns"] = {"x_mm", "y_mm", "z_mm", "radius_mm"};
  return j;
}

// The JSON indented, with "spheres" last and one sphere per line (the list is long).
void write_truth(const std::filesystem::path& path, const Json& j, const std::vector<Sphere>& spheres) {
  std::string text = j.dump(1);
  text.pop_back();  // the closing brace
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  text += ",\n \"spheres\": [";
  for (std::size_t i = 0; i < spheres.size(); ++i) {
    const Sphere& s = spheres[i];
    text += (i ? ",\n  " : "\n  ") + Json::array({s.x, s.y, s.z, s.r}).dump();
  }
  text += "\n ]\n}\n";
  write_atomically(path.string(), [&](const std::string& temp) {
    std::ofstream out(temp, std::ios::binary);
    out << text;
    if (!out.flush()) throw Error(path.string() + ": cannot write");
  });
}

}  // namespace

int make_pnm_samples(const std::filesystem::path& dir) {
  PorousParams p;
  p.dims = {96, 96, 80};
  p.spacing = {0.020, 0.020, 0.025};
  p.seed = 4;
  const PorousPhantom phantom = place_pores(p);

  io::Volume volume;
  volume.dims = p.dims;
  volume.spacing = p.spacing;
  volume.values.resize(p.dims.voxels());
  const PhantomCounts counts = render_phantom(phantom, hardware_threads(), [&](int z0, int z1, const float* values) {
    std::copy_n(values, std::size_t(z1 - z0) * p.dims.slice_voxels(), volume.values.begin() + std::ptrdiff_t(z0 * p.dims.slice_voxels()));
  });

  io::DicomWriteOptions options;
  options.transfer_syntax = "explicit";
  options.slope = 0.5;
  options.intercept = -1024;
  options.seed = 2024;
  options.file_prefix = "foam_";
  options.series_description = "gpuproc synthetic porous food (foam phantom)";
  const auto files = io::write_dicom(volume, (dir / "pnm" / "foam").string(), options);

  Json truth = truth_json(phantom, counts);
  Json dicom = {{"folder", "foam"},
                {"files", files.size()},
                {"transfer_syntax", "explicit VR little endian"},
                {"stored", "int16"},
                {"slope", options.slope},
                {"intercept", options.intercept},
                {"orientation", options.orientation}};
  Json out = {{"generator", "gpuproc-make-samples pnm-samples"}, {"dicom", dicom}};
  out.update(truth);
  write_truth(dir / "pnm" / "foam-truth.json", out, phantom.spheres);
  std::cout << "pnm/foam: " << files.size() << " slices, " << phantom.spheres.size() << " pores, porosity "
            << out["porosity"].get<double>() << "\n";
  return 0;
}

int make_pnm_bench(const std::filesystem::path& dir, int n, int threads) {
  PorousParams p;
  p.dims = {n, n, n};
  p.spacing = {0.02, 0.02, 0.02};
  p.seed = 1000 + std::uint64_t(n);
  const auto start = std::chrono::steady_clock::now();
  const PorousPhantom phantom = place_pores(p);
  const auto placed = std::chrono::steady_clock::now();
  std::filesystem::create_directories(dir);
  const std::string stem = "foam-" + std::to_string(n);
  const std::filesystem::path raw = dir / (stem + ".raw");

  PhantomCounts counts;
  write_atomically(raw.string(), [&](const std::string& temp) {
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(temp + ": " + std::strerror(errno));
    try {
      counts = render_phantom(phantom, threads > 0 ? threads : hardware_threads(), [&](int z0, int z1, const float* values) {
        const std::size_t count = std::size_t(z1 - z0) * p.dims.slice_voxels();
        std::vector<std::int16_t> stored(count);  // little endian, as this machine is
        for (std::size_t i = 0; i < count; ++i)
          stored[i] = std::int16_t(std::clamp(std::round(double(values[i])), -32768.0, 32767.0));
        const auto* bytes = reinterpret_cast<const char*>(stored.data());
        std::size_t done = 0, total = count * 2;
        const off_t offset = off_t(std::size_t(z0) * p.dims.slice_voxels() * 2);
        while (done < total) {
          const ssize_t w = ::pwrite(fd, bytes + done, total - done, offset + off_t(done));
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) throw Error(temp + ": " + std::strerror(errno));
          done += std::size_t(w);
        }
      });
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) throw Error(temp + ": " + std::strerror(errno));
  });

  Json out = {{"generator", "gpuproc-make-samples pnm-bench"},
              {"raw", {{"file", stem + ".raw"}, {"dtype", "int16"}, {"byte_order", "little"}, {"header_bytes", 0}}},
              {"slope", 1.0},
              {"intercept", 0.0}};
  out.update(truth_json(phantom, counts));
  write_truth(dir / (stem + ".json"), out, phantom.spheres);
  const auto seconds = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  std::cout << stem << ": " << phantom.spheres.size() << " pores, porosity " << out["porosity"].get<double>()
            << " (placed in " << seconds(start, placed) << " s, rendered and written in "
            << seconds(placed, std::chrono::steady_clock::now()) << " s)\n";
  return 0;
}

}  // namespace gp::samples

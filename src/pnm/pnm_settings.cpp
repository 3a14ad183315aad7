#include "pnm/pnm_settings.hpp"

#include "core/error.hpp"
#include "core/settings_table.hpp"

namespace gp::pnm {
namespace {

using config::member;
using io::VolumeReadOptions;
using io::RawFormat;

// Each field once: its schema entry and where its value lands in Settings.
config::SettingsTable<Settings> make_table() {
  config::SettingsTable<Settings> t("segment-pnm");
  t.required_string_list("/inputs",
                         "volumes: DICOM series folders, TIFF stack folders, multi-frame DICOM, multi-page TIFF, NRRD "
                         "(.nrrd, .nhdr), MetaImage (.mhd, .mha) or raw files, globs or @list.txt files; each folder or "
                         "file is one volume",
                         config::read_by_batch_job);
  t.object("/input", "how volumes are read");
  t.choice("/input/format", "auto", {"auto", "dicom", "tiff", "raw", "nrrd", "metaimage"},
           "volume format; auto tells them apart by content (NRRD by its magic, MetaImage by .mhd/.mha)",
           member(&Settings::read, &VolumeReadOptions::format));
  t.boolean("/input/one_volume", false, "all inputs together form one volume (a DICOM series or TIFF stack as a file list)",
            &Settings::one_volume);
  t.object("/input/raw", "raw volumes: headerless, x fastest, then y, then z");
  t.integer("/input/raw/width", 0, 0, 1 << 20, "voxels along x (required for raw)",
            member(&Settings::read, &VolumeReadOptions::raw, &RawFormat::dims, &io::Dims3::nx));
  t.integer("/input/raw/height", 0, 0, 1 << 20, "voxels along y (required for raw)",
            member(&Settings::read, &VolumeReadOptions::raw, &RawFormat::dims, &io::Dims3::ny));
  t.integer("/input/raw/depth", 0, 0, 1 << 20, "slices along z (required for raw)",
            member(&Settings::read, &VolumeReadOptions::raw, &RawFormat::dims, &io::Dims3::nz));
  t.choice("/input/raw/dtype", "uint16", {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "float64"},
           "sample type", member(&Settings::read, &VolumeReadOptions::raw, &RawFormat::dtype));
  t.choice("/input/raw/endian", "little", {"little", "big"}, "byte order of multi-byte samples",
           [](Settings& s, const std::string& v) { s.read.raw.big_endian = v == "big"; });
  t.integer("/input/raw/header_bytes", 0, 0, 1ll << 40, "bytes skipped at the start of the file",
            member(&Settings::read, &VolumeReadOptions::raw, &RawFormat::header_bytes));
  // 0 lands as 0 here; read_settings() then keeps all three or restores the default of none.
  t.object("/input/spacing", "voxel size in mm; 0 = from the file (DICOM, NRRD, MetaImage) or 1 (raw, TIFF)");
  t.number("/input/spacing/x", 0, 0, 1e6, "voxel size along x",
           member(&Settings::read, &VolumeReadOptions::spacing, &io::Spacing3::x));
  t.number("/input/spacing/y", 0, 0, 1e6, "voxel size along y",
           member(&Settings::read, &VolumeReadOptions::spacing, &io::Spacing3::y));
  t.number("/input/spacing/z", 0, 0, 1e6, "voxel size along z (slice distance)",
           member(&Settings::read, &VolumeReadOptions::spacing, &io::Spacing3::z));
  t.number("/input/slope", 1, -1e12, 1e12, "raw/TIFF/NRRD/MetaImage: value = stored * slope + intercept (DICOM uses its own tags)",
           member(&Settings::read, &VolumeReadOptions::slope));
  t.number("/input/intercept", 0, -1e12, 1e12, "raw/TIFF/NRRD/MetaImage: see slope",
           member(&Settings::read, &VolumeReadOptions::intercept));
  t.object("/input/crop", "region of interest in voxels of the source; size 0 = to the end");
  const char* axes[3] = {"x", "y", "z"};
  const char* sizes[3] = {"width", "height", "depth"};
  const char* begin_docs[3] = {"first voxel along x", "first voxel along y", "first slice"};
  const char* size_docs[3] = {"voxels along x; 0 = to the end", "voxels along y; 0 = to the end", "slices; 0 = to the end"};
  for (int a = 0; a < 3; ++a)
    t.integer(std::string("/input/crop/") + axes[a], 0, 0, 1 << 20, begin_docs[a],
              [a](Settings& s, long long v) { s.read.crop_begin[std::size_t(a)] = int(v); });
  for (int a = 0; a < 3; ++a)
    t.integer(std::string("/input/crop/") + sizes[a], 0, 0, 1 << 20, size_docs[a],
              [a](Settings& s, long long v) { s.read.crop_size[std::size_t(a)] = int(v); });
  t.integer("/input/downsample", 1, 1, 16, "mean over factor^3 blocks after cropping (spacing grows by the factor)",
            member(&Settings::read, &VolumeReadOptions::downsample));

  t.object("/segment", "binarisation and pore partitioning (PoreSpy snow2)");
  t.choice("/segment/denoise", "none", {"none", "median", "gaussian"}, "filter before binarising: median = 3x3x3",
           &Settings::denoise);
  t.number("/segment/denoise_sigma", 1.0, 0.1, 20, "gaussian denoise: sigma in voxels", &Settings::denoise_sigma);
  t.choice("/segment/threshold", "otsu", {"otsu", "fixed"}, "otsu (from a 256-bin histogram) or the fixed value",
           [](Settings& s, const std::string& v) { s.otsu = v == "otsu"; });
  t.number("/segment/threshold_value", -300, -1e12, 1e12, "fixed threshold in rescaled units (Hounsfield for CT)",
           &Settings::threshold);
  t.choice("/segment/pore", "dark", {"dark", "bright"}, "which side of the threshold is pore: dark = value <= threshold",
           [](Settings& s, const std::string& v) { s.pore_is_dark = v == "dark"; });
  t.boolean("/segment/fill_closed_pores", true, "pores not connected to the volume's border become solid",
            &Settings::fill_closed_pores);
  t.boolean("/segment/remove_floating_solid", true, "solid islands not connected to the border become pore",
            &Settings::remove_floating_solid);
  t.integer("/segment/connectivity", 26, 6, 26, "connectivity of the fill steps: 6 (faces) or 26",
            [](Settings& s, long long v) {
              if (v != 6 && v != 26) throw UsageError("/segment/connectivity: expected 6 or 26, got " + std::to_string(v));
              s.connectivity = v == 6 ? Connectivity::c6 : Connectivity::c26;
            });
  t.number("/segment/sigma", 0.4, 0, 10, "gaussian smoothing of the distance map before peak search, voxels",
           &Settings::sigma);
  t.number("/segment/r_max", 4, 1, 50, "peak search radius in voxels (of the finest spacing)", &Settings::r_max);
  t.integer("/segment/saddle_iterations", 20, 1, 1000, "trim_saddle_points: iterations before a peak is kept",
            member(&Settings::markers, &MarkerParams::saddle_max_iterations));
  t.number("/segment/nearby_factor", 1.0, 0, 100, "trim_nearby_peaks: f, peaks nearer than f * distance to solid",
           member(&Settings::markers, &MarkerParams::nearby_factor));

  t.object("/output", "written files, in one folder per volume");
  t.output_dir("out/segment-pnm", "output folder (created)", member(&Settings::naming, &OutputNaming::dir));
  t.string("/output/name", "{stem}",
           std::string("folder per volume under dir: ") + naming_variables_doc + " ({stem} of a series folder is its whole name)",
           &Settings::name_template);
  t.boolean("/output/mirror_inputs", false, mirror_inputs_doc, member(&Settings::naming, &OutputNaming::mirror_inputs));
  t.boolean("/output/csv", true, "pores.csv and throats.csv (OpenPNM column names)", &Settings::write_csv);
  t.boolean("/output/json", true, "network.json", &Settings::write_json);
  t.boolean("/output/vtp", true, "network.vtp (VTK PolyData for ParaView)", &Settings::write_vtp);
  t.boolean("/output/statoil", true, "Statoil network files (<prefix>_node1.dat ... _link2.dat)", &Settings::write_statoil);
  t.string("/output/statoil_prefix", "network", "Statoil file prefix", [](Settings& s, const std::string& v) {
    if (v.empty() || v.find('/') != std::string::npos)
      throw UsageError("/output/statoil_prefix: expected a plain file-name prefix, got \"" + v + "\"");
    s.statoil_prefix = v;
  });
  t.boolean("/output/labels", true,
            "labels.nrrd: the pore regions with spacing, as uint8, uint16 or uint32 (the smallest that holds the region count)",
            &Settings::write_labels);
  t.choice("/output/labels_encoding", "gzip", {"gzip", "raw"},
           "NRRD encoding of labels.nrrd (and the intermediates): gzip (compressed on all cores) or raw (no "
           "compression time, a file as large as the volume)",
           [](Settings& s, const std::string& v) { s.labels_gzip = v == "gzip"; });
  t.integer("/output/labels_gzip_level", 1, 1, 12,
            "gzip level of labels.nrrd: 1 is fastest; higher levels make the file a little smaller for much more time "
            "(6 = earlier versions)",
            &Settings::labels_gzip_level);
  t.choice("/output/labels_type", "smallest", {"smallest", "uint32"},
           "sample type of labels.nrrd: smallest (uint8/uint16/uint32 by the region count) or uint32 (as earlier versions)",
           [](Settings& s, const std::string& v) { s.labels_uint32 = v == "uint32"; });
  t.boolean("/output/quicklook", true, "quicklook.png: mid slices with the regions overlaid", &Settings::write_quicklook);
  t.boolean("/output/intermediates", false,
            "also mask.nrrd (pore after filling), distance.nrrd, distance_smoothed.nrrd (what is flooded) and "
            "markers.nrrd, to check or inspect the stages",
            &Settings::write_intermediates);

  t.object("/run", "behaviour of the batch");
  t.on_error("volumes", &Settings::stop_on_error);
  t.string("/run/scratch_dir", "",
           "folder for the intermediate volumes of a scan larger than --host-memory-limit (created, files removed at "
           "the end); empty = .gpuproc/scratch in output.dir",
           &Settings::scratch_dir);
  return t;
}

const config::SettingsTable<Settings>& table() {
  static const config::SettingsTable<Settings> t = make_table();
  return t;
}

}  // namespace

const config::Schema& schema() { return table().schema(); }

Settings read_settings(const config::json& c) {
  Settings s = table().read(c);
  io::VolumeReadOptions& r = s.read;
  if (r.format == "raw" && r.raw.dims.voxels() == 0)
    throw UsageError("/input/raw/width, height, depth: a raw volume needs all three sizes");
  const int given = (r.spacing.x > 0) + (r.spacing.y > 0) + (r.spacing.z > 0);
  if (given != 0 && given != 3) throw UsageError("/input/spacing: give x, y and z, or none");
  r.spacing_given = given == 3;
  if (!r.spacing_given) r.spacing = io::Spacing3{};
  // Checked from the header before the volume is read (no 2-D mode: a slice has no pore network).
  // The out-of-core path addresses voxels with 64-bit indices; a slab's kernels see < 2^31.
  r.max_voxels = std::uint64_t(1) << 40;
  r.max_voxels_reason = "segment-pnm's slab planning";
  r.single_slice_refusal = "a pore network needs a 3D volume";
  return s;
}

std::vector<std::string> output_files(const Settings& s) {
  std::vector<std::string> files;
  if (s.write_csv) files.insert(files.end(), {"pores.csv", "throats.csv"});
  if (s.write_json) files.push_back("network.json");
  if (s.write_vtp) files.push_back("network.vtp");
  if (s.write_statoil)
    for (const char* part : {"_node1.dat", "_node2.dat", "_link1.dat", "_link2.dat"})
      files.push_back(s.statoil_prefix + part);
  if (s.write_labels) files.push_back("labels.nrrd");
  if (s.write_quicklook) files.push_back("quicklook.png");
  if (s.write_intermediates)
    files.insert(files.end(), {"mask.nrrd", "distance.nrrd", "distance_smoothed.nrrd", "markers.nrrd"});
  files.push_back("summary.json");  // last
  return files;
}

}  // namespace gp::pnm

#include "pnm/pnm_settings.hpp"

#include "core/error.hpp"

namespace gp::pnm {
namespace {

config::Schema make_schema() {
  config::Schema s("segment-pnm");
  s.required_string_list("/inputs",
                         "volumes: DICOM series folders, TIFF stack folders, multi-frame DICOM, multi-page TIFF, NRRD "
                         "(.nrrd, .nhdr), MetaImage (.mhd, .mha) or raw files, globs or @list.txt files; each folder or "
                         "file is one volume");
  s.object("/input", "how volumes are read");
  s.choice("/input/format", "auto", {"auto", "dicom", "tiff", "raw", "nrrd", "metaimage"},
           "volume format; auto tells them apart by content (NRRD by its magic, MetaImage by .mhd/.mha)");
  s.boolean("/input/one_volume", false, "all inputs together form one volume (a DICOM series or TIFF stack as a file list)");
  s.object("/input/raw", "raw volumes: headerless, x fastest, then y, then z");
  s.integer("/input/raw/width", 0, 0, 1 << 20, "voxels along x (required for raw)");
  s.integer("/input/raw/height", 0, 0, 1 << 20, "voxels along y (required for raw)");
  s.integer("/input/raw/depth", 0, 0, 1 << 20, "slices along z (required for raw)");
  s.choice("/input/raw/dtype", "uint16", {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "float64"},
           "sample type");
  s.choice("/input/raw/endian", "little", {"little", "big"}, "byte order of multi-byte samples");
  s.integer("/input/raw/header_bytes", 0, 0, 1ll << 40, "bytes skipped at the start of the file");
  s.object("/input/spacing", "voxel size in mm; 0 = from the file (DICOM, NRRD, MetaImage) or 1 (raw, TIFF)");
  s.number("/input/spacing/x", 0, 0, 1e6, "voxel size along x");
  s.number("/input/spacing/y", 0, 0, 1e6, "voxel size along y");
  s.number("/input/spacing/z", 0, 0, 1e6, "voxel size along z (slice distance)");
  s.number("/input/slope", 1, -1e12, 1e12,
           "raw/TIFF/NRRD/MetaImage: value = stored * slope + intercept (DICOM uses its own tags)");
  s.number("/input/intercept", 0, -1e12, 1e12, "raw/TIFF/NRRD/MetaImage: see slope");
  s.object("/input/crop", "region of interest in voxels of the source; size 0 = to the end");
  s.integer("/input/crop/x", 0, 0, 1 << 20, "first voxel along x");
  s.integer("/input/crop/y", 0, 0, 1 << 20, "first voxel along y");
  s.integer("/input/crop/z", 0, 0, 1 << 20, "first slice");
  s.integer("/input/crop/width", 0, 0, 1 << 20, "voxels along x; 0 = to the end");
  s.integer("/input/crop/height", 0, 0, 1 << 20, "voxels along y; 0 = to the end");
  s.integer("/input/crop/depth", 0, 0, 1 << 20, "slices; 0 = to the end");
  s.integer("/input/downsample", 1, 1, 16, "mean over factor^3 blocks after cropping (spacing grows by the factor)");

  s.object("/segment", "binarisation and pore partitioning (PoreSpy snow2)");
  s.choice("/segment/denoise", "none", {"none", "median", "gaussian"}, "filter before binarising: median = 3x3x3");
  s.number("/segment/denoise_sigma", 1.0, 0.1, 20, "gaussian denoise: sigma in voxels");
  s.choice("/segment/threshold", "otsu", {"otsu", "fixed"}, "otsu (from a 256-bin histogram) or the fixed value");
  s.number("/segment/threshold_value", -300, -1e12, 1e12, "fixed threshold in rescaled units (Hounsfield for CT)");
  s.choice("/segment/pore", "dark", {"dark", "bright"}, "which side of the threshold is pore: dark = value <= threshold");
  s.boolean("/segment/fill_closed_pores", true, "pores not connected to the volume's border become solid");
  s.boolean("/segment/remove_floating_solid", true, "solid islands not connected to the border become pore");
  s.integer("/segment/connectivity", 26, 6, 26, "connectivity of the fill steps: 6 (faces) or 26");
  s.number("/segment/sigma", 0.4, 0, 10, "gaussian smoothing of the distance map before peak search, voxels");
  s.number("/segment/r_max", 4, 1, 50, "peak search radius in voxels (of the finest spacing)");
  s.integer("/segment/saddle_iterations", 20, 1, 1000, "trim_saddle_points: iterations before a peak is kept");
  s.number("/segment/nearby_factor", 1.0, 0, 100, "trim_nearby_peaks: f, peaks nearer than f * distance to solid");

  s.object("/output", "written files, in one folder per volume");
  s.string("/output/dir", "out/segment-pnm", "output folder (created)");
  s.string("/output/name", "{stem}", std::string("folder per volume under dir: ") + naming_variables_doc +
                                         " ({stem} of a series folder is its whole name)");
  declare_mirror_inputs(s);
  s.boolean("/output/csv", true, "pores.csv and throats.csv (OpenPNM column names)");
  s.boolean("/output/json", true, "network.json");
  s.boolean("/output/vtp", true, "network.vtp (VTK PolyData for ParaView)");
  s.boolean("/output/statoil", true, "Statoil network files (<prefix>_node1.dat ... _link2.dat)");
  s.string("/output/statoil_prefix", "network", "Statoil file prefix");
  s.boolean("/output/labels", true, "labels.nrrd: the pore regions with spacing, as uint8, uint16 or uint32 (the smallest that holds the region count)");
  s.choice("/output/labels_encoding", "gzip", {"gzip", "raw"},
           "NRRD encoding of labels.nrrd (and the intermediates): gzip (compressed on all cores) or raw (no "
           "compression time, a file as large as the volume)");
  s.integer("/output/labels_gzip_level", 1, 1, 12,
            "gzip level of labels.nrrd: 1 is fastest; higher levels make the file a little smaller for much more time "
            "(6 = earlier versions)");
  s.choice("/output/labels_type", "smallest", {"smallest", "uint32"},
           "sample type of labels.nrrd: smallest (uint8/uint16/uint32 by the region count) or uint32 (as earlier versions)");
  s.boolean("/output/quicklook", true, "quicklook.png: mid slices with the regions overlaid");
  s.boolean("/output/intermediates", false,
            "also mask.nrrd (pore after filling), distance.nrrd, distance_smoothed.nrrd (what is flooded) and "
            "markers.nrrd, to check or inspect the stages");

  s.object("/run", "behaviour of the batch");
  s.choice("/run/on_error", "skip", {"skip", "fail"}, "skip: report failed volumes and go on; fail: stop at the first");
  s.string("/run/scratch_dir", "",
           "folder for the intermediate volumes of a scan larger than --host-memory-limit (created, files removed at "
           "the end); empty = .gpuproc/scratch in output.dir");
  return s;
}

}  // namespace

const config::Schema& schema() {
  static const config::Schema s = make_schema();
  return s;
}

Settings read_settings(const config::json& c) {
  Settings s;
  auto& r = s.read;
  r.format = config::value_at<std::string>(c, "/input/format");
  s.one_volume = config::value_at<bool>(c, "/input/one_volume");
  r.raw.dims = {config::value_at<int>(c, "/input/raw/width"), config::value_at<int>(c, "/input/raw/height"), config::value_at<int>(c, "/input/raw/depth")};
  r.raw.dtype = config::value_at<std::string>(c, "/input/raw/dtype");
  r.raw.big_endian = config::value_at<std::string>(c, "/input/raw/endian") == "big";
  r.raw.header_bytes = config::value_at<std::uint64_t>(c, "/input/raw/header_bytes");
  if (r.format == "raw" && r.raw.dims.voxels() == 0)
    throw UsageError("/input/raw/width, height, depth: a raw volume needs all three sizes");
  const double sx = config::value_at<double>(c, "/input/spacing/x"), sy = config::value_at<double>(c, "/input/spacing/y"),
               sz = config::value_at<double>(c, "/input/spacing/z");
  const int given = (sx > 0) + (sy > 0) + (sz > 0);
  if (given != 0 && given != 3) throw UsageError("/input/spacing: give x, y and z, or none");
  r.spacing_given = given == 3;
  if (r.spacing_given) r.spacing = {sx, sy, sz};
  r.slope = config::value_at<double>(c, "/input/slope");
  r.intercept = config::value_at<double>(c, "/input/intercept");
  r.crop_begin = {config::value_at<int>(c, "/input/crop/x"), config::value_at<int>(c, "/input/crop/y"), config::value_at<int>(c, "/input/crop/z")};
  r.crop_size = {config::value_at<int>(c, "/input/crop/width"), config::value_at<int>(c, "/input/crop/height"), config::value_at<int>(c, "/input/crop/depth")};
  r.downsample = config::value_at<int>(c, "/input/downsample");
  // Checked from the header before the volume is read (no 2-D mode: a slice has no pore network).
  // The out-of-core path addresses voxels with 64-bit indices; a slab's kernels see < 2^31.
  r.max_voxels = std::uint64_t(1) << 40;
  r.max_voxels_reason = "segment-pnm's slab planning";
  r.single_slice_refusal = "a pore network needs a 3D volume";

  s.denoise = config::value_at<std::string>(c, "/segment/denoise");
  s.denoise_sigma = config::value_at<float>(c, "/segment/denoise_sigma");
  s.otsu = config::value_at<std::string>(c, "/segment/threshold") == "otsu";
  s.threshold = config::value_at<float>(c, "/segment/threshold_value");
  s.pore_is_dark = config::value_at<std::string>(c, "/segment/pore") == "dark";
  s.fill_closed_pores = config::value_at<bool>(c, "/segment/fill_closed_pores");
  s.remove_floating_solid = config::value_at<bool>(c, "/segment/remove_floating_solid");
  const int connectivity = config::value_at<int>(c, "/segment/connectivity");
  if (connectivity != 6 && connectivity != 26)
    throw UsageError("/segment/connectivity: expected 6 or 26, got " + std::to_string(connectivity));
  s.connectivity = connectivity == 6 ? Connectivity::c6 : Connectivity::c26;
  s.sigma = config::value_at<float>(c, "/segment/sigma");
  s.r_max = config::value_at<float>(c, "/segment/r_max");
  s.markers.saddle_max_iterations = config::value_at<int>(c, "/segment/saddle_iterations");
  s.markers.nearby_factor = config::value_at<float>(c, "/segment/nearby_factor");

  s.naming.dir = config::value_at<std::string>(c, "/output/dir");
  if (s.naming.dir.empty()) throw UsageError("/output/dir: must not be empty");
  s.naming.mirror_inputs = config::value_at<bool>(c, "/output/mirror_inputs");
  s.name_template = config::value_at<std::string>(c, "/output/name");
  s.write_csv = config::value_at<bool>(c, "/output/csv");
  s.write_json = config::value_at<bool>(c, "/output/json");
  s.write_vtp = config::value_at<bool>(c, "/output/vtp");
  s.write_statoil = config::value_at<bool>(c, "/output/statoil");
  s.statoil_prefix = config::value_at<std::string>(c, "/output/statoil_prefix");
  if (s.statoil_prefix.empty() || s.statoil_prefix.find('/') != std::string::npos)
    throw UsageError("/output/statoil_prefix: expected a plain file-name prefix, got \"" + s.statoil_prefix + "\"");
  s.write_labels = config::value_at<bool>(c, "/output/labels");
  s.labels_gzip = config::value_at<std::string>(c, "/output/labels_encoding") == "gzip";
  s.labels_gzip_level = config::value_at<int>(c, "/output/labels_gzip_level");
  s.labels_uint32 = config::value_at<std::string>(c, "/output/labels_type") == "uint32";
  s.write_quicklook = config::value_at<bool>(c, "/output/quicklook");
  s.write_intermediates = config::value_at<bool>(c, "/output/intermediates");
  s.stop_on_error = config::value_at<std::string>(c, "/run/on_error") == "fail";
  s.scratch_dir = config::value_at<std::string>(c, "/run/scratch_dir");
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

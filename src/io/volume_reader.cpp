#include "io/volume_reader.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "io/dicom_series.hpp"
#include "io/raw_volume.hpp"
#include "io/slice_source.hpp"
#include "io/tiff_stack.hpp"
#include "io/volume_headers.hpp"

namespace gp::io {
namespace {

namespace fs = std::filesystem;

enum class FileKind { dicom, tiff, nrrd, metaimage, other };

const char* kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::dicom: return "DICOM";
    case FileKind::tiff: return "TIFF";
    case FileKind::nrrd: return "NRRD";
    case FileKind::metaimage: return "MetaImage";
    default: return "neither DICOM, TIFF, NRRD nor MetaImage";
  }
}

const char* format_of(FileKind kind) {
  switch (kind) {
    case FileKind::dicom: return "dicom";
    case FileKind::tiff: return "tiff";
    case FileKind::nrrd: return "nrrd";
    case FileKind::metaimage: return "metaimage";
    default: return "raw";
  }
}

bool looks_like_tiff(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char head[4] = {};
  in.read(reinterpret_cast<char*>(head), 4);
  if (in.gcount() < 4) return false;
  // Classic TIFF (42) and BigTIFF (43), either byte order.
  return (head[0] == 'I' && head[1] == 'I' && (head[2] == 42 || head[2] == 43) && head[3] == 0) ||
         (head[0] == 'M' && head[1] == 'M' && head[2] == 0 && (head[3] == 42 || head[3] == 43));
}

FileKind kind_of(const std::string& path) {
  if (looks_like_dicom(path)) return FileKind::dicom;
  if (looks_like_tiff(path)) return FileKind::tiff;
  if (looks_like_nrrd(path)) return FileKind::nrrd;
  if (looks_like_metaimage(path)) return FileKind::metaimage;
  return FileKind::other;
}

// "slice2" before "slice10": runs of digits compare by value.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && std::isdigit(static_cast<unsigned char>(a[i_end]))) ++i_end;
      while (j_end < b.size() && std::isdigit(static_cast<unsigned char>(b[j_end]))) ++j_end;
      std::size_t i_sig = i, j_sig = j;  // skip leading zeros
      while (i_sig + 1 < i_end && a[i_sig] == '0') ++i_sig;
      while (j_sig + 1 < j_end && b[j_sig] == '0') ++j_sig;
      if (i_end - i_sig != j_end - j_sig) return i_end - i_sig < j_end - j_sig;
      const int c = a.compare(i_sig, i_end - i_sig, b, j_sig, j_end - j_sig);
      if (c != 0) return c < 0;
      i = i_end, j = j_end;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
  return a < b;  // equal under the rule (e.g. "01" and "1"): any fixed order
}

struct Selection {
  std::string format;  // dicom | tiff | raw
  std::vector<std::string> files;
  int skipped = 0;  // files of a folder that are not of the volume's kind
};

Selection select_folder(const std::string& folder, const std::string& format) {
  if (format == "raw") throw UsageError("a raw volume is one file, not a folder (" + folder + ")");
  std::vector<std::string> entries;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string file_name = entry.path().filename().string();
    std::error_code type_ec;
    if (file_name.empty() || file_name[0] == '.' || !entry.is_regular_file(type_ec)) continue;
    entries.push_back(entry.path().string());
  }
  if (ec) throw ItemError(folder, "load", "cannot list the folder: " + ec.message());
  std::sort(entries.begin(), entries.end(), natural_less);

  std::vector<FileKind> kinds;
  for (const auto& path : entries) kinds.push_back(kind_of(path));
  auto count = [&](FileKind k) { return std::count(kinds.begin(), kinds.end(), k); };
  FileKind want;
  if (format == "dicom")
    want = FileKind::dicom;
  else if (format == "tiff")
    want = FileKind::tiff;
  else if (format == "nrrd")
    want = FileKind::nrrd;
  else if (format == "metaimage")
    want = FileKind::metaimage;
  else if (count(FileKind::dicom) > 0)
    want = FileKind::dicom;
  else if (count(FileKind::tiff) > 0)
    want = FileKind::tiff;
  else if (count(FileKind::nrrd) + count(FileKind::metaimage) > 0)
    want = count(FileKind::nrrd) > 0 ? FileKind::nrrd : FileKind::metaimage;
  else
    throw ItemError(folder, "load", entries.empty() ? "the folder has no files"
                                                    : "no DICOM, TIFF, NRRD or MetaImage files among the folder's " +
                                                          std::to_string(entries.size()) + " files");
  Selection s{format_of(want), {}, 0};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (kinds[i] == want)
      s.files.push_back(entries[i]);
    else
      ++s.skipped;
  }
  if (s.files.empty()) throw ItemError(folder, "load", std::string("no ") + kind_name(want) + " files in the folder");
  if ((want == FileKind::nrrd || want == FileKind::metaimage) && count(FileKind::nrrd) + count(FileKind::metaimage) > 1)
    throw ItemError(folder, "load", "holds " + std::to_string(count(FileKind::nrrd) + count(FileKind::metaimage)) +
                                        " NRRD/MetaImage volumes; give each file as an input of its own");
  return s;
}

Selection select_files(const std::vector<std::string>& paths, const VolumeReadOptions& options) {
  for (const auto& path : paths) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      throw ItemError(path, "load", fs::exists(path, ec) ? "not a regular file" : "no such file");
  }
  Selection s{options.format, paths, 0};
  if (options.format == "raw") {
    if (paths.size() != 1) throw UsageError("a raw volume is one file; " + std::to_string(paths.size()) + " were given");
    return s;
  }
  if (options.format == "nrrd" || options.format == "metaimage") {
    if (paths.size() != 1)
      throw UsageError("a " + options.format + " volume is one header file; " + std::to_string(paths.size()) + " were given");
    return s;
  }
  if (options.format != "auto") return s;
  // One file with raw dims given is raw unless it is unmistakably DICOM or TIFF (a raw volume
  // may well start with bytes that look like a DICOM dataset without preamble).
  if (paths.size() == 1 && options.raw.dims.nx > 0 && !looks_like_dicom(paths.front(), false) &&
      !looks_like_tiff(paths.front())) {
    s.format = "raw";
    return s;
  }
  const FileKind first = kind_of(paths.front());
  if (first == FileKind::other)
    throw ItemError(paths.front(), "load", "neither DICOM, TIFF, NRRD nor MetaImage; a raw volume needs its dims and dtype");
  if (first == FileKind::nrrd || first == FileKind::metaimage) {
    if (paths.size() != 1)
      throw ItemError(paths.front(), "load", std::string("is a ") + kind_name(first) +
                                                 " volume of its own; give it as an input on its own, not with " +
                                                 std::to_string(paths.size() - 1) + " other files");
    s.format = format_of(first);
    return s;
  }
  for (const auto& path : paths) {
    const FileKind kind = kind_of(path);
    if (kind != first)
      throw ItemError(path, "load", std::string("is ") + kind_name(kind) + " but " + paths.front() + " is " +
                                        kind_name(first) + "; give files of one kind");
  }
  s.format = format_of(first);
  return s;
}

}  // namespace

std::unique_ptr<VolumeStream> open_volume(const std::vector<std::string>& paths, const VolumeReadOptions& options) {
  if (paths.empty()) throw UsageError("no volume input given");
  const std::string& f = options.format;
  if (f != "auto" && f != "dicom" && f != "tiff" && f != "raw" && f != "nrrd" && f != "metaimage")
    throw UsageError("unknown volume format '" + f + "' (auto, dicom, tiff, raw, nrrd, metaimage)");
  if (options.spacing_given && !(options.spacing.x > 0 && options.spacing.y > 0 && options.spacing.z > 0))
    throw UsageError("volume spacing must be positive");
  if (options.downsample < 1) throw UsageError("downsample factor must be at least 1");

  std::error_code ec;
  const bool folder = paths.size() == 1 && fs::is_directory(paths.front(), ec);
  const Selection selection = folder ? select_folder(paths.front(), f) : select_files(paths, options);
  const int threads = options.threads > 0 ? options.threads : int(cpu_thread_count());

  std::unique_ptr<SliceSource> source;
  if (selection.format == "dicom")
    source = open_dicom_series(selection.files, paths.front(), threads);
  else if (selection.format == "tiff")
    source = open_tiff_stack(selection.files, options);
  else if (selection.format == "nrrd" || selection.format == "metaimage")
    source = open_header_volume(selection.files.front(), selection.format == "nrrd", options);
  else
    source = open_raw_volume(selection.files.front(), options);
  if (folder) source->name = paths.front();
  if (selection.skipped > 0)
    source->description += ", skipped " + std::to_string(selection.skipped) + " other file" + (selection.skipped > 1 ? "s" : "");
  if (options.spacing_given && selection.format == "dicom") {
    source->spacing = options.spacing;
    source->description += ", spacing overridden";
  }
  return std::make_unique<VolumeStream>(std::move(source), options);
}

Volume read_volume(const std::vector<std::string>& paths, const VolumeReadOptions& options) {
  return open_volume(paths, options)->read_all();
}

}  // namespace gp::io

#include "stitch/cube_face_files.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"
#include "stitch/output_plan.hpp"

namespace gp::stitch {
namespace fs = std::filesystem;

int cube_face_of_stem(const std::string& stem) {
  static const std::vector<std::vector<std::string>> names = {
      {"right", "px", "posx"}, {"left", "nx", "negx"},  {"up", "top", "py", "posy"},
      {"down", "bottom", "ny", "negy"}, {"front", "pz", "posz"}, {"back", "nz", "negz"}};
  std::string lower = stem;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (int face = 0; face < 6; ++face)
    for (const std::string& name : names[std::size_t(face)]) {
      if (lower.size() < name.size() || lower.compare(lower.size() - name.size(), name.size(), name) != 0) continue;
      const std::size_t at = lower.size() - name.size();
      if (at == 0 || lower[at - 1] == '_' || lower[at - 1] == '-' || lower[at - 1] == '.') return face;
    }
  return -1;
}

const std::vector<std::string>& still_image_extensions() {
  static const std::vector<std::string> extensions = {".jpg", ".jpeg", ".png", ".tif", ".tiff", ".exr", ".hdr"};
  return extensions;
}

std::array<std::string, 6> cube_face_files(const std::string& folder) {
  const std::vector<std::string>& image_extensions = still_image_extensions();
  std::array<std::vector<std::string>, 6> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    if (!e.is_regular_file(ec)) continue;
    const std::string ext = lowercase_extension(e.path().string());
    if (std::find(image_extensions.begin(), image_extensions.end(), ext) == image_extensions.end()) continue;
    const int face = cube_face_of_stem(e.path().stem().string());
    if (face >= 0) found[std::size_t(face)].push_back(e.path().string());
  }
  if (ec) throw ItemError(folder, "decode", "cannot list the cube face files: " + ec.message());
  std::string missing, twice;
  std::array<std::string, 6> files;
  for (int face = 0; face < 6; ++face) {
    std::vector<std::string>& f = found[std::size_t(face)];
    std::sort(f.begin(), f.end());
    if (f.empty()) missing += std::string(missing.empty() ? "" : ", ") + cube_face_name(face);
    if (f.size() > 1) twice += std::string(twice.empty() ? "" : "; ") + cube_face_name(face) + ": " + join(f, ", ");
    if (!f.empty()) files[std::size_t(face)] = f.front();
  }
  if (!missing.empty() || !twice.empty())
    throw ItemError(folder, "decode",
                    "a cubemap folder needs one image per face, named right/left/up/down/front/back or px/nx/py/ny/pz/nz "
                    "at the end of the file name" +
                        (missing.empty() ? std::string() : "; missing: " + missing) +
                        (twice.empty() ? std::string() : "; more than one file for " + twice));
  return files;
}

}  // namespace gp::stitch

#include "track_faces/image_sequence.hpp"

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "core/text.hpp"

namespace fs = std::filesystem;

namespace gp::track {

const std::vector<std::string>& image_sequence_extensions() {
  static const std::vector<std::string> extensions{".jpg", ".jpeg", ".png", ".tif", ".tiff", ".bmp", ".webp"};
  return extensions;
}

ImageSequence::ImageSequence(const std::string& folder, double fps) : fps_(fps) {
  if (!(fps > 0)) throw ItemError(folder, "open", "the frame rate of an image sequence must be positive");
  const auto& accepted = image_sequence_extensions();
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (name.empty() || name[0] == '.' || !it->is_regular_file(type_ec)) continue;
    if (std::find(accepted.begin(), accepted.end(), lowercase_extension(name)) != accepted.end())
      files_.push_back(it->path().string());
  }
  if (ec) throw ItemError(folder, "open", "cannot list the folder: " + ec.message());
  if (files_.empty()) throw ItemError(folder, "open", "no image files in the folder (an image-sequence camera)");
  std::sort(files_.begin(), files_.end());
}

std::shared_ptr<frames::RgbImage> ImageSequence::read() {
  if (next_ >= files_.size()) return nullptr;
  return std::make_shared<frames::RgbImage>(frames::load_rgb_image(files_[next_++]));
}

}  // namespace gp::track

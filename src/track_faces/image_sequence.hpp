#pragma once
// A camera recorded as a folder of images, one per frame: the folder's image files (by extension,
// hidden files skipped) in file-name order, frame k at k / fps seconds.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frames/rgb_image.hpp"

namespace gp::track {

// The extensions a frame of an image-sequence camera may have.
const std::vector<std::string>& image_sequence_extensions();

class ImageSequence {
 public:
  // Lists the folder. Throws ItemError(folder, "open", ...) when it holds no image or fps <= 0.
  ImageSequence(const std::string& folder, double fps);
  std::size_t size() const { return files_.size(); }
  const std::vector<std::string>& files() const { return files_; }
  // The next frame as packed RGB, or null after the last. Throws ItemError(file, "decode", ...).
  std::shared_ptr<frames::RgbImage> read();
  double seconds_of(std::int64_t index) const { return double(index) / fps_; }

 private:
  std::vector<std::string> files_;
  double fps_;
  std::size_t next_ = 0;
};

}  // namespace gp::track

#pragma once
// Which files one input produces and at which sizes: the main image, MIP levels (as files or one
// tiled file) and the thumbnail. Used by --dry-run, --resume and the save stage alike.
#include <optional>
#include <string>
#include <vector>

#include "core/output_naming.hpp"
#include "tonemap/tonemap_settings.hpp"

namespace gp::tonemap {

struct Size {
  int width = 0, height = 0;
};

// Level 0 is the full image; each next level is max(1, floor(n/2)) per axis, down to 1x1.
std::vector<Size> mip_chain(Size full);
// Longest side = `longest`, aspect kept, never larger than the source.
Size thumbnail_size(Size full, int longest);

struct OutputPlan {
  std::string main;
  std::vector<std::string> mip_files;  // levels 1..n-1 (layout files); one "{level}" pattern when unplanned sizes
  std::string mip_tiled;               // layout tiled
  std::string thumbnail;
  std::vector<PlannedFile> all() const;
};

// Paths under settings.naming; `full` is the source size, which counts the MIP levels. Without
// it (planning before any input is read) the levels are one "{level}" pattern.
OutputPlan plan_outputs(const Settings& s, const InputItem& item, std::optional<Size> full);

// Channels written: 4 when the source has alpha, alpha is kept and the format stores it.
int output_channels(const std::string& path, bool source_has_alpha, const std::string& alpha_mode);

// Whether a file is written by the fast PNG path (png_compression 1): a .png at that level.
bool uses_fast_png(const std::string& path, const Settings& s);

}  // namespace gp::tonemap

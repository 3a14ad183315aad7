#include "tonemap/output_plan.hpp"

#include <algorithm>
#include <filesystem>

#include "core/outputs.hpp"
#include "core/text.hpp"

namespace gp::tonemap {
namespace fs = std::filesystem;

std::vector<Size> mip_chain(Size full) {
  std::vector<Size> levels{full};
  while (levels.back().width > 1 || levels.back().height > 1) {
    Size s = levels.back();
    levels.push_back({std::max(1, s.width / 2), std::max(1, s.height / 2)});
  }
  return levels;
}

Size thumbnail_size(Size full, int longest) {
  const int side = std::max(full.width, full.height);
  if (longest <= 0 || longest >= side) return full;
  const double f = double(longest) / side;
  return {std::max(1, int(full.width * f + 0.5)), std::max(1, int(full.height * f + 0.5))};
}

std::vector<PlannedFile> OutputPlan::all() const {
  std::vector<PlannedFile> out{{main, "/output/name"}};
  for (const std::string& f : mip_files) out.push_back({f, "/mip/name"});
  if (!mip_tiled.empty()) out.push_back({mip_tiled, "/mip/tiled_name"});
  if (!thumbnail.empty()) out.push_back({thumbnail, "/thumbnail/name"});
  return out;
}

OutputPlan plan_outputs(const Settings& s, const InputItem& item, std::optional<Size> full) {
  auto vars = naming_variables(item);
  vars["ext"] = s.format;
  vars["level"] = "0";
  auto path_for = [&](const std::string& tmpl, const char* field) {
    return s.naming.path(item, expand_template(tmpl, vars), field);
  };
  OutputPlan plan;
  plan.main = path_for(s.name_template, "/output/name");
  if (s.mip && s.mip_layout == "files") {
    if (!full) {
      vars["level"] = "{level}";
      plan.mip_files.push_back(path_for(s.mip_name_template, "/mip/name"));
    } else {
      const auto levels = mip_chain(*full);
      for (std::size_t l = 1; l < levels.size(); ++l) {
        vars["level"] = std::to_string(l);
        plan.mip_files.push_back(path_for(s.mip_name_template, "/mip/name"));
      }
    }
  }
  if (s.mip && s.mip_layout == "tiled") plan.mip_tiled = path_for(s.mip_tiled_template, "/mip/tiled_name");
  if (s.thumbnail_size > 0) plan.thumbnail = path_for(s.thumbnail_template, "/thumbnail/name");
  return plan;
}

int output_channels(const std::string& path, bool source_has_alpha, const std::string& alpha_mode) {
  const std::string ext = lowercase_extension(path);
  const bool format_has_alpha = ext == ".png" || ext == ".tif" || ext == ".tiff" || ext == ".webp" || ext == ".exr";
  return source_has_alpha && alpha_mode == "auto" && format_has_alpha ? 4 : 3;
}

bool uses_fast_png(const std::string& path, const Settings& s) {
  return s.write.png_compression == 1 && lowercase_extension(path) == ".png";
}

}  // namespace gp::tonemap

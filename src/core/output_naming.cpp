#include "core/output_naming.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <unordered_map>

#include "core/error.hpp"
#include "core/outputs.hpp"

namespace gp {
namespace fs = std::filesystem;
namespace {

// Linux's NAME_MAX: the longest file name (one path component) a file system takes.
constexpr std::size_t longest_file_name = 255;

fs::path absolute_normal(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  return (ec ? fs::path(path) : p).lexically_normal();
}

// The folder that holds every path of `folders` (absolute, normal).
fs::path common_folder(const std::vector<fs::path>& folders) {
  if (folders.empty()) return {};
  fs::path common = folders.front();
  for (const fs::path& folder : folders) {
    fs::path shared;
    auto a = common.begin(), b = folder.begin();
    for (; a != common.end() && b != folder.end() && *a == *b; ++a, ++b) shared /= *a;
    common = shared;
  }
  return common;
}

std::string template_text(const nlohmann::ordered_json& config, const std::string& field) {
  try {
    const auto& value = config.at(nlohmann::ordered_json::json_pointer(field));
    if (value.is_string()) return " = \"" + value.get<std::string>() + "\"";
  } catch (const std::exception&) {
  }
  return "";
}

// The ways out, named once at the end of every collision message.
const char* const collision_advice =
    "give each input its own names: {parent} (the input's folder name) or {folder} (its folder under the inputs' "
    "common folder) or {index} in the template, or set output.mirror_inputs to true to write each input's outputs "
    "under its own folder in output.dir";

}  // namespace

std::vector<InputItem> make_input_items(const std::vector<std::string>& paths) {
  std::vector<fs::path> folders;
  folders.reserve(paths.size());
  for (const std::string& p : paths) folders.push_back(absolute_normal(p).parent_path());
  const fs::path common = common_folder(folders);
  std::vector<InputItem> items(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    items[i].path = paths[i];
    items[i].index = i;
    const std::string folder = folders[i].lexically_relative(common).string();
    items[i].folder = folder == "." ? "" : folder;
  }
  return items;
}

const char* const naming_variables_doc =
    "{stem} (input name without extension), {name}, {index} ({index:05} zero-padded), {parent} (the input's folder "
    "name), {folder} (its folder under the inputs' common folder)";

std::map<std::string, std::string> naming_variables(const InputItem& item) {
  const fs::path p(item.path);
  return {{"stem", p.stem().string()},
          {"name", p.filename().string()},
          {"index", std::to_string(item.index)},
          {"parent", absolute_normal(item.path).parent_path().filename().string()},
          {"folder", item.folder.empty() ? "." : item.folder}};
}

std::string OutputNaming::path(const InputItem& item, const std::string& relative_name, const std::string& field) const {
  if (!mirror_inputs || item.folder.empty()) return output_path(dir, relative_name, field);
  return output_path(dir, (fs::path(item.folder) / checked_relative_name(relative_name, field)).string(), field);
}

const char* const mirror_inputs_doc =
    "write each input's outputs under output.dir in the input's folder relative to the inputs' common folder "
    "(shots/a/f1.exr -> out/a/..., shots/b/f1.exr -> out/b/...)";

void check_planned_outputs(const std::vector<InputItem>& items, const std::vector<std::vector<PlannedFile>>& plans,
                           const nlohmann::ordered_json& config) {
  struct Owner {
    std::size_t item;
    const PlannedFile* file;
  };
  std::unordered_map<std::string, Owner> owners;
  std::unordered_map<std::string, std::size_t> inputs;
  for (std::size_t i = 0; i < items.size(); ++i) inputs.emplace(absolute_normal(items[i].path).string(), i);

  for (std::size_t i = 0; i < plans.size(); ++i) {
    for (const PlannedFile& file : plans[i]) {
      const std::string name = fs::path(file.path).filename().string();
      if (name.size() > longest_file_name)
        throw UsageError(fmt::format("{}{}: {} would write the file name \"{}\", {} bytes long; file systems take at "
                                     "most {}",
                                     file.field, template_text(config, file.field), items[i].path, name, name.size(),
                                     longest_file_name));
      const std::string key = absolute_normal(file.path).string();
      if (const auto input = inputs.find(key); input != inputs.end())
        throw UsageError(fmt::format("{}{}: the output {} of {} would replace the input {}; write outputs to another "
                                     "folder or name them differently",
                                     file.field, template_text(config, file.field), file.path, items[i].path,
                                     items[input->second].path));
      const auto [it, fresh] = owners.emplace(key, Owner{i, &file});
      if (fresh) continue;
      const Owner& first = it->second;
      const std::string fields =
          first.file->field == file.field
              ? file.field + template_text(config, file.field)
              : first.file->field + template_text(config, first.file->field) + " and " + file.field +
                    template_text(config, file.field);
      if (first.item == i)
        throw UsageError(fmt::format("output collision: {} would write {} twice ({}); give the templates different "
                                     "names",
                                     items[i].path, first.file->path, fields));
      throw UsageError(fmt::format("output collision: {} and {} would both write {} ({}); {}", items[first.item].path,
                                   items[i].path, first.file->path, fields, collision_advice));
    }
  }
}

}  // namespace gp

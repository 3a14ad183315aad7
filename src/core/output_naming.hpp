#pragma once
// How an input's outputs are named, and the check, made before any work, that no two outputs of a
// job resolve to the same file. Render farms name frames frame_0001.exr in every shot folder, so
// same-named inputs from different folders are the common case: {parent}, {folder} and
// output.mirror_inputs keep them apart.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gp {

// One input of a job as the naming templates see it.
struct InputItem {
  std::string path;       // as expanded (lexically normal)
  std::size_t index = 0;  // position in the whole job's sorted inputs: the same in every shard and on resume
  // The input's folder relative to the folder all of the job's inputs share ("" for inputs in it):
  // shots/a/f1.exr and shots/b/f1.exr give "a" and "b".
  std::string folder;
};

// InputItems for `paths` (the job's sorted inputs), their folders relative to the deepest folder
// that holds them all.
std::vector<InputItem> make_input_items(const std::vector<std::string>& paths);

// Variables every output name template knows: {stem} (name without extension), {name}, {index},
// {parent} (the input's folder's name) and {folder} (InputItem::folder, "." when empty).
std::map<std::string, std::string> naming_variables(const InputItem& item);
// The line listing them, for --print-config docs.
extern const char* const naming_variables_doc;
// The doc of output.mirror_inputs, a field of every batch command.
extern const char* const mirror_inputs_doc;

// The output folder and its mirroring rule, from a validated config's /output/dir and
// /output/mirror_inputs.
struct OutputNaming {
  std::string dir;
  bool mirror_inputs = false;  // each input's outputs go under dir/<InputItem::folder>/

  // The path of an output named `relative_name` (already expanded) for `item`: inside dir (or its
  // mirrored sub-folder), checked as gp::output_path does. Throws UsageError naming `field`.
  std::string path(const InputItem& item, const std::string& relative_name, const std::string& field) const;
};


// One file an input will produce. A file per video frame or per MIP level is planned once, with
// "{frame}" or "{level}" left in its name (planning reads no input): two items whose files share
// such a pattern collide as two files would.
struct PlannedFile {
  std::string path;
  std::string field;  // the config field whose template named it, e.g. "/output/name"
};

// Every output of every item: throws UsageError (exit 2, before any work) when two resolve to the
// same file, across items or inside one, when an output would replace an input, or when a file
// name is longer than the file system allows. The message names both inputs, the path, the
// templates and the ways out ({parent}, {folder}, {index}, output.mirror_inputs).
// `config` (the validated job config) gives the templates the fields hold, for the message.
void check_planned_outputs(const std::vector<InputItem>& items, const std::vector<std::vector<PlannedFile>>& plans,
                           const nlohmann::ordered_json& config);

}  // namespace gp

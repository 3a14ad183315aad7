#include "core/inputs.hpp"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "core/file_checks.hpp"
#include "core/text.hpp"

namespace gp {
namespace fs = std::filesystem;
namespace {

// List files may name other list files; this stops a file that names itself.
constexpr int max_list_nesting = 8;
// No path is longer (PATH_MAX): a longer input (a list's line) is not a file name.
constexpr std::size_t max_input_name_bytes = 4096;
// Reasons for an empty input set shown, of all the folders and lists that gave nothing.
constexpr std::size_t max_reasons_shown = 10;

bool has_wildcard(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

bool is_hidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

// "EXR", "exr" and ".exr" all mean ".exr".
std::vector<std::string> normalised_extensions(const std::vector<std::string>& extensions) {
  std::vector<std::string> out;
  for (const auto& e : extensions)
    if (!e.empty()) out.push_back(lowercase(e[0] == '.' ? e : "." + e));
  return out;
}

// Expansion state shared by the recursive helpers.
struct Expansion {
  std::vector<std::string> extensions;  // normalised
  bool recursive = false;
  bool folders_are_items = false;
  std::vector<std::string> sequence_extensions;
  std::string reader = "this subcommand";  // for messages
  std::string recursive_setting;           // the config field that turns `recursive` on ("" = none)
  bool live_sources = false;
  std::set<std::string> files;             // sorted by bytes, duplicates gone
  // Folders that would be items but hold no file: items only when the set has usable ones too
  // (they fail then, loudly, as before); alone they make the set empty.
  std::set<std::string> empty_item_folders;
  std::vector<std::string> nothing_reasons;  // why each folder or list that gave nothing did

  void add_file(const fs::path& p) { files.insert(p.lexically_normal().string()); }
  bool extension_accepted(const fs::path& p) const {
    return extensions.empty() ||
           std::find(extensions.begin(), extensions.end(), lowercase_extension(p.string())) != extensions.end();
  }
  bool sequence_member(const fs::path& p) const {
    return std::find(sequence_extensions.begin(), sequence_extensions.end(), lowercase_extension(p.string())) !=
           sequence_extensions.end();
  }
};

// Whether the folder's own (not hidden) files include sequence members and no accepted file.
bool is_sequence_folder(const fs::path& dir, const Expansion& x) {
  if (x.sequence_extensions.empty()) return false;
  bool members = false;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (is_hidden(it->path()) || !it->is_regular_file(type_ec)) continue;
    if (!x.extensions.empty() && x.extension_accepted(it->path())) return false;
    members = members || x.sequence_member(it->path());
  }
  return members;
}

// The kinds of file a folder is searched for: "(.exr, .hdr)", with sequence folders.
std::string kinds_text(const Expansion& x) {
  std::string text = x.extensions.empty() ? "any file" : join(x.extensions, ", ");
  if (!x.sequence_extensions.empty()) text += "; or folders of " + join(x.sequence_extensions, ", ") + " images";
  return "(" + text + ")";
}

// Whether a (not hidden) sub-folder of `dir`, at any depth, holds a file of an accepted kind.
bool sub_folders_hold_inputs(const fs::path& dir, const Expansion& x) {
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (is_hidden(it->path())) {
      if (it->is_directory(type_ec)) it.disable_recursion_pending();
      continue;
    }
    if (it.depth() > 0 && it->is_regular_file(type_ec) &&
        (x.extension_accepted(it->path()) || x.sequence_member(it->path())))
      return true;
  }
  return false;
}

// Why a folder gave no item.
std::string nothing_in_folder(const fs::path& dir, const Expansion& x) {
  std::string why = dir.string() + ": no file of the kinds " + x.reader + " reads " + kinds_text(x);
  if (!x.recursive && !x.recursive_setting.empty() && sub_folders_hold_inputs(dir, x))
    why += " (sub-folders are not searched; set " + x.recursive_setting + ")";
  return why;
}

// Whether the folder holds a (not hidden) regular file of its own.
bool has_own_file(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!is_hidden(it->path()) && it->is_regular_file(type_ec)) return true;
  }
  return false;
}

// A folder that is one item (a DICOM series, a TIFF stack), unless it has no file of its own.
void add_item_folder(const fs::path& dir, Expansion& x) {
  if (has_own_file(dir)) return x.add_file(dir);
  x.empty_item_folders.insert(dir.lexically_normal().string());
  x.nothing_reasons.push_back(dir.string() + ": no file in the folder itself (" + x.reader +
                              " reads each folder as one item; name its sub-folders, if any: " +
                              (dir / "*").string() + ")");
}

// Regular files of a folder with an accepted extension; hidden files and folders (temporaries,
// .git, ...) are skipped.
void add_directory(const fs::path& dir, Expansion& x) {
  if (x.folders_are_items) return add_item_folder(dir, x);
  if (is_sequence_folder(dir, x)) return x.add_file(dir);
  const std::size_t before = x.files.size();
  std::error_code ec;
  auto consider = [&](const fs::directory_entry& e) {
    std::error_code type_ec;
    if (!is_hidden(e.path()) && e.is_regular_file(type_ec) && x.extension_accepted(e.path())) x.add_file(e.path());
  };
  if (x.recursive) {
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_directory(type_ec) && (is_hidden(it->path()) || is_sequence_folder(it->path(), x))) {
        if (!is_hidden(it->path())) x.add_file(it->path());  // a sequence: one item, not its files
        it.disable_recursion_pending();
      } else {
        consider(*it);
      }
    }
  } else {
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_directory(type_ec) && !is_hidden(it->path()) && is_sequence_folder(it->path(), x)) x.add_file(it->path());
      else consider(*it);
    }
  }
  if (ec) throw UsageError(dir.string() + ": cannot list the folder: " + ec.message());
  if (x.files.size() == before) x.nothing_reasons.push_back(nothing_in_folder(dir, x));
}

// A file named explicitly, by a glob or a list: taken whatever its extension, if it is a regular
// file (a FIFO or /dev/zero would block or never end).
void add_named_file(const std::string& path, Expansion& x) {
  require_regular_file(path, "input");
  x.add_file(path);
}

void add_pattern(const std::string& pattern, Expansion& x, int nesting);

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// A list entry relative to the list file's folder (keeping a leading '@'), so lists can travel
// with their data.
std::string resolve_list_entry(const std::string& entry, const fs::path& list_folder) {
  const bool is_list = entry[0] == '@';
  const std::string name = is_list ? entry.substr(1) : entry;
  if (list_folder.empty() || name.empty() || fs::path(name).is_absolute()) return entry;
  return (is_list ? "@" : "") + (list_folder / name).string();
}

// One entry per line (any pattern kind, even another @list); lines starting with # are comments
// (a # later in the line belongs to the file name).
void add_list_file(const std::string& list, Expansion& x, int nesting) {
  if (nesting > max_list_nesting) throw UsageError(list + ": list files nest too deeply (a list names itself?)");
  const std::string text = read_text_file(list, max_list_bytes, "list file");
  if (text.find('\0') != std::string::npos)
    throw UsageError("list file: " + list + " holds NUL bytes: not a text list of file names");
  const fs::path folder = fs::path(list).parent_path();
  std::size_t entries = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string entry = trimmed(text.substr(start, end - start));
    start = end + 1;
    if (entry.empty() || entry[0] == '#') continue;
    ++entries;
    add_pattern(resolve_list_entry(entry, folder), x, nesting + 1);
  }
  if (entries == 0) x.nothing_reasons.push_back(list + ": the list file names no input (only blank lines or # comments)");
}

void add_glob(const std::string& pattern, Expansion& x) {
  glob_t g{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
  const std::vector<std::string> matches(g.gl_pathv, g.gl_pathv + g.gl_pathc);
  globfree(&g);
  if (rc == GLOB_NOMATCH || (rc == 0 && matches.empty())) throw UsageError(pattern + ": no file matches this pattern");
  if (rc != 0) throw UsageError(pattern + ": cannot expand this pattern (unreadable folder?)");
  for (const auto& m : matches) {
    if (fs::is_directory(m)) add_directory(m, x);
    else add_named_file(m, x);
  }
}

void add_pattern(const std::string& pattern, Expansion& x, int nesting) {
  if (pattern.empty()) throw UsageError("inputs: empty input name");
  if (pattern.size() > max_input_name_bytes)
    throw UsageError("inputs: \"" + clipped(pattern) + "\" is longer than " + std::to_string(max_input_name_bytes) +
                     " bytes: not a file name");
  if (pattern[0] == '@') return add_list_file(pattern.substr(1), x, nesting);
  if (is_live_source(pattern)) {
    if (!x.live_sources)
      throw UsageError(pattern + ": a live source (a URL or a capture device): " + x.reader +
                       " reads files; track-faces reads live cameras");
    x.files.insert(pattern);
    return;
  }
  if (has_wildcard(pattern)) return add_glob(pattern, x);
  std::error_code ec;
  const auto status = fs::status(pattern, ec);
  if (!fs::exists(status)) throw UsageError(pattern + ": no such file or folder");
  if (fs::is_directory(status)) add_directory(pattern, x);
  else add_named_file(pattern, x);
}

// Why the whole set is empty: each folder and list that gave nothing (the first few).
[[noreturn]] void throw_nothing_to_do(const InputSpec& spec, const Expansion& x) {
  if (spec.patterns.empty())
    throw UsageError("no inputs: give files, folders, globs or @lists on the command line or in the config's inputs");
  std::vector<std::string> shown(x.nothing_reasons.begin(),
                                 x.nothing_reasons.begin() + std::min(x.nothing_reasons.size(), max_reasons_shown));
  if (x.nothing_reasons.size() > shown.size())
    shown.push_back("... and " + std::to_string(x.nothing_reasons.size() - shown.size()) + " more folders or lists");
  throw UsageError("no input to process: " + join(shown, "\n"));
}

// ---- shards -------------------------------------------------------------------------------------

// Digits only (no sign, no spaces): shard numbers come from scripts, and a typo must not pass.
int parse_count(const std::string& text, const std::string& what) {
  const bool digits = !text.empty() && text.size() <= 9 &&
                      std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
  if (!digits) throw UsageError(what + ": expected a non-negative integer, got \"" + text + "\"");
  return std::stoi(text);
}

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

void check_shard(const Shard& s, const std::string& source) {
  if (s.count < 1) throw UsageError(source + ": the shard count must be at least 1");
  if (s.index < 0 || s.index >= s.count)
    throw UsageError(source + ": shard index " + std::to_string(s.index) + " must be less than the count " +
                     std::to_string(s.count) + " (0-based)");
}

Shard shard_from_option(const std::string& text) {
  const std::string source = "--shard " + text;
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw UsageError(source + ": expected i/N (0-based index / count), such as 0/8");
  Shard s{parse_count(text.substr(0, slash), source + ": index"), parse_count(text.substr(slash + 1), source + ": count")};
  check_shard(s, source);
  return s;
}

// Arrays may start anywhere and step (--array=1-16:2): the shard is the task's rank in the array.
Shard shard_from_slurm(const char* task_id) {
  const char* count = env("SLURM_ARRAY_TASK_COUNT");
  if (!count) throw UsageError("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not");
  const int id = parse_count(task_id, "SLURM_ARRAY_TASK_ID");
  const int min = env("SLURM_ARRAY_TASK_MIN") ? parse_count(env("SLURM_ARRAY_TASK_MIN"), "SLURM_ARRAY_TASK_MIN") : 0;
  const int step = env("SLURM_ARRAY_TASK_STEP") ? parse_count(env("SLURM_ARRAY_TASK_STEP"), "SLURM_ARRAY_TASK_STEP") : 1;
  const std::string source = "Slurm array task " + std::string(task_id) + " (SLURM_ARRAY_TASK_MIN " +
                             std::to_string(min) + ", SLURM_ARRAY_TASK_COUNT " + count + ")";
  if (id < min || step < 1 || (id - min) % step != 0)
    throw UsageError(source + ": the task is not on the array's min + k*step grid; use --shard i/N");
  Shard s{(id - min) / step, parse_count(count, "SLURM_ARRAY_TASK_COUNT")};
  check_shard(s, source);
  return s;
}

Shard shard_from_job_index(const char* index, std::optional<int> shard_count) {
  const char* count_env = env("GPUPROC_SHARD_COUNT");
  if (!shard_count && !count_env)
    throw UsageError("JOB_COMPLETION_INDEX is set: give the shard count with --shard-count N (or GPUPROC_SHARD_COUNT)");
  Shard s{parse_count(index, "JOB_COMPLETION_INDEX"),
          shard_count ? *shard_count : parse_count(count_env, "GPUPROC_SHARD_COUNT")};
  check_shard(s, "JOB_COMPLETION_INDEX " + std::string(index));
  return s;
}

}  // namespace

std::vector<std::string> expand_inputs(const InputSpec& spec, const config::json& job_config) {
  Expansion x;
  x.extensions = normalised_extensions(spec.extensions);
  x.recursive = spec.recursive;
  x.folders_are_items = spec.folders_are_items;
  x.sequence_extensions = normalised_extensions(spec.sequence_extensions);
  x.live_sources = spec.live_sources;
  if (job_config.is_object()) {
    const config::json command = job_config.value("command", config::json());
    if (command.is_string() && !command.get<std::string>().empty()) x.reader = command.get<std::string>();
    if (job_config.contains(config::json::json_pointer("/input/recursive"))) x.recursive_setting = "input.recursive";
  }
  for (const auto& p : spec.patterns) add_pattern(p, x, 0);
  if (x.files.empty()) throw_nothing_to_do(spec, x);
  x.files.insert(x.empty_item_folders.begin(), x.empty_item_folders.end());
  return {x.files.begin(), x.files.end()};
}

bool is_live_source(const std::string& input) {
  static const std::regex url("^[A-Za-z][A-Za-z0-9+.-]*://.+"), device("^/dev/video[0-9]+$");
  return std::regex_match(input, url) || std::regex_match(input, device);
}

std::string Shard::str() const { return std::to_string(index) + "/" + std::to_string(count); }

Shard resolve_shard(const std::optional<std::string>& cli_shard, std::optional<int> shard_count) {
  if (cli_shard) return shard_from_option(*cli_shard);
  if (const char* id = env("SLURM_ARRAY_TASK_ID")) return shard_from_slurm(id);
  if (const char* index = env("JOB_COMPLETION_INDEX")) return shard_from_job_index(index, shard_count);
  // A count alone would silently process everything in every task: N times the work.
  if (shard_count && *shard_count != 1)
    throw UsageError("--shard-count " + std::to_string(*shard_count) +
                     " needs JOB_COMPLETION_INDEX (Kubernetes indexed jobs); otherwise use --shard i/N");
  return Shard{};
}

std::vector<std::size_t> shard_indices(std::size_t count, const Shard& shard) {
  std::vector<std::size_t> out;
  for (std::size_t i = std::size_t(shard.index); i < count; i += std::size_t(shard.count)) out.push_back(i);
  return out;
}

std::vector<std::string> select_shard(const std::vector<std::string>& items, const Shard& shard) {
  std::vector<std::string> out;
  for (std::size_t i : shard_indices(items.size(), shard)) out.push_back(items[i]);
  return out;
}

}  // namespace gp

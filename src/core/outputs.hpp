#pragma once
// Output naming and atomic writes: files appear under their final name only once complete, and
// nothing is ever written outside the output folder.
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>

namespace gp {

// Expands a naming template such as "{stem}_mip{level}.{ext}" with `vars` ({stem}, {name},
// {index}, {index:05} zero-padded, and whatever the subcommand adds); "{{" and "}}" are literal
// braces. Unknown {vars} throw gp::UsageError listing the known ones.
std::string expand_template(const std::string& pattern, const std::map<std::string, std::string>& vars);

// Checks a config-supplied relative output name: rejects absolute paths, ".." components, NUL
// bytes, empty names and names of folders (gp::UsageError naming `field`). Returns it normalised
// ("./a//b.png" -> "a/b.png").
std::string checked_relative_name(const std::string& name, const std::string& field);

// Joins dir ("" = the current folder) and a checked relative name, and verifies the result stays
// inside dir, lexically and after resolving symbolic links that already exist. Returns the
// lexically normal path ("out/a.png").
std::string output_path(const std::string& dir, const std::string& relative_name, const std::string& field);

// A hidden temporary name beside `final_path`, in the same folder (so rename is atomic) and with
// the same extension (so writers pick the format by extension):
// "dir/.name.part-<host>-<pid>-<n>.ext", <host> a hash of the host name, so that --resume can tell
// whether a live process owns it; the name part is shortened to keep it within 255 bytes. The path
// is registered as this process's until release_temporary_path (write_atomically does both), so a
// stop by signal can remove what is left (remove_own_temporaries).
std::string temporary_path_for(const std::string& final_path);
void release_temporary_path(const std::string& temp_path);
// Removes every registered temporary that exists; returns how many. Called when a run stops early.
// `for_good` (the process is about to end with work still running): no new temporary is handed
// out any more (temporary_path_for blocks), and a second call removes again those a writer was
// still creating during the first.
int remove_own_temporaries(bool for_good = false);

// Whether atomic writes flush to disk: each file before its rename, its folder after (the default).
// Off (--no-fsync) a reader still never sees a partial file, and a killed process leaves none; only
// a power loss or kernel crash can then leave a file empty or short (as with most tools: ffmpeg,
// oiiotool). Process-wide, set once by the batch runner before any output is written.
void set_outputs_fsync(bool fsync);
bool outputs_fsync();

// Calls write(temp_path), fsyncs the file and renames it over final_path (creating parent folders
// first). On any exception the temporary is removed and the exception propagates.
void write_atomically(const std::string& final_path, const std::function<void(const std::string& temp_path)>& write);

// Several files written as write_atomically does (each file's data on disk before its rename),
// with the folders' entries made durable once per folder at commit() (or destruction) instead of
// once per file: stitch-360 writes 8 views per panorama into one folder, and the fsyncs bound its
// save stage. A crash before commit() may lose renamed files, never leave a torn one; --resume
// redoes what is missing.
class AtomicWriteGroup {
 public:
  AtomicWriteGroup() = default;
  ~AtomicWriteGroup();
  AtomicWriteGroup(const AtomicWriteGroup&) = delete;
  AtomicWriteGroup& operator=(const AtomicWriteGroup&) = delete;

  void write(const std::string& final_path, const std::function<void(const std::string& temp_path)>& write);
  void commit();  // fsyncs each folder written into since the last commit (best effort, as write_atomically)
  std::size_t pending_folders() const { return folders_.size(); }

 private:
  std::set<std::string> folders_;
};

// Removes leftover temporaries (".name.part-<host>-<pid>-<n>.ext", see temporary_path_for) under
// dir that no live process owns: this host's whose process has ended, and, as no process of
// another host can be asked, other hosts' (and older versions' names) unmodified for `min_age`
// (tasks of a Slurm array on other nodes may be writing into the same folder right now). Returns
// how many.
int remove_stale_temporaries(const std::string& dir, std::chrono::seconds min_age = std::chrono::hours(1));

}  // namespace gp

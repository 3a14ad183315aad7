#pragma once
// Output naming and atomic writes: files appear under their final name only once complete, and
// nothing is ever written outside the output folder.
#include <functional>
#include <map>
#include <string>

namespace gp {

// Expands a naming template such as "{stem}_mip{level}.{ext}" with `vars` ({stem}, {name},
// {index}, {index:05} zero-padded, and whatever the subcommand adds). Unknown {vars} throw
// gp::UsageError.
std::string expand_template(const std::string& pattern, const std::map<std::string, std::string>& vars);

// Checks a config-supplied relative output name: rejects absolute paths, ".." components and empty
// names (gp::UsageError naming `field`). Returns it normalised.
std::string checked_relative_name(const std::string& name, const std::string& field);

// Joins dir and a checked relative name, and verifies the result stays inside dir.
std::string output_path(const std::string& dir, const std::string& relative_name, const std::string& field);

// A hidden temporary name beside `final_path`, in the same folder (so rename is atomic) and with
// the same extension (so writers pick the format by extension): "dir/.name.part-<pid>-<n>.ext".
std::string temporary_path_for(const std::string& final_path);

// Calls write(temp_path), fsyncs the file and renames it over final_path (creating parent folders
// first). On any exception the temporary is removed and the exception propagates.
void write_atomically(const std::string& final_path, const std::function<void(const std::string& temp_path)>& write);

// True when the file exists, is a regular file and is not empty (complete, since writes are atomic).
bool output_complete(const std::string& path);

// Removes leftover temporaries ("*.part-*") in dir from killed runs; returns how many.
int remove_stale_temporaries(const std::string& dir);

}  // namespace gp

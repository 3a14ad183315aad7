#include "core/outputs.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <condition_variable>
#include <mutex>
#include <unordered_set>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <regex>

#include "core/error.hpp"
#include "core/text.hpp"

namespace gp {
namespace fs = std::filesystem;
namespace {

std::string known_variables(const std::map<std::string, std::string>& vars) {
  std::string known;
  for (const auto& entry : vars) known += (known.empty() ? "{" : ", {") + entry.first + "}";
  return known.empty() ? "none" : known;
}

// {name:05} -> value zero-padded to 5 characters ({name:5}: space-padded).
std::string padded(const std::string& value, const std::string& width, const std::string& pattern,
                   const std::string& variable) {
  if (width.empty() || width.size() > 3 || width.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("name template \"" + pattern + "\": bad width in {" + variable + ":" + width +
                     "} (expected digits, such as {" + variable + ":05})");
  const std::size_t w = std::stoul(width);
  if (value.size() >= w) return value;
  return std::string(w - value.size(), width[0] == '0' ? '0' : ' ') + value;
}

// The value of the "{...}" that starts at `open`; `close` receives the position of its '}'.
std::string expand_variable(const std::string& pattern, std::size_t open, std::size_t& close,
                            const std::map<std::string, std::string>& vars) {
  close = pattern.find('}', open);
  if (close == std::string::npos)
    throw UsageError("name template \"" + pattern + "\": unclosed { (write {{ for a literal brace)");
  const std::string inside = pattern.substr(open + 1, close - open - 1);
  const auto colon = inside.find(':');
  const std::string variable = inside.substr(0, colon);
  const auto it = vars.find(variable);
  if (it == vars.end())
    throw UsageError("name template \"" + pattern + "\": unknown {" + variable + "}; known: " + known_variables(vars));
  if (colon == std::string::npos) return it->second;
  return padded(it->second, inside.substr(colon + 1), pattern, variable);
}

// True when `path` lies strictly inside `dir` (both in the same form: lexical or canonical).
bool is_inside(const fs::path& path, const fs::path& dir) {
  const fs::path rel = path.lexically_relative(dir);
  return !rel.empty() && rel != "." && *rel.begin() != "..";
}

// `p` with the symbolic links of its existing part resolved; nullopt when that fails.
std::optional<fs::path> resolved(const fs::path& p) {
  std::error_code ec;
  // Absolute first: weakly_canonical returns a relative path with no existing prefix unchanged.
  const fs::path absolute = fs::absolute(p, ec);
  if (ec) return std::nullopt;
  fs::path real = fs::weakly_canonical(absolute, ec);
  if (ec) return std::nullopt;
  return real;
}

std::atomic<bool> outputs_fsync_enabled{true};

void fsync_path(const std::string& path, int flags, const std::string& what) {
  if (!outputs_fsync_enabled) return;
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) throw Error(what + ": cannot open " + path + " to flush it: " + std::strerror(errno));
  const int synced = ::fsync(fd);
  const int saved_errno = errno;
  ::close(fd);
  if (synced != 0) throw Error(what + ": cannot flush " + path + " to disk: " + std::strerror(saved_errno));
}

// The rename itself is made durable by flushing the folder; some file systems refuse, which only
// weakens the crash guarantee, so failures are ignored.
void fsync_folder_best_effort(const fs::path& dir) {
  if (!outputs_fsync_enabled) return;
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// What a temporary's name says of its owner (see temporary_path_for).
struct TemporaryOwner {
  std::string host;  // 8 hex digits; empty in names of earlier versions (".name.part-<pid>-<n>.ext")
  long pid = 0;
};

std::optional<TemporaryOwner> temporary_owner(const std::string& name) {
  static const std::regex current(R"(\..+\.part-([0-9a-f]{8})-(\d{1,9})-\d+(\.[^.]*)?)");
  static const std::regex earlier(R"(\..+\.part-(\d{1,9})-\d+(\.[^.]*)?)");
  std::smatch m;
  if (std::regex_match(name, m, current)) return TemporaryOwner{m[1].str(), std::stol(m[2].str())};
  if (std::regex_match(name, m, earlier)) return TemporaryOwner{"", std::stol(m[1].str())};
  return std::nullopt;
}

// The host part of temporary names: a hash of the host name, 8 hex digits.
const std::string& host_tag() {
  static const std::string tag = [] {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", unsigned(fnv1a64(name) & 0xffffffffu));
    return std::string(hex);
  }();
  return tag;
}

std::string process_name(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

// Whether process `pid` of this host is a live gpuproc (a reused pid of another program is not).
bool live_gpuproc(long pid) {
  if (pid <= 0 || (::kill(pid_t(pid), 0) != 0 && errno != EPERM)) return false;
  return process_name(std::to_string(pid)) == process_name("self");
}

// This process's temporaries not yet renamed or removed.
std::mutex registered_mutex;
std::unordered_set<std::string> registered_temporaries;
bool temporaries_closed = false;                   // the process is ending: none handed out any more
std::vector<std::string> removed_at_close;         // removed once, removed again at the next call

}  // namespace

std::string expand_template(const std::string& pattern, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    const bool doubled = i + 1 < pattern.size() && pattern[i + 1] == c;
    if ((c == '{' || c == '}') && doubled) {  // "{{" and "}}" are literal braces
      out += c;
      ++i;
    } else if (c == '{') {
      std::size_t close = 0;
      out += expand_variable(pattern, i, close, vars);
      i = close;
    } else {
      out += c;
    }
  }
  return out;
}

std::string checked_relative_name(const std::string& name, const std::string& field) {
  if (name.empty()) throw UsageError(field + ": output name is empty");
  if (name.find('\0') != std::string::npos) throw UsageError(field + ": output name contains a NUL byte");
  const fs::path p(name);
  if (p.is_absolute())
    throw UsageError(field + ": output names must be relative to the output folder, got \"" + name + "\"");
  for (const auto& part : p)
    if (part == "..") throw UsageError(field + ": output names must not contain \"..\", got \"" + name + "\"");
  const std::string normal = p.lexically_normal().string();
  if (normal.empty() || normal == "." || normal.back() == '/')
    throw UsageError(field + ": output name \"" + name + "\" names a folder, not a file");
  return normal;
}

std::string output_path(const std::string& dir, const std::string& relative_name, const std::string& field) {
  const std::string rel = checked_relative_name(relative_name, field);
  const fs::path base = fs::path(dir.empty() ? "." : dir).lexically_normal();
  const fs::path full = (base / rel).lexically_normal();
  const std::string leaves = field + ": \"" + relative_name + "\" leaves the output folder " + base.string();
  if (!is_inside(full, base)) throw UsageError(leaves);
  // Symbolic links already in the output folder could still point elsewhere: resolve what exists.
  const auto real_base = resolved(base), real_full = resolved(full);
  if (real_base && real_full && !is_inside(*real_full, *real_base)) throw UsageError(leaves + " through a symbolic link");
  return full.string();
}

void set_outputs_fsync(bool fsync) { outputs_fsync_enabled = fsync; }
bool outputs_fsync() { return outputs_fsync_enabled; }

std::string temporary_path_for(const std::string& final_path) {
  static std::atomic<unsigned long> counter{0};
  const fs::path p(final_path);
  const std::string ext = p.extension().string();
  const std::string suffix = ".part-" + host_tag() + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ext;
  std::string name = p.filename().string();
  // A legal 255-byte name must still get a temporary: shorten the copy of the name it holds.
  constexpr std::size_t longest_name = 255;
  if (1 + name.size() + suffix.size() > longest_name) name.resize(longest_name - 1 - std::min(suffix.size(), longest_name - 2));
  const std::string temp = (p.parent_path() / ("." + name + suffix)).string();
  std::unique_lock<std::mutex> lock(registered_mutex);
  static std::condition_variable never;
  never.wait(lock, [] { return !temporaries_closed; });  // a writer still running as the process ends waits for its end
  registered_temporaries.insert(temp);
  return temp;
}

void release_temporary_path(const std::string& temp_path) {
  std::lock_guard<std::mutex> lock(registered_mutex);
  registered_temporaries.erase(temp_path);
}

int remove_own_temporaries(bool for_good) {
  std::lock_guard<std::mutex> lock(registered_mutex);
  int removed = 0;
  auto remove = [&](const std::string& temp) {
    std::error_code ec;
    if (fs::remove(temp, ec)) ++removed;
  };
  std::for_each(registered_temporaries.begin(), registered_temporaries.end(), remove);
  std::for_each(removed_at_close.begin(), removed_at_close.end(), remove);
  if (for_good) {
    temporaries_closed = true;
    removed_at_close.insert(removed_at_close.end(), registered_temporaries.begin(), registered_temporaries.end());
  }
  registered_temporaries.clear();
  return removed;
}

namespace {

// write_atomically without the folder's fsync; returns the folder.
fs::path write_and_rename(const std::string& final_path, const std::function<void(const std::string&)>& write) {
  const fs::path parent = fs::path(final_path).parent_path();
  std::error_code ec;
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) throw Error(final_path + ": cannot create the folder " + parent.string() + ": " + ec.message());
  }
  const std::string temp = temporary_path_for(final_path);
  try {
    write(temp);
    if (!fs::is_regular_file(temp, ec)) throw Error(final_path + ": the writer produced no file");
    // Data on disk before the rename: a crash leaves the old file or the new one, never a torn one.
    fsync_path(temp, O_RDONLY, final_path);
    fs::rename(temp, final_path, ec);
    if (ec) throw Error(final_path + ": cannot move the finished file into place: " + ec.message());
    release_temporary_path(temp);
  } catch (const ItemError& e) {
    fs::remove(temp, ec);
    release_temporary_path(temp);
    // Writers name the file they were given, the hidden temporary: name the output instead.
    const std::string prefix = temp + ": " + e.stage() + ": ";
    const std::string what = e.what();
    if (e.file() != temp || what.compare(0, prefix.size(), prefix) != 0) throw;
    throw ItemError(final_path, e.stage(), what.substr(prefix.size()));
  } catch (...) {
    fs::remove(temp, ec);
    release_temporary_path(temp);
    throw;
  }
  return parent;
}

}  // namespace

void write_atomically(const std::string& final_path, const std::function<void(const std::string&)>& write) {
  fsync_folder_best_effort(write_and_rename(final_path, write));
}

AtomicWriteGroup::~AtomicWriteGroup() { commit(); }

void AtomicWriteGroup::write(const std::string& final_path, const std::function<void(const std::string&)>& write) {
  folders_.insert(write_and_rename(final_path, write).string());
}

void AtomicWriteGroup::commit() {
  for (const std::string& folder : folders_) fsync_folder_best_effort(folder);
  folders_.clear();
}

int remove_stale_temporaries(const std::string& dir, std::chrono::seconds min_age) {
  int removed = 0;
  const auto now = fs::file_time_type::clock::now();
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    std::error_code entry_ec;
    if (!it->is_regular_file(entry_ec)) continue;
    const auto owner = temporary_owner(it->path().filename().string());
    if (!owner) continue;
    if (owner->host == host_tag()) {
      if (owner->pid == ::getpid() || live_gpuproc(owner->pid)) continue;
    } else {
      const auto modified = it->last_write_time(entry_ec);
      if (entry_ec || now - modified < min_age) continue;  // possibly still being written on another node
    }
    if (fs::remove(it->path(), entry_ec)) ++removed;
  }
  return removed;
}

}  // namespace gp

#pragma once
// What the libraries gpuproc uses say on their own (libav, DCMTK, libpng through OpenImageIO...):
// their log hooks all end here, so that none of it reaches stderr unasked, where it would break
// the one-line-per-failure summary and the JSON-lines progress stream. By default a message is
// only counted (the run report's "library_messages") and kept among its thread's last few, which
// an item's error may quote as the library's reason. With --verbose (set_library_log) each one is
// printed on stderr as one line: a JSON line {"event":"library","source":...,"level":...,"text":...}
// when progress is JSON, "SOURCE: LEVEL: text" otherwise. No library headers here.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace gp {

enum class LibraryLevel { error, warning, info, debug };
const char* library_level_name(LibraryLevel level);  // "error", "warning", "info", "debug"

// How messages are shown from now on: printed when `verbose`, as JSON lines when `json`.
// Hidden and plain by default.
void set_library_log(bool verbose, bool json);

// One message, from any thread. Line breaks inside `text` become "; " and trailing white space
// goes; an empty message is dropped. `show` prints it even without --verbose (an environment
// variable such as GPUPROC_LIBAV_LOG asked for it).
void library_message(std::string_view source, LibraryLevel level, std::string_view text, bool show = false);

// Messages per source since the process started.
std::map<std::string, std::size_t> library_message_counts();

// The library's own words for a failure on this thread: library_reason(mark) is "" when this
// thread got no message of level warning or worse since mark = library_mark(), else the last
// few of them as "source: text; source: text".
std::uint64_t library_mark();
std::string library_reason(std::uint64_t mark);

}  // namespace gp

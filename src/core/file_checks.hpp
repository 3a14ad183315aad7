#pragma once
// Files a user names (configs, @lists, inputs, models, masks, background images, reports) must be
// regular files, and text read from them is capped: /dev/zero, a FIFO or a socket must never make
// a run hang or read without end. Every refusal is a gp::UsageError (exit 2) naming the file.
#include <cstdint>
#include <string>

namespace gp {

// Size caps of the text files the tool reads whole (bytes).
inline constexpr std::uint64_t max_config_bytes = 16u << 20;  // job configs (100,000 inputs fit; beyond, an @list)
inline constexpr std::uint64_t max_list_bytes = 64u << 20;    // @list files (~600,000 paths; lists may name lists)
inline constexpr std::uint64_t max_report_bytes = 1u << 30;   // --report files read by merge-reports

// Checks with stat(2) (following symbolic links, never opening, so a FIFO cannot block) that
// `path` is a regular file. Throws gp::UsageError "<what>: <path> is a FIFO (named pipe), not a
// regular file" (a character device, a block device, a socket, a folder), "<what>: <path> does
// not exist" or "<what>: <path>: <errno text>". `what` names the file's role: a config field
// ("/mask/image"), "config file", "list file", "input".
void require_regular_file(const std::string& path, const std::string& what);

// The whole text of a regular file of at most `max_bytes`: checked as require_regular_file does,
// opened non-blocking and checked again on the open descriptor, then read up to max_bytes + 1
// bytes (files that report no size, as under /proc, are still bounded). Throws gp::UsageError
// naming `what` and the file, with the cap when it is larger.
std::string read_text_file(const std::string& path, std::uint64_t max_bytes, const std::string& what);

}  // namespace gp

#pragma once
// Turns the inputs of a job (files, directories, globs, @list files) into a deterministic, sorted
// list, and picks this process's shard of it.
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"

namespace gp {

struct InputSpec {
  std::vector<std::string> patterns;    // file, directory, glob (*, ?, [..]) or "@list.txt"
  std::vector<std::string> extensions;  // for directories: accepted extensions (".exr"; case ignored)
  bool recursive = false;               // descend into sub-directories of directory inputs
  bool folders_are_items = false;       // a folder is one item (a DICOM series, a TIFF stack)
  // A folder holding files with these extensions and none with `extensions` is one item (a
  // camera recorded as an image sequence, among cameras recorded as videos).
  std::vector<std::string> sequence_extensions = {};
  // Live sources (is_live_source) are items as they are (track-faces' cameras); otherwise refused.
  bool live_sources = false;
};

// A live source rather than a file: a URL (scheme://..., e.g. rtsp://, udp://, srt://, http://)
// or a V4L2 capture device (/dev/videoN). Never complete for --resume; read until it ends.
bool is_live_source(const std::string& input);

// Expands the patterns; paths lexically normalised ("./a.exr" -> "a.exr"), duplicates removed,
// sorted by path (byte order). Folders give their regular files with an accepted extension, hidden
// ones skipped; a file named explicitly (or through a glob or a list) is taken whatever its
// extension, but must be a regular file: a FIFO, a device or a socket is refused. A pattern that
// matches nothing, a missing file, a name longer than 4096 bytes or an unreadable list file throws
// gp::UsageError naming it. List files (regular, at most max_list_bytes, no NUL byte) hold one
// entry per line (lines starting with # and blank lines ignored); relative entries are relative to
// the list file's folder.
//
// An expansion that gives nothing throws gp::UsageError saying why: no patterns at all, or for
// each folder and list that gave nothing, what was looked for. With folders_are_items, a folder
// with no file of its own is an item only beside usable ones. `job_config` (the validated job
// config; optional) gives the messages the subcommand's name ("command") and the setting to
// suggest when sub-folders hold inputs (input.recursive, where the config has it).
std::vector<std::string> expand_inputs(const InputSpec& spec, const config::json& job_config = {});

struct Shard {
  int index = 0;  // 0-based
  int count = 1;
  bool active() const { return count > 1; }
  std::string str() const;  // "2/8"
};

// "--shard i/N" (0-based i) when given; else Slurm's SLURM_ARRAY_TASK_ID (its rank from
// SLURM_ARRAY_TASK_MIN by SLURM_ARRAY_TASK_STEP) and SLURM_ARRAY_TASK_COUNT; else Kubernetes'
// JOB_COMPLETION_INDEX with `shard_count` (from --shard-count, else GPUPROC_SHARD_COUNT) as the
// count; else 0/1. Throws gp::UsageError on bad values, and for a shard_count other than 1 with
// nothing to pair it with (every task would process everything).
Shard resolve_shard(const std::optional<std::string>& cli_shard, std::optional<int> shard_count);

// Items k with k % count == index, in order: a deterministic 1/N that balances sizes well when the
// inputs are a numbered sequence.
std::vector<std::string> select_shard(const std::vector<std::string>& items, const Shard& shard);
// The positions select_shard picks out of `count` items.
std::vector<std::size_t> shard_indices(std::size_t count, const Shard& shard);

}  // namespace gp

#pragma once
// Turns the inputs of a job (files, directories, globs, @list files) into a deterministic, sorted
// list, and picks this process's shard of it.
#include <optional>
#include <string>
#include <vector>

namespace gp {

struct InputSpec {
  std::vector<std::string> patterns;    // file, directory, glob (*, ?, [..]) or "@list.txt"
  std::vector<std::string> extensions;  // for directories: accepted extensions, lower case with dot
  bool recursive = false;               // descend into sub-directories of directory inputs
};

// Expands the patterns; duplicates removed, sorted by path (byte order). A pattern that matches
// nothing, or an unreadable list file, throws gp::UsageError naming it. List files hold one path
// per line (# comments, blank lines ignored); relative lines are relative to the list file.
std::vector<std::string> expand_inputs(const InputSpec& spec);

struct Shard {
  int index = 0;  // 0-based
  int count = 1;
  bool active() const { return count > 1; }
  std::string str() const;  // "2/8"
};

// "--shard i/N" (0-based i) when given; else Slurm's SLURM_ARRAY_TASK_ID (minus
// SLURM_ARRAY_TASK_MIN) and SLURM_ARRAY_TASK_COUNT; else Kubernetes' JOB_COMPLETION_INDEX with
// `shard_count` (from --shard-count) as the count; else 0/1. Throws gp::UsageError on bad values.
Shard resolve_shard(const std::optional<std::string>& cli_shard, std::optional<int> shard_count);

// Items k with k % count == index, in order: a deterministic 1/N that balances sizes well when the
// inputs are a numbered sequence.
std::vector<std::string> select_shard(const std::vector<std::string>& items, const Shard& shard);

}  // namespace gp

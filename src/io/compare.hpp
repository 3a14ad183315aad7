#pragma once
// The engine of `gpuproc compare A B`, for CI regression runs: images (any format OIIO reads),
// CSV tables, JSON and text files, or whole folders of them.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gp::io {

struct CompareOptions {
  // Images: largest allowed |a-b| per sample, in units where integer formats span [0,1] (1/255 is
  // one 8-bit step; float formats compare their raw values). Tables: absolute number tolerance.
  // 0 = exact.
  double tolerance = 0;
  // Tables (CSV, JSON): relative number tolerance, |a-b| <= r * max(|a|,|b|). A number passes
  // when either tolerance accepts it.
  double relative_tolerance = 0;
  // Images: also equal when their PSNR (peak 1) is at least this many dB, however large single
  // differences are: for outputs of different codecs (nvJPEG against libjpeg-turbo upsample
  // chroma differently at sharp edges). 0 = off.
  double min_psnr_db = 0;
};

struct CompareResult {
  bool equal = true;
  // One line per problem, "<file>: <what>": the file is path A for two files, the relative name
  // for folders. Images: pixels over tolerance, per-channel max difference, PSNR; CSV: the first
  // differing cell (row, column, line) and how many differ; JSON: the JSON pointer of the first
  // difference; folders: "only in A" / "only in B"; unreadable files: why.
  std::vector<std::string> differences;
  // {"a", "b", "tolerance", "relative_tolerance", "min_psnr_db", "equal",
  //  "files": {<name>: {"kind": "image"|"csv"|"json", "equal", metrics...}},
  //  "only_in_a": [...], "only_in_b": [...]}   (the last two for folders)
  // Image metrics: width, height, channels, max_abs_difference {channel: value},
  // differing_pixels, pixels_over_tolerance, psnr_db (null when identical), worst {x, y, channel}.
  nlohmann::ordered_json details = nlohmann::ordered_json::object();
};

// Compares two files or two folders (recursively: files with the same relative names; hidden
// files are skipped). A file's kind comes from its extension: .csv, .json/.jsonl/.ndjson (JSON
// lines compare as an array of lines), .txt (exactly, line by line), anything else is an image. A file that cannot be read or
// parsed is a difference, not an error. Throws gp::UsageError when a path does not exist, when
// one is a file and the other a folder, when two files are of different kinds, or when a
// tolerance is negative or not a number.
CompareResult compare_paths(const std::string& a, const std::string& b, const CompareOptions& options = {});

}  // namespace gp::io

#pragma once
// The engine of `gpuproc compare A B`, for CI regression runs: every format a gpuproc subcommand
// writes (images with all their subimages and MIP levels, videos frame by frame, NRRD volumes, VTK
// PolyData, Statoil network files, CSV, JSON and text), or whole folders of them.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gp::tools {

struct CompareOptions {
  // Largest allowed |a-b| of a number: image and video samples in units where integer formats
  // span [0,1] (1/255 is one 8-bit step; float images compare their raw values); NRRD voxels, VTP
  // array values, table and text numbers as written. 0 = exact.
  double tolerance = 0;
  // Relative number tolerance, |a-b| <= r * max(|a|,|b|), for every number except the samples
  // of integer-format images and videos (whose fixed range the absolute tolerance describes):
  // float images (EXR, HDR, PFM), voxels, VTP values, tables and text. A number passes when
  // either tolerance accepts it.
  double relative_tolerance = 0;
  // Images and video frames: also equal when their PSNR (peak 1) is at least this many dB,
  // however large single differences are: for outputs of different codecs (nvJPEG against
  // libjpeg-turbo upsample chroma differently at sharp edges). 0 = off.
  double min_psnr_db = 0;
  // JSON and JSON lines: object members of these names are skipped at any depth, e.g. the
  // wall-clock times in segment-pnm's summary.json (seconds_load, seconds_after_load, stage_seconds).
  std::vector<std::string> ignored_keys;
};

struct CompareResult {
  // Equal within the tolerances; false as well when a file could not be compared.
  bool equal = true;
  // False when a file could not be compared: unreadable, unparseable, or of a format compare does
  // not know (`gpuproc compare` exits 2 then, never 1).
  bool comparable = true;
  // One line per difference, "<file>: <what>": the file is path A for two files, the relative
  // name for folders. Images: pixels over tolerance, per-channel max difference, PSNR (per
  // subimage and MIP level); videos: the first differing frame; NRRD: header fields, the first
  // differing voxel (x, y, z) and the count; VTP: per data array, its first differing value;
  // CSV: the first differing cell (row, column, line); text and Statoil: the first differing
  // token (line, column); JSON: the JSON pointer of the first difference; folders: "only in A" /
  // "only in B".
  std::vector<std::string> differences;
  // One line per file that could not be compared: why, naming the file (its full path).
  std::vector<std::string> errors;
  // {"a", "b", "tolerance", "relative_tolerance", "min_psnr_db", "ignored_keys", "equal", "comparable",
  //  "files": {<name>: {"kind", "equal", metrics... or "error"}},
  //  "only_in_a": [...], "only_in_b": [...], "cannot_compare": [...]}   (the last three for folders)
  // kind: image, video, nrrd, vtp, statoil, text, csv, json. Image metrics: width, height,
  // channels, max_abs_difference {channel: value}, differing_pixels, pixels_over_tolerance,
  // psnr_db (null when identical), worst {x, y, channel}, and "levels" (the same per subimage and
  // MIP level) for files with more than one. Video: width, height, channels, frames, frame_rate,
  // differing_frames, max_abs_difference, min_psnr_db, first_differing_frame {frame, metrics...}.
  // NRRD: type, sizes, header_differences, differing_voxels, max_abs_difference,
  // first_difference {x, y, z (index for other dimensions), a, b}. VTP: pieces, points, cells,
  // arrays, differing_values, first_difference {array, tuple, component, a, b}. Text and
  // Statoil: lines, differing_tokens, first_difference {line, column, a, b}. CSV: rows, columns,
  // differing_cells, first_difference {row, column, column_name, line, a, b}. JSON:
  // first_difference {pointer, what}.
  nlohmann::ordered_json details = nlohmann::ordered_json::object();
};

// Compares two files or two folders (recursively: files with the same relative names; hidden
// files and folders are skipped). A file's kind comes from its extension (see compare.cpp's
// table); an unknown extension, an unreadable or unparseable file makes the result not comparable
// (inside folders too: the other files are still compared). Throws gp::UsageError when a path
// does not exist or is not a regular file or folder, when one is a file and the other a folder,
// when two files are of different kinds, or when an option is negative or not a number.
CompareResult compare_paths(const std::string& a, const std::string& b, const CompareOptions& options = {});

}  // namespace gp::tools

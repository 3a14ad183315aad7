// DICOM series assembly as segment-pnm reads it: read_volume(files, format "dicom") parses every
// file's header (DCMTK), checks that they form one series, orders the frames, decodes them and
// builds the volume. The input is one file, or a small series: the parts between separators
// (kSliceSeparator, at most kMaxSlices) are written as slice_0.dcm, slice_1.dcm, ...
// gp::Error (ItemError) is the documented outcome of an unreadable or inconsistent series;
// anything else is a finding.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "fuzz_files.hpp"
#include "io/volume_reader.hpp"

namespace {
constexpr char kSliceSeparator[] = "\n--gpuproc-fuzz-next-slice--\n";
constexpr std::size_t kMaxSlices = 4;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t* end = data + size;
  const std::size_t separator_size = std::strlen(kSliceSeparator);
  std::vector<std::string> files;
  for (const std::uint8_t* begin = data; files.size() < kMaxSlices;) {
    const std::uint8_t* next = std::search(begin, end, kSliceSeparator, kSliceSeparator + separator_size);
    if (files.size() + 1 == kMaxSlices) next = end;  // the last slice takes the rest
    files.push_back(gp::fuzz::write_input("slice_" + std::to_string(files.size()) + ".dcm", begin,
                                          std::size_t(next - begin)));
    if (next == end) break;
    begin = next + separator_size;
  }

  gp::io::VolumeReadOptions options;
  options.format = "dicom";
  options.threads = 1;
  try {
    const gp::io::Volume volume = gp::io::read_volume(files, options);
    if (volume.values.size() != volume.dims.voxels()) std::abort();
  } catch (const gp::Error&) {
  }
  return 0;
}

// Raw volumes as segment-pnm reads them: read_volume(file, format "raw") with the layout, crop
// and downsampling taken from the input's first kParamBytes bytes and the rest as the file.
// Values stay within what the config schema allows. gp::Error (ItemError for a file of the
// wrong size, UsageError for a crop or downsample that does not fit) is the documented outcome;
// anything else is a finding, and so is a volume whose size disagrees with its dims.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "fuzz_files.hpp"
#include "io/volume_reader.hpp"

namespace {
constexpr std::size_t kParamBytes = 13;
const char* const kDtypes[] = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "float64"};
const double kSlopes[] = {1, -1, 0.5, 1e-3, 1e12, -1e12, 0, 3};
const double kIntercepts[] = {0, -1024, 1, 1e12, -1e12, 0.25, 7, -3};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < kParamBytes) return 0;
  const std::uint8_t* p = data;
  gp::io::VolumeReadOptions options;
  options.format = "raw";
  options.threads = 1;
  auto& raw = options.raw;
  raw.dtype = kDtypes[p[0] % 8];
  raw.big_endian = p[0] & 0x10;
  raw.header_bytes = p[1] % 64;
  raw.dims.nx = 1 + p[2] % 32;
  raw.dims.ny = 1 + p[3] % 32;
  // nz 0: as many slices as the file holds (so that most inputs have a valid size).
  const std::size_t payload = size - kParamBytes;
  const std::size_t slice_bytes = std::size_t(raw.dims.nx) * std::size_t(raw.dims.ny) * gp::io::raw_dtype_bytes(raw.dtype);
  raw.dims.nz = p[4] % 16 ? p[4] % 16
                          : int(std::min<std::size_t>(payload > raw.header_bytes ? (payload - raw.header_bytes) / slice_bytes : 0, 4096));
  for (int a = 0; a < 3; ++a) {
    options.crop_begin[std::size_t(a)] = p[5 + a] % 8;
    options.crop_size[std::size_t(a)] = p[8 + a] % 16;  // 0 = to the end
  }
  options.downsample = 1 + p[11] % 4;
  options.slope = kSlopes[p[12] % 8];
  options.intercept = kIntercepts[(p[12] >> 3) % 8];
  if (p[12] & 0x40) {
    options.spacing_given = true;
    options.spacing = {0.5, 2, 1.25};
  }

  const std::string path = gp::fuzz::write_input("volume.raw", data + kParamBytes, payload);
  try {
    const gp::io::Volume volume = gp::io::read_volume({path}, options);
    if (volume.values.size() != volume.dims.voxels()) std::abort();
  } catch (const gp::Error&) {
  }
  return 0;
}

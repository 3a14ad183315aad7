#pragma once
// What an EXR block is made of, as cuda/exr's steps take it: its compression, its channels' sample
// types and where their samples go.
#include "cuda/common/host_device.hpp"

namespace gp::exr {

// The compressions decoded here (OpenEXR's numbering).
enum class Compression : int { none = 0, rle = 1, zips = 2, zip = 3, piz = 4 };

enum class SampleType : int { uint32 = 0, half = 1, float32 = 2 };  // EXR_PIXEL_*

GP_HD int sample_bytes(SampleType t) { return t == SampleType::half ? 2 : 4; }

// Where one stored channel's samples go in the destination: a value slot of each pixel (-1: not
// read), stored as `stored`.
struct ChannelTarget {
  SampleType stored;
  int slot;
};

}  // namespace gp::exr

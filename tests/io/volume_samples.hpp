#pragma once
// Test volumes for the volume readers (raw, NRRD, MetaImage): a known value per voxel, written in
// any sample type and byte order, and the error a read gives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "io/volume_reader.hpp"

namespace gp::test {

// A value per voxel that every sample type holds exactly (small integers, some negative).
inline double pattern(int x, int y, int z) { return (x + 3 * y + 7 * z) % 50 - 20; }

template <class T>
void append_sample(std::string& bytes, T value, bool big_endian) {
  char b[sizeof(T)];
  std::memcpy(b, &value, sizeof(T));
  if (big_endian) std::reverse(b, b + sizeof(T));
  bytes.append(b, sizeof(T));
}

// pattern() over `d` in `dtype` (raw names uint8..float64 or NRRD names float/double; unsigned
// types get +20 so they stay non-negative), x fastest.
inline std::string pattern_samples(io::Dims3 d, const std::string& dtype, bool big_endian) {
  std::string bytes;
  for (int z = 0; z < d.nz; ++z)
    for (int y = 0; y < d.ny; ++y)
      for (int x = 0; x < d.nx; ++x) {
        const double v = pattern(x, y, z);
        if (dtype == "uint8") append_sample<std::uint8_t>(bytes, std::uint8_t(v + 20), big_endian);
        if (dtype == "int8") append_sample<std::int8_t>(bytes, std::int8_t(v), big_endian);
        if (dtype == "uint16") append_sample<std::uint16_t>(bytes, std::uint16_t(v + 20), big_endian);
        if (dtype == "int16") append_sample<std::int16_t>(bytes, std::int16_t(v), big_endian);
        if (dtype == "uint32") append_sample<std::uint32_t>(bytes, std::uint32_t(v + 20), big_endian);
        if (dtype == "int32") append_sample<std::int32_t>(bytes, std::int32_t(v), big_endian);
        if (dtype == "float32" || dtype == "float") append_sample<float>(bytes, float(v), big_endian);
        if (dtype == "float64" || dtype == "double") append_sample<double>(bytes, v, big_endian);
      }
  return bytes;
}

// The message of the error reading `paths` gives (a test failure when it reads).
inline std::string volume_load_error(const std::vector<std::string>& paths, const io::VolumeReadOptions& options) {
  try {
    io::read_volume(paths, options);
  } catch (const gp::Error& e) {
    return e.what();
  }
  FAIL("no error");
  return {};
}

}  // namespace gp::test

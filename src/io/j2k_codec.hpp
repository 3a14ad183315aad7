#pragma once
// JPEG 2000 codestreams (DICOM transfer syntaxes 1.2.840.10008.1.2.4.90 and .91) through
// OpenJPEG: DCMTK in Debian 12 has no JPEG 2000 codec.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gp::io {

// One grey image: the decoded samples (stored values, sign-extended when `is_signed`).
struct J2kImage {
  int width = 0, height = 0, components = 0;
  int precision = 0;  // bits per sample
  bool is_signed = false;
  std::vector<std::int32_t> samples;  // first component, width * height, row by row
};

// Decodes a J2K codestream (or a JP2 file, told apart by its signature) held in memory. Throws
// std::runtime_error with OpenJPEG's message when it cannot.
J2kImage decode_j2k(const std::uint8_t* data, std::size_t bytes);

// Encodes one grey image losslessly (reversible 5/3 wavelet, one quality layer) as a J2K
// codestream: for tests and writers. Throws std::runtime_error when OpenJPEG fails.
std::vector<std::uint8_t> encode_j2k_lossless(const std::int32_t* samples, int width, int height, int precision,
                                              bool is_signed);

}  // namespace gp::io

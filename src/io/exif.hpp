#pragma once
// A minimal Exif block for perspective views cut from a panorama: focal length, its 35 mm
// equivalent and the pixel size, spliced into an encoded JPEG without re-encoding it.
#include <cstdint>
#include <string>
#include <vector>

namespace gp::io {

struct ExifFields {
  double focal_length_mm = 0;   // FocalLength (RATIONAL); left out when <= 0
  int focal_length_35mm = 0;    // FocalLengthIn35mmFilm (SHORT); left out when <= 0
  int pixel_width = 0;          // PixelXDimension (LONG); left out when <= 0
  int pixel_height = 0;         // PixelYDimension (LONG); left out when <= 0
  std::string image_description;  // IFD0 ImageDescription (ASCII); left out when empty
  std::string software;            // IFD0 Software (ASCII); left out when empty
};

// The whole APP1 segment: FF E1, length, "Exif\0\0", then a little-endian TIFF with IFD0 (the
// fields above plus the resolution and YCbCrPositioning tags Exif requires) pointing to an Exif IFD
// (ExifVersion 0232, FlashpixVersion, ColorSpace sRGB, ComponentsConfiguration and the fields).
// Throws gp::Error when the strings make it longer than a segment can be (64 KiB).
std::vector<std::uint8_t> exif_app1_segment(const ExifFields& fields);

// Inserts `segment` (a complete marker segment) after SOI, or after a JFIF APP0 that directly
// follows SOI (JFIF wants APP0 first). Throws gp::Error when `jpeg` does not start with SOI.
void insert_jpeg_segment(std::vector<std::uint8_t>& jpeg, const std::vector<std::uint8_t>& segment);

// Both, on a JPEG that must carry no Exif yet (throws gp::Error when it already has an Exif APP1).
void insert_exif(std::vector<std::uint8_t>& jpeg, const ExifFields& fields);

}  // namespace gp::io

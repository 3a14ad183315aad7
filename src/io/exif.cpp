// Exif APP1 writer: a little-endian TIFF structure (header, IFD0, Exif IFD) per Exif 2.32 (CIPA
// DC-008), laid out by hand since it holds a handful of tags.
#include "io/exif.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "core/error.hpp"

namespace gp::io {

namespace {

enum TiffType : std::uint16_t { ascii = 2, short_ = 3, long_ = 4, rational = 5, undefined = 7 };

struct Entry {
  std::uint16_t tag;
  std::uint16_t type;
  std::uint32_t count;
  std::vector<std::uint8_t> value;  // little-endian bytes
};

void put16(std::vector<std::uint8_t>& out, std::uint32_t v) {
  out.push_back(std::uint8_t(v));
  out.push_back(std::uint8_t(v >> 8));
}
void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  put16(out, v & 0xFFFF);
  put16(out, v >> 16);
}

Entry short_entry(std::uint16_t tag, unsigned v) {
  Entry e{tag, short_, 1, {}};
  put16(e.value, v);
  return e;
}
Entry long_entry(std::uint16_t tag, std::uint32_t v) {
  Entry e{tag, long_, 1, {}};
  put32(e.value, v);
  return e;
}
Entry rational_entry(std::uint16_t tag, std::uint32_t numerator, std::uint32_t denominator) {
  const std::uint32_t d = std::gcd(numerator, denominator);
  Entry e{tag, rational, 1, {}};
  put32(e.value, d ? numerator / d : numerator);
  put32(e.value, d ? denominator / d : denominator);
  return e;
}
Entry ascii_entry(std::uint16_t tag, const std::string& text) {
  Entry e{tag, ascii, std::uint32_t(text.size() + 1), {}};
  e.value.assign(text.begin(), text.end());
  e.value.push_back(0);
  return e;
}
Entry undefined_entry(std::uint16_t tag, const char (&bytes)[5]) {
  return Entry{tag, undefined, 4, std::vector<std::uint8_t>(bytes, bytes + 4)};
}

std::size_t padded(std::size_t n) { return n + (n & 1); }  // TIFF offsets are even

// Bytes an IFD takes with the values that do not fit its 4-byte fields.
std::size_t ifd_bytes(const std::vector<Entry>& entries) {
  std::size_t bytes = 2 + 12 * entries.size() + 4;
  for (const Entry& e : entries)
    if (e.value.size() > 4) bytes += padded(e.value.size());
  return bytes;
}

// Appends the IFD (entries sorted by tag) at offset tiff.size() from the TIFF header, then its values.
void write_ifd(std::vector<std::uint8_t>& tiff, const std::vector<Entry>& entries, std::uint32_t next_ifd) {
  const std::size_t start = tiff.size();
  std::size_t value_offset = start + 2 + 12 * entries.size() + 4;
  put16(tiff, std::uint32_t(entries.size()));
  for (const Entry& e : entries) {
    put16(tiff, e.tag);
    put16(tiff, e.type);
    put32(tiff, e.count);
    if (e.value.size() <= 4) {
      for (std::size_t i = 0; i < 4; ++i) tiff.push_back(i < e.value.size() ? e.value[i] : 0);
    } else {
      put32(tiff, std::uint32_t(value_offset));
      value_offset += padded(e.value.size());
    }
  }
  put32(tiff, next_ifd);
  for (const Entry& e : entries) {
    if (e.value.size() <= 4) continue;
    tiff.insert(tiff.end(), e.value.begin(), e.value.end());
    if (e.value.size() & 1) tiff.push_back(0);
  }
}

// `segment` starts at its marker and holds `bytes` bytes.
bool is_exif_app1(const std::uint8_t* segment, std::size_t bytes) {
  return bytes >= 10 && std::memcmp(segment + 4, "Exif\0\0", 6) == 0;
}

}  // namespace

std::vector<std::uint8_t> exif_app1_segment(const ExifFields& fields) {
  std::vector<Entry> ifd0;
  if (!fields.image_description.empty()) ifd0.push_back(ascii_entry(0x010E, fields.image_description));
  ifd0.push_back(rational_entry(0x011A, 72, 1));  // XResolution
  ifd0.push_back(rational_entry(0x011B, 72, 1));  // YResolution
  ifd0.push_back(short_entry(0x0128, 2));         // ResolutionUnit: inches
  if (!fields.software.empty()) ifd0.push_back(ascii_entry(0x0131, fields.software));
  ifd0.push_back(short_entry(0x0213, 1));  // YCbCrPositioning: centred
  ifd0.push_back(long_entry(0x8769, 0));   // Exif IFD pointer, set below

  std::vector<Entry> exif;
  exif.push_back(undefined_entry(0x9000, "0232"));  // ExifVersion
  exif.push_back(Entry{0x9101, undefined, 4, {1, 2, 3, 0}});  // ComponentsConfiguration: Y Cb Cr
  if (fields.focal_length_mm > 0) {
    // Millimetres to 1/1000 mm: more than any lens model needs, and within 32 bits to 4 km.
    const double thousandths = std::round(fields.focal_length_mm * 1000.0);
    if (thousandths > 4294967295.0) throw Error("Exif: focal length " + std::to_string(fields.focal_length_mm) + " mm is too long");
    exif.push_back(rational_entry(0x920A, std::uint32_t(std::max(1.0, thousandths)), 1000));
  }
  exif.push_back(undefined_entry(0xA000, "0100"));  // FlashpixVersion
  exif.push_back(short_entry(0xA001, 1));           // ColorSpace: sRGB
  if (fields.pixel_width > 0) exif.push_back(long_entry(0xA002, std::uint32_t(fields.pixel_width)));
  if (fields.pixel_height > 0) exif.push_back(long_entry(0xA003, std::uint32_t(fields.pixel_height)));
  if (fields.focal_length_35mm > 0) exif.push_back(short_entry(0xA405, unsigned(std::min(fields.focal_length_35mm, 65535))));

  const std::size_t ifd0_offset = 8;
  const std::size_t exif_offset = ifd0_offset + ifd_bytes(ifd0);
  const std::size_t tiff_bytes = exif_offset + ifd_bytes(exif);
  constexpr std::size_t max_tiff = 65535 - 2 - 6;  // segment length field counts itself and "Exif\0\0"
  if (tiff_bytes > max_tiff)
    throw Error("Exif: the block takes " + std::to_string(tiff_bytes) + " bytes, more than an APP1 segment holds (" +
                std::to_string(max_tiff) + "); shorten the description or software text");
  ifd0.back().value.clear();
  put32(ifd0.back().value, std::uint32_t(exif_offset));

  std::vector<std::uint8_t> tiff = {'I', 'I', 42, 0};
  put32(tiff, std::uint32_t(ifd0_offset));
  write_ifd(tiff, ifd0, 0);
  write_ifd(tiff, exif, 0);

  std::vector<std::uint8_t> segment = {0xFF, 0xE1};
  const std::size_t length = 2 + 6 + tiff.size();
  segment.push_back(std::uint8_t(length >> 8));
  segment.push_back(std::uint8_t(length));
  segment.insert(segment.end(), {'E', 'x', 'i', 'f', 0, 0});
  segment.insert(segment.end(), tiff.begin(), tiff.end());
  return segment;
}

void insert_jpeg_segment(std::vector<std::uint8_t>& jpeg, const std::vector<std::uint8_t>& segment) {
  if (jpeg.size() < 4 || jpeg[0] != 0xFF || jpeg[1] != 0xD8) throw Error("insert JPEG segment: not a JPEG (no SOI marker)");
  std::size_t at = 2;
  if (jpeg.size() >= 11 && jpeg[2] == 0xFF && jpeg[3] == 0xE0 && std::memcmp(&jpeg[6], "JFIF\0", 5) == 0) {
    const std::size_t app0 = 2 + (std::size_t(jpeg[4]) << 8 | jpeg[5]);
    if (2 + app0 <= jpeg.size()) at = 2 + app0;
  }
  jpeg.insert(jpeg.begin() + std::ptrdiff_t(at), segment.begin(), segment.end());
}

void insert_exif(std::vector<std::uint8_t>& jpeg, const ExifFields& fields) {
  // Look through the header segments (up to the first scan) for an Exif APP1.
  for (std::size_t pos = 2; pos + 4 <= jpeg.size() && jpeg[pos] == 0xFF;) {
    const unsigned marker = jpeg[pos + 1];
    if (marker == 0xDA || marker == 0xD9) break;
    const std::size_t length = std::size_t(jpeg[pos + 2]) << 8 | jpeg[pos + 3];
    if (marker == 0xE1 && pos + 2 + length <= jpeg.size() && is_exif_app1(&jpeg[pos], length + 2))
      throw Error("insert Exif: the JPEG already has an Exif block");
    pos += 2 + length;
  }
  insert_jpeg_segment(jpeg, exif_app1_segment(fields));
}

}  // namespace gp::io

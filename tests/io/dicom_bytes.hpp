#pragma once
// Hand-made DICOM files (explicit VR little endian) for reader tests that need what our writer
// does not produce: 8- and 32-bit pixels, BitsStored < BitsAllocated, legacy multi-frame objects,
// objects without pixel data.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace gp::test {

struct DicomElement {
  std::uint16_t group, element;
  std::string vr;
  std::string value;  // raw bytes (padded to even length when written)
};

inline std::string dicom_u16(std::uint16_t v) { return std::string{char(v & 0xFF), char(v >> 8)}; }
inline std::string dicom_u32(std::uint32_t v) {
  return std::string{char(v & 0xFF), char((v >> 8) & 0xFF), char((v >> 16) & 0xFF), char(v >> 24)};
}

inline std::string dicom_element_bytes(const DicomElement& e) {
  std::string value = e.value;
  if (value.size() % 2) value += (e.vr == "UI" || e.vr == "OB") ? '\0' : ' ';
  std::string out = dicom_u16(e.group) + dicom_u16(e.element) + e.vr;
  if (e.vr == "OB" || e.vr == "OW" || e.vr == "SQ" || e.vr == "UN" || e.vr == "UT")
    out += std::string(2, '\0') + dicom_u32(std::uint32_t(value.size()));
  else
    out += dicom_u16(std::uint16_t(value.size()));
  return out + value;
}

// Preamble, "DICM", the file meta group and `dataset` (elements in ascending tag order).
inline void write_dicom_bytes(const std::string& path, const std::string& sop_class, const std::string& sop_instance,
                              const std::vector<DicomElement>& dataset) {
  std::string meta = dicom_element_bytes({0x0002, 0x0001, "OB", std::string{'\0', '\1'}}) +
                     dicom_element_bytes({0x0002, 0x0002, "UI", sop_class}) +
                     dicom_element_bytes({0x0002, 0x0003, "UI", sop_instance}) +
                     dicom_element_bytes({0x0002, 0x0010, "UI", "1.2.840.10008.1.2.1"});
  std::string bytes(128, '\0');
  bytes += "DICM";
  bytes += dicom_element_bytes({0x0002, 0x0000, "UL", dicom_u32(std::uint32_t(meta.size()))}) + meta;
  for (const auto& e : dataset) bytes += dicom_element_bytes(e);
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace gp::test

#include "io/dicom_writer.hpp"

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcrlerp.h>
#include <dcmtk/dcmdata/dcuid.h>
#include <dcmtk/dcmjpeg/djrplol.h>
#include <dcmtk/dcmjpls/djrparam.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "core/error.hpp"
#include "core/outputs.hpp"
#include "core/parallel_for.hpp"
#include "core/splitmix64.hpp"
#include "io/dicom_common.hpp"
#include "io/parallel_items.hpp"

namespace gp::io {
namespace {

using Vec3 = std::array<double, 3>;

// Decimal strings for DS: at most 16 characters ("%.10g" of any double fits).
std::string ds(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.10g", v == 0 ? 0.0 : v);  // no "-0"
  return s;
}

std::string ds_list(const double* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? "\\" : "") + ds(v[i]);
  return s;
}

struct Syntax {
  E_TransferSyntax xfer;
  std::unique_ptr<DcmRepresentationParameter> parameter;  // null: native
};

Syntax syntax_of(const std::string& name) {
  if (name == "explicit") return {EXS_LittleEndianExplicit, nullptr};
  if (name == "rle") return {EXS_RLELossless, std::make_unique<DcmRLERepresentationParameter>()};
  if (name == "jpeg-ls") return {EXS_JPEGLSLossless, std::make_unique<DJLSRepresentationParameter>(0, OFTrue)};
  if (name == "jpeg-lossless") return {EXS_JPEGProcess14SV1, std::make_unique<DJ_RPLossless>(1, 0)};
  throw UsageError("unknown DICOM transfer syntax '" + name + "' (explicit, rle, jpeg-ls, jpeg-lossless)");
}

void check(const OFCondition& status, const std::string& path, const std::string& what) {
  if (status.bad()) throw Error(path + ": " + what + ": " + status.text());
}

class SeriesWriter {
 public:
  SeriesWriter(const Volume& volume, const DicomWriteOptions& options) : volume_(volume), options_(options) {
    const auto& o = options.orientation;
    const Vec3 row{o[0], o[1], o[2]}, column{o[3], o[4], o[5]};
    normal_ = {row[1] * column[2] - row[2] * column[1], row[2] * column[0] - row[0] * column[2],
               row[0] * column[1] - row[1] * column[0]};
    const double length = std::sqrt(normal_[0] * normal_[0] + normal_[1] * normal_[1] + normal_[2] * normal_[2]);
    if (!(length > 0.5)) throw UsageError("DICOM orientation rows and columns must be unit vectors at right angles");
    for (double& c : normal_) c /= length;
    if (!(options.slope != 0) || !std::isfinite(options.slope)) throw UsageError("DICOM rescale slope must be non-zero");
  }

  Vec3 position(int z) const {
    Vec3 p;
    for (int c = 0; c < 3; ++c) p[c] = volume_.origin[c] + z * volume_.spacing.z * normal_[c];
    return p;
  }

  // Position along the slice normal (SliceLocation).
  double location(int z) const {
    const Vec3 p = position(z);
    return p[0] * normal_[0] + p[1] * normal_[1] + p[2] * normal_[2];
  }

  // Stored int16 values of slices [z_begin, z_end).
  std::vector<Sint16> stored(int z_begin, int z_end) const {
    const std::size_t begin = std::size_t(z_begin) * volume_.dims.slice_voxels();
    const std::size_t end = std::size_t(z_end) * volume_.dims.slice_voxels();
    std::vector<Sint16> out(end - begin);
    for (std::size_t i = begin; i < end; ++i) {
      const double v = std::round((double(volume_.values[i]) - options_.intercept) / options_.slope);
      out[i - begin] = Sint16(std::clamp(std::isfinite(v) ? v : 0.0, -32768.0, 32767.0));
    }
    return out;
  }

  // Attributes every file has: patient, study, series, frame of reference, equipment, image pixel.
  void put_common(DcmDataset& d, int frames) const {
    const std::uint64_t seed = options_.seed;
    put(d, DCM_SpecificCharacterSet, "ISO_IR 100");
    put(d, DCM_ImageType, options_.multi_frame ? "DERIVED\\SECONDARY\\VOLUME\\NONE" : "DERIVED\\SECONDARY\\AXIAL");
    put(d, DCM_StudyDate, "20240101");
    put(d, DCM_StudyTime, "000000");
    put(d, DCM_ContentDate, "20240101");
    put(d, DCM_ContentTime, "000000");
    put(d, DCM_AccessionNumber, "");
    put(d, DCM_Modality, options_.modality);
    put(d, DCM_Manufacturer, "gpuproc");
    put(d, DCM_ReferringPhysicianName, "");
    put(d, DCM_SeriesDescription, options_.series_description);
    put(d, DCM_PatientName, "Phantom^Synthetic");
    put(d, DCM_PatientID, "GPUPROC-" + std::to_string(seed));
    put(d, DCM_PatientBirthDate, "");
    put(d, DCM_PatientSex, "O");
    put(d, DCM_StudyInstanceUID, deterministic_uid(seed, 1, 0));
    put(d, DCM_SeriesInstanceUID, deterministic_uid(seed, 2, 0));
    put(d, DCM_StudyID, "1");
    put(d, DCM_SeriesNumber, "1");
    put(d, DCM_FrameOfReferenceUID, deterministic_uid(seed, 3, 0));
    put(d, DCM_PositionReferenceIndicator, "");
    put(d, DCM_SamplesPerPixel, Uint16(1));
    put(d, DCM_PhotometricInterpretation, "MONOCHROME2");
    if (options_.multi_frame) put(d, DCM_NumberOfFrames, std::to_string(frames));
    put(d, DCM_Rows, Uint16(volume_.dims.ny));
    put(d, DCM_Columns, Uint16(volume_.dims.nx));
    put(d, DCM_BitsAllocated, Uint16(16));
    put(d, DCM_BitsStored, Uint16(16));
    put(d, DCM_HighBit, Uint16(15));
    put(d, DCM_PixelRepresentation, Uint16(1));
  }

  void put_instance(DcmDataset& d, const char* sop_class, int instance_number) const {
    put(d, DCM_SOPClassUID, sop_class);
    put(d, DCM_SOPInstanceUID, deterministic_uid(options_.seed, 4, std::uint64_t(std::int64_t(instance_number))));
    put(d, DCM_InstanceNumber, std::to_string(instance_number));
  }

  // Pixel measures, orientation and rescale (the top level of a CT Image; a functional group item).
  void put_plane(DcmItem& item) const {
    const double pixel_spacing[2] = {volume_.spacing.y, volume_.spacing.x};  // between rows, between columns
    put(item, DCM_PixelSpacing, ds_list(pixel_spacing, 2));
    put(item, DCM_SliceThickness, ds(volume_.spacing.z));
  }
  void put_orientation(DcmItem& item) const { put(item, DCM_ImageOrientationPatient, ds_list(options_.orientation.data(), 6)); }
  void put_rescale(DcmItem& item) const {
    put(item, DCM_RescaleIntercept, ds(options_.intercept));
    put(item, DCM_RescaleSlope, ds(options_.slope));
    put(item, DCM_RescaleType, options_.modality == "CT" ? "HU" : "US");
  }
  void put_position(DcmItem& item, int z) const {
    const Vec3 p = position(z);
    put(item, DCM_ImagePositionPatient, ds_list(p.data(), 3));
  }

  void put_pixels(DcmDataset& d, const std::vector<Sint16>& values) const {
    check(d.putAndInsertUint16Array(DCM_PixelData, reinterpret_cast<const Uint16*>(values.data()),
                                    static_cast<unsigned long>(values.size())),
          "", "cannot store the pixel data");
  }

  void save(DcmFileFormat& file, const std::string& path) const {
    const Syntax syntax = syntax_of(options_.transfer_syntax);
    DcmDataset& d = *file.getDataset();
    if (syntax.parameter) {
      check(d.chooseRepresentation(syntax.xfer, syntax.parameter.get()), path,
            "cannot encode as " + dicom::transfer_syntax_name(syntax.xfer));
      if (!d.canWriteXfer(syntax.xfer))
        throw Error(path + ": cannot encode as " + dicom::transfer_syntax_name(syntax.xfer));
    }
    write_atomically(path, [&](const std::string& temp) {
      check(file.saveFile(temp.c_str(), syntax.xfer), path, "cannot write the file");
    });
  }

 private:
  static void put(DcmItem& item, const DcmTagKey& tag, const std::string& value) {
    check(item.putAndInsertString(DcmTag(tag), value.c_str()), "", "cannot set " + DcmTag(tag).toString() + "");
  }
  static void put(DcmItem& item, const DcmTagKey& tag, Uint16 value) {
    check(item.putAndInsertUint16(DcmTag(tag), value), "", "cannot set " + DcmTag(tag).toString() + "");
  }

  const Volume& volume_;
  const DicomWriteOptions& options_;
  Vec3 normal_;
};

DcmItem& group_item(DcmItem& parent, const DcmTagKey& sequence, long index) {
  DcmItem* item = nullptr;
  check(parent.findOrCreateSequenceItem(DcmTag(sequence), item, index), "", "cannot create a functional group");
  return *item;
}

std::string slice_name(const std::string& prefix, int index, int count) {
  const std::size_t digits = std::max<std::size_t>(4, std::to_string(count).size());
  std::string number = std::to_string(index + 1);
  number.insert(0, digits - std::min(digits, number.size()), '0');
  return prefix + number + ".dcm";
}

}  // namespace

std::string deterministic_uid(std::uint64_t seed, std::uint64_t kind, std::uint64_t index) {
  const std::uint64_t a = splitmix64(seed ^ splitmix64(kind ^ splitmix64(index)));
  unsigned __int128 n = (static_cast<unsigned __int128>(a) << 64) | splitmix64(a);
  n |= static_cast<unsigned __int128>(1) << 120;  // never a short number
  std::string digits;
  for (; n > 0; n /= 10) digits.insert(digits.begin(), char('0' + int(n % 10)));
  return "2.25." + digits;  // UUID-derived UIDs (PS3.5 B.2), 44 characters at most
}

std::vector<std::string> write_dicom(const Volume& volume, const std::string& folder, const DicomWriteOptions& options) {
  const auto& d = volume.dims;
  if (d.nx < 1 || d.ny < 1 || d.nz < 1 || d.nx > 65535 || d.ny > 65535)
    throw UsageError("cannot write a " + std::to_string(d.nx) + "x" + std::to_string(d.ny) + "x" + std::to_string(d.nz) +
                     " volume as DICOM");
  if (volume.values.size() != d.voxels()) throw UsageError("volume values do not match its dims");
  syntax_of(options.transfer_syntax);  // validate before writing anything
  dicom::init_encoders();
  const SeriesWriter writer(volume, options);
  std::filesystem::create_directories(folder);

  if (options.multi_frame) {
    const std::string path = (std::filesystem::path(folder) / (options.file_prefix + ".dcm")).string();
    DcmFileFormat file;
    DcmDataset& data = *file.getDataset();
    writer.put_instance(data, UID_EnhancedCTImageStorage, options.first_instance_number);
    writer.put_common(data, d.nz);
    DcmItem& shared = group_item(data, DCM_SharedFunctionalGroupsSequence, 0);
    writer.put_plane(group_item(shared, DCM_PixelMeasuresSequence, 0));
    writer.put_orientation(group_item(shared, DCM_PlaneOrientationSequence, 0));
    writer.put_rescale(group_item(shared, DCM_PixelValueTransformationSequence, 0));
    for (int z = 0; z < d.nz; ++z) {
      DcmItem& frame = group_item(data, DCM_PerFrameFunctionalGroupsSequence, z);
      check(group_item(frame, DCM_FrameContentSequence, 0).putAndInsertString(DCM_InStackPositionNumber,
                                                                              std::to_string(z + 1).c_str()),
            path, "cannot set InStackPositionNumber");
      if (options.write_positions) writer.put_position(group_item(frame, DCM_PlanePositionSequence, 0), z);
    }
    writer.put_pixels(data, writer.stored(0, d.nz));
    writer.save(file, path);
    return {path};
  }

  std::vector<std::string> paths(std::size_t(d.nz));
  for (int z = 0; z < d.nz; ++z)
    paths[std::size_t(z)] = (std::filesystem::path(folder) / slice_name(options.file_prefix, z, d.nz)).string();
  const int threads = options.threads > 0 ? options.threads : int(cpu_thread_count());
  for_each_item(d.nz, threads, [&](int z) {
    DcmFileFormat file;
    DcmDataset& data = *file.getDataset();
    writer.put_instance(data, UID_CTImageStorage, options.first_instance_number + z * options.instance_number_step);
    writer.put_common(data, 1);
    writer.put_plane(data);
    writer.put_orientation(data);
    if (options.write_positions) {
      writer.put_position(data, z);
      check(data.putAndInsertString(DCM_SliceLocation, ds(writer.location(z)).c_str()), paths[std::size_t(z)],
            "cannot set SliceLocation");
    }
    writer.put_rescale(data);
    writer.put_pixels(data, writer.stored(z, z + 1));
    writer.save(file, paths[std::size_t(z)]);
  });
  return paths;
}

}  // namespace gp::io

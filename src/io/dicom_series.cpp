// DICOM input: a header pass over every file (in parallel), ordering and consistency checks over
// all frames, then frames decoded on demand through DcmElement::getUncompressedFrame, which reads
// one frame of a multi-frame object (decompressing only its fragments) without loading the rest.
#include "io/dicom_series.hpp"

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dccodec.h>
#include <dcmtk/dcmdata/dcfcache.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcmetinf.h>
#include <dcmtk/dcmdata/dcpixel.h>
#include <dcmtk/dcmdata/dcpixseq.h>
#include <dcmtk/dcmdata/dcpxitem.h>
#include <dcmtk/dcmdata/dcxfer.h>
#include <dcmtk/dcmdata/dcuid.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>

#include "core/error.hpp"
#include "io/dicom_common.hpp"
#include "io/dicom_geometry.hpp"
#include "io/j2k_codec.hpp"
#include "io/parallel_items.hpp"

namespace gp::io {
namespace {

using dicom::FrameGeometry;
using dicom::FramePlace;

// What the header pass learns about one file.
struct FileInfo {
  std::string path;
  std::string error;        // the header could not be parsed
  std::string skip_reason;  // a DICOM object that is not an image
  std::string series_uid, sop_uid, modality;
  int rows = 0, columns = 0, samples = 1;
  int bits_allocated = 0, bits_stored = 0, high_bit = 0;
  bool is_signed = false;
  // PixelPaddingValue (and PixelPaddingRangeLimit): stored values in [padding_lo, padding_hi] are
  // not part of the image (outside a CT scan's circle); they read as NaN.
  bool has_padding = false;
  std::int64_t padding_lo = 0, padding_hi = 0;
  int frames = 1;
  bool has_instance = false;
  long instance = 0;
  E_TransferSyntax syntax = EXS_Unknown;
  std::vector<FrameGeometry> frame_geometry;  // one per frame
};

std::string text(DcmItem* item, const DcmTagKey& tag) {
  OFString value;
  return item->findAndGetOFStringArray(tag, value).good() ? std::string(value.c_str()) : std::string();
}

bool number(DcmItem* item, const DcmTagKey& tag, double& value, unsigned long index = 0) {
  Float64 v;
  if (item->findAndGetFloat64(tag, v, index).bad() || !std::isfinite(v)) return false;
  value = v;
  return true;
}

// Plane attributes found directly in `item` (the dataset, or an item of a functional group).
void read_plane(DcmItem* item, FrameGeometry& g) {
  std::array<double, 6> o;
  bool ok = true;
  for (int i = 0; i < 6 && ok; ++i) ok = number(item, DCM_ImageOrientationPatient, o[i], i);
  if (ok) g.orientation = o, g.has_orientation = true;
  std::array<double, 3> p;
  ok = true;
  for (int i = 0; i < 3 && ok; ++i) ok = number(item, DCM_ImagePositionPatient, p[i], i);
  if (ok) g.position = p, g.has_position = true;
  double row = 0, column = 0;
  if (number(item, DCM_PixelSpacing, row, 0) && number(item, DCM_PixelSpacing, column, 1) && row > 0 && column > 0)
    g.row_spacing = row, g.column_spacing = column, g.has_spacing = true;
  double v;
  if (number(item, DCM_SliceThickness, v) && v > 0) g.thickness = v;
  if (number(item, DCM_SpacingBetweenSlices, v) && v > 0) g.between = v;
  if (number(item, DCM_RescaleSlope, v)) g.slope = v;
  if (number(item, DCM_RescaleIntercept, v)) g.intercept = v;
}

// The functional groups of an enhanced multi-frame object (shared, or one frame's).
void read_groups(DcmItem* groups, FrameGeometry& g) {
  for (const DcmTagKey& sequence : {DCM_PixelMeasuresSequence, DCM_PlaneOrientationSequence, DCM_PlanePositionSequence,
                                    DCM_PixelValueTransformationSequence}) {
    DcmItem* item = nullptr;
    if (groups->findAndGetSequenceItem(sequence, item, 0).good() && item) read_plane(item, g);
  }
}

// Refuses a header that claims more frames than the pixel data holds, before anything is sized by
// the claim: a native frame needs Rows x Columns x Samples x BitsAllocated/8 bytes, and an
// encapsulated one at least one fragment of its own (PS3.5 A.4).
std::string frames_beyond_pixel_data(DcmElement* pixels, const FileInfo& info) {
  const std::string claim = "NumberOfFrames " + std::to_string(info.frames) + " of " + std::to_string(info.columns) +
                            "x" + std::to_string(info.rows);
  if (DcmXfer(info.syntax).isEncapsulated()) {
    auto* pixel_data = dynamic_cast<DcmPixelData*>(pixels);
    if (!pixel_data) return {};
    E_TransferSyntax key = EXS_Unknown;
    const DcmRepresentationParameter* parameter = nullptr;
    DcmPixelSequence* sequence = nullptr;
    pixel_data->getOriginalRepresentationKey(key, parameter);
    if (pixel_data->getEncapsulatedRepresentation(key, parameter, sequence).bad() || !sequence) return {};
    const unsigned long fragments = sequence->card() > 0 ? sequence->card() - 1 : 0;  // item 0 is the offset table
    if (fragments >= static_cast<unsigned long>(info.frames)) return {};
    return claim + " but the pixel data has " + std::to_string(fragments) + " fragment" + (fragments == 1 ? "" : "s");
  }
  const std::uint64_t needed = std::uint64_t(info.frames) * std::uint64_t(info.rows) * std::uint64_t(info.columns) *
                               std::uint64_t(std::max(info.samples, 1)) * std::uint64_t((info.bits_allocated + 7) / 8);
  const std::uint64_t held = pixels->getLength();
  if (needed <= held) return {};
  return claim + " needs " + std::to_string(needed) + " bytes of pixel data; the file holds " + std::to_string(held);
}

bool is_jpeg2000(E_TransferSyntax syntax) { return syntax == EXS_JPEG2000LosslessOnly || syntax == EXS_JPEG2000; }

// Compressed pixel data is decoded by DCMTK's codecs (JPEG, JPEG-LS, RLE) or, for JPEG 2000, by
// OpenJPEG; anything else (MPEG, HEVC, JPEG XL, JPIP, multi-component JPEG 2000...) is refused by
// name before any pixel is read.
std::string unsupported_syntax(E_TransferSyntax syntax) {
  const DcmXfer xfer(syntax);
  if (!xfer.isEncapsulated() || is_jpeg2000(syntax) || DcmCodecList::canChangeCoding(syntax, EXS_LittleEndianExplicit))
    return {};
  return std::string("transfer syntax ") + xfer.getXferName() + " (" + xfer.getXferID() +
         ") is not supported; supported compressed ones: JPEG (baseline, extended, lossless), JPEG-LS, RLE, JPEG 2000";
}

// PixelPaddingValue / PixelPaddingRangeLimit as a stored value (PS3.3 C.7.5.1.1.2: compared with
// the stored values before any rescale). Their VR is US or SS as PixelRepresentation says; files
// written in implicit VR, or with the wrong VR, give the 16 bits as unsigned: read them as the
// pixels' sign says, within BitsStored.
bool padding_value(DcmItem* data, const DcmTagKey& tag, const FileInfo& info, std::int64_t& value) {
  DcmElement* element = nullptr;
  if (data->findAndGetElement(tag, element).bad() || !element || element->getVM() < 1) return false;
  std::int64_t raw = 0;
  if (element->ident() == EVR_SS) {
    Sint16 v = 0;
    if (element->getSint16(v).bad()) return false;
    raw = v;
  } else {
    Uint16 v = 0;
    if (element->getUint16(v).bad()) return false;
    raw = v;
  }
  const int bits = info.bits_stored > 0 && info.bits_stored <= 16 ? info.bits_stored : 16;
  const std::int64_t mask = (std::int64_t(1) << bits) - 1, sign_bit = std::int64_t(1) << (bits - 1);
  if (info.is_signed) {
    const std::int64_t stored = raw & mask;  // two's complement within BitsStored
    value = stored & sign_bit ? stored - 2 * sign_bit : stored;
  } else {
    value = raw < 0 ? raw & mask : raw;
  }
  return true;
}

FileInfo scan_file(const std::string& path) {
  FileInfo info;
  info.path = path;
  DcmFileFormat file;
  // Values over 4 KiB (pixel data) stay in the file: only the header is read now.
  const OFCondition status = file.loadFile(path.c_str(), EXS_Unknown, EGL_noChange, 4096);
  if (status.bad()) {
    info.error = std::string("cannot parse as DICOM: ") + status.text();
    return info;
  }
  DcmDataset* data = file.getDataset();
  if (text(file.getMetaInfo(), DCM_MediaStorageSOPClassUID) == UID_MediaStorageDirectoryStorage) {
    info.skip_reason = "DICOMDIR";
    return info;
  }
  DcmElement* pixels = nullptr;
  if (data->findAndGetElement(DCM_PixelData, pixels).bad() || !pixels) {
    if (data->tagExists(DCM_FloatPixelData) || data->tagExists(DCM_DoubleFloatPixelData))
      info.error = "float pixel data is not supported";
    else
      info.skip_reason = "no pixel data";
    return info;
  }
  info.syntax = data->getOriginalXfer();
  if (const std::string unsupported = unsupported_syntax(info.syntax); !unsupported.empty()) {
    info.error = unsupported;
    return info;
  }
  info.series_uid = text(data, DCM_SeriesInstanceUID);
  info.sop_uid = text(data, DCM_SOPInstanceUID);
  info.modality = text(data, DCM_Modality);
  Uint16 u = 0;
  if (data->findAndGetUint16(DCM_Rows, u).good()) info.rows = u;
  if (data->findAndGetUint16(DCM_Columns, u).good()) info.columns = u;
  if (data->findAndGetUint16(DCM_SamplesPerPixel, u).good()) info.samples = u;
  if (data->findAndGetUint16(DCM_BitsAllocated, u).good()) info.bits_allocated = u;
  info.bits_stored = data->findAndGetUint16(DCM_BitsStored, u).good() ? u : info.bits_allocated;
  info.high_bit = data->findAndGetUint16(DCM_HighBit, u).good() ? u : info.bits_stored - 1;
  info.is_signed = data->findAndGetUint16(DCM_PixelRepresentation, u).good() && u == 1;
  std::int64_t padding = 0;
  if (padding_value(data, DCM_PixelPaddingValue, info, padding)) {
    info.has_padding = true;
    info.padding_lo = info.padding_hi = padding;
    std::int64_t limit = 0;
    if (padding_value(data, DCM_PixelPaddingRangeLimit, info, limit)) {
      info.padding_lo = std::min(padding, limit);
      info.padding_hi = std::max(padding, limit);
    }
  }
  Sint32 s = 0;
  if (data->findAndGetSint32(DCM_NumberOfFrames, s).good() && s > 1) info.frames = s;
  if (data->findAndGetSint32(DCM_InstanceNumber, s).good()) info.has_instance = true, info.instance = s;
  info.error = frames_beyond_pixel_data(pixels, info);
  if (!info.error.empty()) return info;

  FrameGeometry top;
  read_plane(data, top);
  DcmItem* shared = nullptr;
  if (data->findAndGetSequenceItem(DCM_SharedFunctionalGroupsSequence, shared, 0).good() && shared)
    read_groups(shared, top);
  // Legacy multi-frame objects (NM, RT dose, ...) place frames at offsets from one position.
  std::vector<double> offsets;
  for (double v; offsets.size() < std::size_t(info.frames) &&
                 number(data, DCM_GridFrameOffsetVector, v, (unsigned long)offsets.size());)
    offsets.push_back(v);
  DcmSequenceOfItems* per_frame = nullptr;
  data->findAndGetSequence(DCM_PerFrameFunctionalGroupsSequence, per_frame);
  for (int k = 0; k < info.frames; ++k) {
    FrameGeometry g = top;
    bool own_position = false;
    if (per_frame && k < int(per_frame->card())) {
      g.has_position = false;
      read_groups(per_frame->getItem(unsigned(k)), g);
      own_position = g.has_position;
    }
    if (info.frames > 1 && !own_position) {
      g.has_position = false;  // the dataset's position is frame 0's
      if (top.has_position) dicom::place_legacy_frame(top, offsets, k, g);
    }
    info.frame_geometry.push_back(g);
  }
  return info;
}

// Stored values of one frame (bits_allocated wide, native byte order) to physical values.
template <class Word>
void convert_frame(const unsigned char* bytes, std::size_t count, const FileInfo& f, double slope, double intercept,
                   float* out) {
  const int bits = f.bits_stored, shift = f.high_bit + 1 - f.bits_stored;
  const std::uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  const std::int64_t sign_bit = std::int64_t(1) << (bits - 1);
  for (std::size_t i = 0; i < count; ++i) {
    Word word;
    std::memcpy(&word, bytes + i * sizeof(Word), sizeof(Word));
    const std::int64_t stored = std::int64_t((std::uint64_t(word) >> shift) & mask);
    const std::int64_t value = f.is_signed && (stored & sign_bit) ? stored - 2 * sign_bit : stored;
    if (f.has_padding && value >= f.padding_lo && value <= f.padding_hi)
      out[i] = std::numeric_limits<float>::quiet_NaN();  // padding: excluded from Otsu, never pore
    else
      out[i] = float(double(value) * slope + intercept);
  }
}

class DicomSource final : public SliceSource {
 public:
  DicomSource(std::vector<FileInfo> files, std::vector<FramePlace> frames)
      : files_(std::move(files)), frames_(std::move(frames)) {}

  std::unique_ptr<SliceReader> reader() const override { return std::make_unique<Reader>(*this); }

 private:
  class Reader final : public SliceReader {
   public:
    explicit Reader(const DicomSource& source) : source_(source) {}

    void read(int z, float* values) override {
      const FramePlace& place = source_.frames_[std::size_t(z)];
      const FileInfo& f = source_.files_[std::size_t(place.file)];
      if (place.file != open_file_) open(place.file);
      DcmDataset* data = file_->getDataset();
      const std::size_t count = std::size_t(f.rows) * std::size_t(f.columns);
      const FrameGeometry& g = f.frame_geometry[std::size_t(place.frame)];
      if (is_jpeg2000(f.syntax)) return read_jpeg2000(f, place.frame, count, g, values);
      Uint32 frame_bytes = 0;
      OFCondition status = pixels_->getUncompressedFrameSize(data, frame_bytes);
      if (status.good() && frame_bytes < count * std::size_t(f.bits_allocated / 8))
        status = makeOFCondition(0, 1, OF_error, "frame smaller than Rows x Columns");
      if (status.good()) {
        buffer_.resize(frame_bytes + (frame_bytes & 1));
        // Fragments of consecutive frames follow each other: pass on where the last one ended.
        Uint32 fragment = place.frame == next_frame_ ? next_fragment_ : 0;
        OFString colour_model;
        status = pixels_->getUncompressedFrame(data, Uint32(place.frame), fragment, buffer_.data(),
                                               Uint32(buffer_.size()), colour_model, cache_.get());
        next_frame_ = place.frame + 1;
        next_fragment_ = fragment;
      }
      if (status.bad())
        throw ItemError(f.path, "load", "cannot decode frame " + std::to_string(place.frame) + " (" +
                                            dicom::transfer_syntax_name(f.syntax) + "): " + status.text());
      const unsigned char* b = buffer_.data();
      switch (f.bits_allocated) {
        case 8: return convert_frame<std::uint8_t>(b, count, f, g.slope, g.intercept, values);
        case 16: return convert_frame<std::uint16_t>(b, count, f, g.slope, g.intercept, values);
        default: return convert_frame<std::uint32_t>(b, count, f, g.slope, g.intercept, values);
      }
    }

   private:
    // A JPEG 2000 frame: its fragments (DcmCodec::determineStartFragment: from the offset table,
    // or one fragment per frame) joined into one codestream, decoded by OpenJPEG, then stored
    // values converted as for native pixel data.
    void read_jpeg2000(const FileInfo& f, int frame, std::size_t count, const FrameGeometry& g, float* values) {
      auto fail = [&](const std::string& what) {
        throw ItemError(f.path, "load", "cannot decode frame " + std::to_string(frame) + " (" +
                                            dicom::transfer_syntax_name(f.syntax) + "): " + what);
      };
      auto* pixel_data = dynamic_cast<DcmPixelData*>(pixels_);
      E_TransferSyntax key = EXS_Unknown;
      const DcmRepresentationParameter* parameter = nullptr;
      DcmPixelSequence* sequence = nullptr;
      if (pixel_data) pixel_data->getOriginalRepresentationKey(key, parameter);
      if (!pixel_data || pixel_data->getEncapsulatedRepresentation(key, parameter, sequence).bad() || !sequence)
        fail("no encapsulated pixel data");
      Uint32 first = 0, end = Uint32(sequence->card());
      if (DcmCodec::determineStartFragment(Uint32(frame), Sint32(f.frames), sequence, first).bad())
        fail("cannot find the frame's fragments");
      if (frame + 1 < f.frames &&
          DcmCodec::determineStartFragment(Uint32(frame + 1), Sint32(f.frames), sequence, end).bad())
        fail("cannot find the next frame's fragments");
      codestream_.clear();
      for (Uint32 i = first; i < end; ++i) {
        DcmPixelItem* item = nullptr;
        Uint8* bytes = nullptr;
        if (sequence->getItem(item, i).bad() || !item) fail("fragment " + std::to_string(i) + " is missing");
        const Uint32 length = item->getLength();
        if (length == 0) continue;
        if (item->getUint8Array(bytes).bad() || !bytes) fail("cannot read fragment " + std::to_string(i));
        codestream_.insert(codestream_.end(), bytes, bytes + length);
      }
      J2kImage image;
      try {
        image = decode_j2k(codestream_.data(), codestream_.size());
      } catch (const std::runtime_error& e) {
        fail(e.what());
      }
      if (image.components != 1 || image.width != f.columns || image.height != f.rows)
        fail("the codestream holds " + std::to_string(image.components) + " component(s) of " +
             std::to_string(image.width) + "x" + std::to_string(image.height) + ", the header says 1 of " +
             std::to_string(f.columns) + "x" + std::to_string(f.rows));
      // Back into words as stored (BitsStored at HighBit), so padding and sign follow the native path.
      const int shift = f.high_bit + 1 - f.bits_stored;
      const std::uint64_t mask = f.bits_stored >= 64 ? ~0ull : (1ull << f.bits_stored) - 1;
      const std::size_t word_bytes = std::size_t(f.bits_allocated / 8);
      buffer_.resize(count * word_bytes);
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t word = (std::uint64_t(std::int64_t(image.samples[i])) & mask) << shift;
        std::memcpy(buffer_.data() + i * word_bytes, &word, word_bytes);  // little-endian host
      }
      const unsigned char* b = buffer_.data();
      switch (f.bits_allocated) {
        case 8: return convert_frame<std::uint8_t>(b, count, f, g.slope, g.intercept, values);
        case 16: return convert_frame<std::uint16_t>(b, count, f, g.slope, g.intercept, values);
        default: return convert_frame<std::uint32_t>(b, count, f, g.slope, g.intercept, values);
      }
    }

    void open(int index) {
      const FileInfo& f = source_.files_[std::size_t(index)];
      file_ = std::make_unique<DcmFileFormat>();
      pixels_ = nullptr;
      open_file_ = -1;
      const OFCondition status = file_->loadFile(f.path.c_str(), EXS_Unknown, EGL_noChange, 4096);
      if (status.bad()) throw ItemError(f.path, "load", std::string("cannot parse as DICOM: ") + status.text());
      if (file_->getDataset()->findAndGetElement(DCM_PixelData, pixels_).bad() || !pixels_)
        throw ItemError(f.path, "load", "the pixel data went missing since the header pass");
      open_file_ = index;
      next_frame_ = 0;
      next_fragment_ = 0;
      cache_ = std::make_unique<DcmFileCache>();
    }

    const DicomSource& source_;
    std::unique_ptr<DcmFileFormat> file_;
    DcmElement* pixels_ = nullptr;
    std::unique_ptr<DcmFileCache> cache_;  // keeps the open file's handle between frames
    int open_file_ = -1, next_frame_ = 0;
    Uint32 next_fragment_ = 0;
    std::vector<unsigned char> buffer_;
    std::vector<std::uint8_t> codestream_;  // JPEG 2000: one frame's fragments joined
  };

  std::vector<FileInfo> files_;
  std::vector<FramePlace> frames_;
};

// ---- checks over the whole series ---------------------------------------------------------------

std::string list_examples(const std::vector<std::string>& paths) {
  std::string s = paths.front();
  if (paths.size() > 1) s += paths.size() == 2 ? ", " + paths[1] : ", " + paths[1] + " and " + std::to_string(paths.size() - 2) + " more";
  return s;
}

void check_one_series(const std::vector<FileInfo>& files, const std::string& name) {
  std::map<std::string, std::vector<std::string>> by_series;
  for (const auto& f : files) by_series[f.series_uid].push_back(f.path);
  if (by_series.size() > 1) {
    std::string what = std::to_string(by_series.size()) + " series (SeriesInstanceUID) in one volume input:";
    for (const auto& [uid, paths] : by_series)
      what += " " + (uid.empty() ? std::string("(none)") : uid) + ": " + std::to_string(paths.size()) + " file" +
              (paths.size() > 1 ? "s" : "") + " (" + list_examples(paths) + ");";
    what.back() = '.';
    throw ItemError(name, "load", what + " Give the files or folder of one series");
  }
  std::map<std::string, std::string> by_sop;
  for (const auto& f : files) {
    if (f.sop_uid.empty()) continue;
    auto [it, inserted] = by_sop.emplace(f.sop_uid, f.path);
    if (!inserted) throw ItemError(name, "load", it->second + " and " + f.path + " are the same image (SOPInstanceUID " + f.sop_uid + ")");
  }
}

void check_pixel_format(const std::vector<FileInfo>& files, const std::string& name) {
  std::map<std::pair<int, int>, std::vector<std::string>> by_size;
  for (const auto& f : files) {
    if (f.samples != 1)
      throw ItemError(f.path, "load", std::to_string(f.samples) + " samples per pixel; volumes need grey images");
    if (f.bits_allocated != 8 && f.bits_allocated != 16 && f.bits_allocated != 32)
      throw ItemError(f.path, "load", "BitsAllocated " + std::to_string(f.bits_allocated) + " is not supported (8, 16, 32)");
    if (f.bits_stored < 1 || f.bits_stored > f.bits_allocated || f.high_bit < f.bits_stored - 1 ||
        f.high_bit >= f.bits_allocated)
      throw ItemError(f.path, "load", "inconsistent BitsStored " + std::to_string(f.bits_stored) + " / HighBit " +
                                          std::to_string(f.high_bit) + " for BitsAllocated " + std::to_string(f.bits_allocated));
    if (f.rows < 1 || f.columns < 1) throw ItemError(f.path, "load", "no Rows / Columns");
    by_size[{f.columns, f.rows}].push_back(f.path);
  }
  if (by_size.size() > 1) {
    std::string what = "images of different sizes in one series:";
    for (const auto& [size, paths] : by_size)
      what += " " + std::to_string(size.first) + "x" + std::to_string(size.second) + " (" + list_examples(paths) + ");";
    what.back() = ' ';
    throw ItemError(name, "load", what + "(columns x rows)");
  }
}

std::string describe(const std::vector<FileInfo>& files, const dicom::SeriesLayout& layout, int skipped_objects) {
  int frames = 0;
  bool multi_frame = false, one_syntax = true;
  for (const auto& f : files) {
    frames += f.frames;
    multi_frame |= f.frames > 1;
    one_syntax &= f.syntax == files.front().syntax;
  }
  std::string s = !multi_frame ? "DICOM series, " + std::to_string(frames) + (frames == 1 ? " slice" : " slices")
                  : files.size() == 1 ? "DICOM multi-frame, " + std::to_string(frames) + " frames"
                                      : "DICOM, " + std::to_string(files.size()) + " files, " + std::to_string(frames) + " frames";
  if (!files.front().modality.empty()) s += ", " + files.front().modality;
  s += ", " + (one_syntax ? dicom::transfer_syntax_name(files.front().syntax) : std::string("mixed transfer syntaxes"));
  for (const auto& note : layout.notes) s += ", " + note;
  const FileInfo& first = files.front();
  if (first.has_padding)
    s += ", padding " + (first.padding_lo == first.padding_hi ? std::to_string(first.padding_lo)
                                                                : std::to_string(first.padding_lo) + ".." + std::to_string(first.padding_hi)) +
         " excluded";
  if (skipped_objects > 0)
    s += ", skipped " + std::to_string(skipped_objects) + " DICOM object" + (skipped_objects > 1 ? "s" : "") + " without pixel data";
  return s;
}

}  // namespace

bool looks_like_dicom(const std::string& path, bool preambleless) {
  std::ifstream in(path, std::ios::binary);
  unsigned char head[132] = {};
  in.read(reinterpret_cast<char*>(head), sizeof head);
  const auto got = in.gcount();
  if (got >= 132 && std::memcmp(head + 128, "DICM", 4) == 0) return true;
  if (!preambleless || got < 8) return false;
  const int group = head[0] | head[1] << 8, element = head[2] | head[3] << 8;
  return (group == 0x0002 || group == 0x0008) && element < 0x0100;
}

std::unique_ptr<SliceSource> open_dicom_series(const std::vector<std::string>& paths, const std::string& name,
                                               int threads) {
  dicom::init_decoders();
  std::vector<FileInfo> scanned(paths.size());
  for_each_item(int(paths.size()), threads, [&](int i) { scanned[std::size_t(i)] = scan_file(paths[std::size_t(i)]); });

  std::vector<FileInfo> files;
  int skipped = 0;
  for (auto& f : scanned) {
    if (!f.error.empty()) throw ItemError(f.path, "load", f.error);
    if (!f.skip_reason.empty()) {
      ++skipped;
      continue;
    }
    files.push_back(std::move(f));
  }
  if (files.empty()) throw ItemError(name, "load", "no DICOM images (only objects without pixel data)");
  check_one_series(files, name);
  check_pixel_format(files, name);

  std::vector<dicom::FrameRecord> records;
  for (std::size_t i = 0; i < files.size(); ++i)
    for (int k = 0; k < files[i].frames; ++k)
      records.push_back({int(i), k, files[i].path, files[i].frames > 1, files[i].has_instance, files[i].instance,
                         files[i].frame_geometry[std::size_t(k)]});
  const dicom::SeriesLayout layout = dicom::lay_out_frames(records, name);

  const Dims3 dims{files.front().columns, files.front().rows, int(layout.order.size())};
  const std::string description = describe(files, layout, skipped);
  auto source = std::make_unique<DicomSource>(std::move(files), layout.order);
  source->dims = dims;
  source->spacing = layout.spacing;
  source->origin = layout.origin;
  source->axes = layout.axes;
  source->lps = true;
  source->length_unit = "mm";
  source->name = name;
  source->description = description;
  return source;
}

}  // namespace gp::io

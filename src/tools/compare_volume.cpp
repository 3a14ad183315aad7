// NRRD volumes (segment-pnm's labels.nrrd and its intermediates): the header fields that say what
// the volume is (type, sizes, spacing and geometry; not the encoding, byte order or comments) and
// every voxel value, so that a raw and a gzip file of the same volume are equal, and so are
// integer volumes of different sample types with equal values. Attached data
// only (no "data file"), raw or gzip (any number of gzip members, as our writer makes them).
#include <libdeflate.h>

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <memory>

#include "tools/compare_parts.hpp"
#include "io/file_bytes.hpp"

namespace gp::tools::compare {
namespace {

// An NRRD sample type under its canonical name (the spec's aliases map to it).
struct SampleType {
  const char* name;
  std::size_t bytes;
  bool is_float, is_signed;
};

const SampleType* sample_type(const std::string& name) {
  static const SampleType types[] = {{"int8", 1, false, true},   {"uint8", 1, false, false}, {"int16", 2, false, true},
                                     {"uint16", 2, false, false}, {"int32", 4, false, true},  {"uint32", 4, false, false},
                                     {"int64", 8, false, true},  {"uint64", 8, false, false}, {"float", 4, true, true},
                                     {"double", 8, true, true}};
  static const std::map<std::string, std::string> aliases{
      {"signed char", "int8"}, {"int8_t", "int8"}, {"uchar", "uint8"}, {"unsigned char", "uint8"},
      {"uint8_t", "uint8"}, {"short", "int16"}, {"short int", "int16"}, {"signed short", "int16"},
      {"signed short int", "int16"}, {"int16_t", "int16"}, {"ushort", "uint16"}, {"unsigned short", "uint16"},
      {"unsigned short int", "uint16"}, {"uint16_t", "uint16"}, {"int", "int32"}, {"signed int", "int32"},
      {"int32_t", "int32"}, {"uint", "uint32"}, {"unsigned int", "uint32"}, {"uint32_t", "uint32"},
      {"longlong", "int64"}, {"long long", "int64"}, {"long long int", "int64"}, {"signed long long", "int64"},
      {"signed long long int", "int64"}, {"int64_t", "int64"}, {"ulonglong", "uint64"},
      {"unsigned long long", "uint64"}, {"unsigned long long int", "uint64"}, {"uint64_t", "uint64"}};
  const auto alias = aliases.find(name);
  const std::string& canonical = alias == aliases.end() ? name : alias->second;
  for (const SampleType& t : types)
    if (canonical == t.name) return &t;
  return nullptr;
}

// Header fields compared (by token, numbers within the tolerances); the others (encoding,
// endian, content, comments, key/value pairs) say how the volume is stored, not what it is.
const char* const compared_fields[] = {"dimension", "sizes",  "space", "space dimension", "space directions",
                                       "space origin", "spacings", "kinds", "measurement frame"};

// The deflate format expands at most 1032:1; a header asking for more than the gzip data can
// hold is refused before anything is allocated.
constexpr std::size_t max_deflate_ratio = 1032;

struct Nrrd {
  std::map<std::string, std::string> fields;
  const SampleType* type = nullptr;
  std::vector<std::size_t> sizes;
  std::size_t bytes = 0;  // of the data: voxels * type->bytes
  bool swap = false;      // big-endian samples
  std::vector<std::uint8_t> file, inflated;
  const std::uint8_t* data = nullptr;  // into file (raw) or inflated (gzip); moving a Nrrd keeps it valid

  std::size_t voxels() const { return type ? bytes / type->bytes : 0; }

  double value(std::size_t i) const {
    std::uint8_t b[8];
    std::memcpy(b, data + i * type->bytes, type->bytes);
    if (swap) std::reverse(b, b + type->bytes);
    const auto as = [&b](auto v) {
      std::memcpy(&v, b, sizeof v);
      return double(v);
    };
    switch (type->bytes) {
      case 1: return type->is_signed ? as(std::int8_t()) : as(std::uint8_t());
      case 2: return type->is_signed ? as(std::int16_t()) : as(std::uint16_t());
      case 4: return type->is_float ? as(float()) : type->is_signed ? as(std::int32_t()) : as(std::uint32_t());
      default: return type->is_float ? as(double()) : type->is_signed ? as(std::int64_t()) : as(std::uint64_t());
    }
  }
};

std::string trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  return std::string(s.substr(first, s.find_last_not_of(" \t\r") + 1 - first));
}

void inflate_gzip(Nrrd& volume, const std::uint8_t* in, std::size_t in_bytes, const std::string& path) {
  if (volume.bytes / max_deflate_ratio > in_bytes)
    throw Uncomparable(fmt::format("{}: the header's sizes need {} bytes, more than {} bytes of gzip data can hold",
                                   path, volume.bytes, in_bytes));
  std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(libdeflate_alloc_decompressor(),
                                                                                 libdeflate_free_decompressor);
  if (!d) throw std::bad_alloc();
  volume.inflated.resize(volume.bytes);
  std::size_t in_pos = 0, out_pos = 0;
  while (in_pos < in_bytes) {  // one gzip member at a time
    std::size_t used = 0, made = 0;
    const auto r = libdeflate_gzip_decompress_ex(d.get(), in + in_pos, in_bytes - in_pos, volume.inflated.data() + out_pos,
                                                 volume.bytes - out_pos, &used, &made);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
      throw Uncomparable(fmt::format("{}: the gzip data holds more than the {} bytes of the header's sizes", path, volume.bytes));
    if (r != LIBDEFLATE_SUCCESS) throw Uncomparable(fmt::format("{}: corrupt gzip data at byte {} of the data", path, in_pos));
    in_pos += used;
    out_pos += made;
  }
  if (out_pos != volume.bytes)
    throw Uncomparable(fmt::format("{}: the gzip data holds {} bytes, the header's sizes need {}", path, out_pos, volume.bytes));
  volume.data = volume.inflated.data();
}

Nrrd read_nrrd(const std::string& path) {
  Nrrd v;
  v.file = read_file_bytes(path);
  const std::string_view text(reinterpret_cast<const char*>(v.file.data()), v.file.size());
  if (text.substr(0, 7) != "NRRD000") throw Uncomparable(path + ": not an NRRD file (no NRRD000x magic)");
  std::size_t pos = text.find('\n');
  for (;;) {  // "field: value" lines up to an empty one; # comments and "key:=value" pairs skipped
    if (pos == std::string_view::npos || pos + 1 >= text.size())
      throw Uncomparable(path + ": the NRRD header has no end (an empty line before the data)");
    const std::size_t begin = pos + 1, end = std::min(text.find('\n', begin), text.size());
    pos = end;
    const std::string line = trimmed(text.substr(begin, end - begin));
    if (line.empty()) break;
    const auto colon = line.find(": ");
    if (line[0] == '#' || line.find(":=") < colon) continue;
    if (colon == std::string::npos) throw Uncomparable(fmt::format("{}: NRRD header line \"{}\" is not \"field: value\"", path, line));
    v.fields[line.substr(0, colon)] = trimmed(line.substr(colon + 2));
  }
  const auto field = [&](const std::string& name) -> const std::string& {
    const auto it = v.fields.find(name);
    if (it == v.fields.end()) throw Uncomparable(fmt::format("{}: the NRRD header has no \"{}\" field", path, name));
    return it->second;
  };
  for (const char* detached : {"data file", "datafile", "line skip", "lineskip", "byte skip", "byteskip"})
    if (v.fields.count(detached))
      throw Uncomparable(fmt::format("{}: NRRD \"{}\" is not supported (attached data only)", path, detached));
  v.type = sample_type(field("type"));
  if (!v.type) throw Uncomparable(fmt::format("{}: unknown NRRD type \"{}\"", path, field("type")));
  v.bytes = v.type->bytes;
  for (const auto token : split_tokens(field("sizes"))) {
    const auto size = as_number(token);
    if (!size || !(*size >= 1 && *size <= 1e15) || *size != std::floor(*size) ||
        __builtin_mul_overflow(v.bytes, std::size_t(*size), &v.bytes))
      throw Uncomparable(fmt::format("{}: invalid NRRD sizes \"{}\"", path, field("sizes")));
    v.sizes.push_back(std::size_t(*size));
  }
  if (field("dimension") != std::to_string(v.sizes.size()))
    throw Uncomparable(fmt::format("{}: NRRD dimension {} with {} sizes", path, field("dimension"), v.sizes.size()));
  if (v.type->bytes > 1) {
    const std::string& endian = field("endian");
    if (endian != "little" && endian != "big") throw Uncomparable(fmt::format("{}: unknown NRRD endian \"{}\"", path, endian));
    v.swap = endian == "big";
  }
  const std::uint8_t* in = v.file.data() + pos + 1;
  const std::size_t in_bytes = v.file.size() - (pos + 1);
  const std::string& encoding = field("encoding");
  if (encoding == "gzip" || encoding == "gz") {
    inflate_gzip(v, in, in_bytes, path);
  } else if (encoding == "raw") {
    if (in_bytes != v.bytes)
      throw Uncomparable(fmt::format("{}: {} bytes of raw data, the header's sizes need {}", path, in_bytes, v.bytes));
    v.data = in;
  } else {
    throw Uncomparable(fmt::format("{}: NRRD encoding \"{}\" is not supported (raw, gzip)", path, encoding));
  }
  return v;
}

// Field values token by token ("(1,0,0) (0,1,0)" splits into numbers).
bool field_values_match(const std::string& a, const std::string& b, const CompareOptions& o) {
  const auto ta = split_tokens(a, " \t(),"), tb = split_tokens(b, " \t(),");
  if (ta.size() != tb.size()) return false;
  for (std::size_t i = 0; i < ta.size(); ++i)
    if (!tokens_match(ta[i], tb[i], o)) return false;
  return true;
}

// Voxel coordinates of index i: {"x", "y", "z"} for 3-D volumes, {"index": [...]} otherwise.
json coordinates(std::size_t i, const std::vector<std::size_t>& sizes) {
  std::vector<std::size_t> c;
  for (const std::size_t n : sizes) {
    c.push_back(i % n);
    i /= n;
  }
  if (c.size() == 3) return {{"x", c[0]}, {"y", c[1]}, {"z", c[2]}};
  return {{"index", c}};
}

}  // namespace

FileComparison compare_nrrd(const std::string& a, const std::string& b, const CompareOptions& o) {
  const Nrrd va = read_nrrd(a), vb = read_nrrd(b);
  FileComparison result;
  result.details = {{"type", va.type->name}, {"sizes", va.sizes}};
  std::size_t header_differences = 0;
  const auto header_difference = [&](const std::string& name, const std::string& x, const std::string& y) {
    ++header_differences;
    result.differ(fmt::format("header field \"{}\": {} vs {} in {}", name, x, y, b));
  };
  // Integer samples of other widths or signedness holding equal values are the same volume
  // (labels.nrrd is uint8, uint16 or uint32 by its region count; earlier versions wrote uint32):
  // the voxels decide. Integer against floating point is a difference of type.
  if (va.type != vb.type) {
    result.details["type_b"] = vb.type->name;
    if (va.type->is_float || vb.type->is_float) header_difference("type", va.type->name, vb.type->name);
  }
  for (const char* name : compared_fields) {
    const auto x = va.fields.find(name), y = vb.fields.find(name);
    const bool in_a = x != va.fields.end(), in_b = y != vb.fields.end();
    if (in_a && in_b && field_values_match(x->second, y->second, o)) continue;
    if (in_a || in_b)
      header_difference(name, in_a ? quote(x->second) : "(none)", in_b ? quote(y->second) : "(none)");
  }
  result.details["header_differences"] = header_differences;
  if (va.sizes != vb.sizes) return result;  // voxels cannot be paired

  // Byte-identical data of the same type holds the same values: most comparisons end here.
  const bool same_bytes = va.type == vb.type && va.swap == vb.swap && std::memcmp(va.data, vb.data, va.bytes) == 0;
  std::size_t differing = 0, first = 0;
  double max_difference = 0;
  for (std::size_t i = 0; !same_bytes && i < va.voxels(); ++i) {
    const double x = va.value(i), y = vb.value(i);
    if (numbers_close(x, y, o)) continue;
    if (differing++ == 0) first = i;
    max_difference = std::max(max_difference, abs_difference(x, y));
  }
  result.details["differing_voxels"] = differing;
  result.details["max_abs_difference"] = finite_or_null(max_difference);
  if (differing == 0) return result;
  json where = coordinates(first, va.sizes);
  const std::string at = where.contains("x") ? fmt::format("voxel (x, y, z) = ({}, {}, {})", where["x"].get<std::size_t>(),
                                                           where["y"].get<std::size_t>(), where["z"].get<std::size_t>())
                                             : fmt::format("voxel {}", where["index"].dump());
  where["a"] = finite_or_null(va.value(first));
  where["b"] = finite_or_null(vb.value(first));
  result.details["first_difference"] = std::move(where);
  result.differ(fmt::format("{}: {} vs {}; {} of {} voxels differ (max abs difference {:.6g})", at, va.value(first),
                            vb.value(first), differing, va.voxels(), max_difference));
  return result;
}

}  // namespace gp::tools::compare

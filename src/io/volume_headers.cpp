// Hand-written parsers over the formats' specifications: teem's "NRRD format" (fields, per-axis
// fields, "data file", space and orientation) and ITK MetaIO's MetaImage keys.
#include "io/volume_headers.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"

namespace gp::io {
namespace {

namespace fs = std::filesystem;

// Headers are small (a few KiB, even with DWI gradient tables); a file without the end of its
// header in this many bytes is not one.
constexpr std::size_t max_header_bytes = 1 << 20;

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

double parse_number(const std::string& text, const std::string& path, const std::string& field) {
  const std::string t = trim(text);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size())
    throw ItemError(path, "load", field + ": '" + t + "' is not a number");
  return v;
}

std::vector<double> numbers(const std::string& text, const std::string& path, const std::string& field, std::size_t count) {
  std::vector<double> out;
  for (const auto& w : words(text)) out.push_back(parse_number(w, path, field));
  if (out.size() != count)
    throw ItemError(path, "load", field + ": expected " + std::to_string(count) + " numbers, got '" + trim(text) + "'");
  return out;
}

// Sizes of a volume's axes: whole numbers from 1 to 2^31 - 1.
int parse_size(const std::string& text, const std::string& path, const std::string& field) {
  const double v = parse_number(text, path, field);
  if (!(v >= 1 && v <= 2147483647.0) || v != std::floor(v))
    throw ItemError(path, "load", field + ": '" + trim(text) + "' is not a size (a whole number from 1)");
  return int(v);
}

std::uint64_t parse_count(const std::string& text, const std::string& path, const std::string& field) {
  const double v = parse_number(text, path, field);
  if (!(v >= 0 && v < 9.0e15) || v != std::floor(v))
    throw ItemError(path, "load", field + ": '" + trim(text) + "' is not a byte count");
  return std::uint64_t(v);
}

// The header text: lines up to the first empty line (NRRD) or the ElementDataFile line
// (MetaImage), and the byte offset just after it (where attached data starts).
struct HeaderText {
  std::vector<std::string> lines;
  std::uint64_t data_offset = 0;
};

template <class IsLast>
HeaderText read_header_lines(const std::string& path, IsLast is_last, bool blank_ends) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ItemError(path, "load", "cannot open");
  HeaderText h;
  std::string line;
  std::uint64_t offset = 0;
  while (true) {
    line.clear();
    char c;
    bool newline = false;
    while (in.get(c)) {
      ++offset;
      if (c == '\n') {
        newline = true;
        break;
      }
      line += c;
      if (offset > max_header_bytes) throw ItemError(path, "load", "no end of the header in its first 1 MiB");
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (blank_ends && line.empty() && newline) break;  // NRRD: the blank line ends the header
    if (!newline && line.empty()) {
      if (blank_ends) break;  // a detached header may end without the blank line
      throw ItemError(path, "load", "the header ends without ElementDataFile");
    }
    h.lines.push_back(line);
    if (is_last(line)) break;
    if (!newline) break;
  }
  h.data_offset = offset;
  return h;
}

fs::path beside(const std::string& header, const std::string& name) {
  const fs::path p(name);
  return p.is_absolute() ? p : fs::path(header).parent_path() / p;
}

// Spacing and direction from the vectors of the three axes (NRRD space directions, or
// MetaImage's TransformMatrix rows scaled by the spacing).
void set_axes(HeaderVolume& v, const std::array<std::array<double, 3>, 3>& vectors, const std::string& path,
              const std::string& field) {
  double steps[3];
  for (int a = 0; a < 3; ++a) {
    const auto& d = vectors[std::size_t(a)];
    steps[a] = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(steps[a] > 0) || !std::isfinite(steps[a]))
      throw ItemError(path, "load", field + ": the vector of axis " + std::to_string(a) + " has no length");
    for (int c = 0; c < 3; ++c) v.axes[std::size_t(a)][std::size_t(c)] = d[std::size_t(c)] / steps[a];
  }
  v.spacing = {steps[0], steps[1], steps[2]};
}

// "(1,0,0)" -> 1 0 0; "none" -> nothing.
bool parse_vector(const std::string& text, std::array<double, 3>& out, const std::string& path, const std::string& field) {
  std::string t = trim(text);
  if (t == "none") return false;
  if (t.size() < 2 || t.front() != '(' || t.back() != ')')
    throw ItemError(path, "load", field + ": '" + t + "' is not a vector like (1,0,0)");
  t = t.substr(1, t.size() - 2);
  std::replace(t.begin(), t.end(), ',', ' ');
  const auto v = numbers(t, path, field, 3);
  out = {v[0], v[1], v[2]};
  return true;
}

std::string dims_text(const Dims3& d) {
  return std::to_string(d.nx) + "x" + std::to_string(d.ny) + "x" + std::to_string(d.nz);
}

// ---- NRRD ---------------------------------------------------------------------------------------

std::string nrrd_dtype(const std::string& type, const std::string& path) {
  static const std::map<std::string, std::string> types = {
      {"signed char", "int8"},       {"int8", "int8"},         {"int8_t", "int8"},
      {"uchar", "uint8"},            {"unsigned char", "uint8"}, {"uint8", "uint8"},
      {"uint8_t", "uint8"},          {"short", "int16"},       {"short int", "int16"},
      {"signed short", "int16"},     {"signed short int", "int16"}, {"int16", "int16"},
      {"int16_t", "int16"},          {"ushort", "uint16"},     {"unsigned short", "uint16"},
      {"unsigned short int", "uint16"}, {"uint16", "uint16"},  {"uint16_t", "uint16"},
      {"int", "int32"},              {"signed int", "int32"},  {"int32", "int32"},
      {"int32_t", "int32"},          {"uint", "uint32"},       {"unsigned int", "uint32"},
      {"uint32", "uint32"},          {"uint32_t", "uint32"},   {"float", "float32"},
      {"double", "float64"}};
  const auto it = types.find(lower(trim(type)));
  if (it == types.end())
    throw ItemError(path, "load", "type: '" + trim(type) +
                                      "' is not supported (int8, uint8, int16, uint16, int32, uint32, float, double)");
  return it->second;
}

}  // namespace

bool looks_like_nrrd(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[7] = {};
  in.read(head, 7);
  return in.gcount() == 7 && std::string(head, 7) == "NRRD000";
}

bool looks_like_metaimage(const std::string& path) {
  const std::string ext = lower(fs::path(path).extension().string());
  if (ext != ".mhd" && ext != ".mha") return false;
  std::ifstream in(path, std::ios::binary);
  std::string line;
  while (std::getline(in, line) && trim(line).empty()) {
  }
  const auto eq = line.find('=');
  return eq != std::string::npos && eq > 0 && !trim(line.substr(0, eq)).empty() &&
         trim(line.substr(0, eq)).find(' ') == std::string::npos;
}

HeaderVolume read_nrrd_header(const std::string& path) {
  if (!looks_like_nrrd(path)) throw ItemError(path, "load", "not a NRRD file (no NRRD000x magic)");
  const HeaderText h = read_header_lines(path, [](const std::string&) { return false; }, true);
  std::map<std::string, std::string> fields;
  for (std::size_t i = 1; i < h.lines.size(); ++i) {
    const std::string& line = h.lines[i];
    if (line.empty() || line[0] == '#') continue;
    if (line.find(":=") != std::string::npos) continue;  // key/value pairs: not ours
    const auto colon = line.find(": ");
    if (colon == std::string::npos) throw ItemError(path, "load", "header line '" + line + "' is not 'field: value'");
    std::string key = lower(trim(line.substr(0, colon)));
    // Older spellings (NRRD0001..3) of the fields read here.
    if (key == "datafile") key = "data file";
    if (key == "lineskip") key = "line skip";
    if (key == "byteskip") key = "byte skip";
    fields[key] = trim(line.substr(colon + 2));
  }
  auto field = [&](const std::string& key) -> const std::string* {
    const auto it = fields.find(key);
    return it == fields.end() ? nullptr : &it->second;
  };
  auto required = [&](const std::string& key) -> const std::string& {
    const std::string* v = field(key);
    if (!v) throw ItemError(path, "load", "the header has no '" + key + "' field");
    return *v;
  };

  HeaderVolume v;
  SampleFile& s = v.samples;
  s.header = path;
  s.format.dtype = nrrd_dtype(required("type"), path);
  const double dimension = parse_number(required("dimension"), path, "dimension");
  if (dimension != 2 && dimension != 3)
    throw ItemError(path, "load", "dimension: " + required("dimension") + " is not supported (a volume has 3, an image 2)");
  const int n = int(dimension);
  const auto sizes = words(required("sizes"));
  if (int(sizes.size()) != n)
    throw ItemError(path, "load", "sizes: expected " + std::to_string(n) + " sizes, got '" + required("sizes") + "'");
  s.format.dims = {parse_size(sizes[0], path, "sizes"), parse_size(sizes[1], path, "sizes"),
                   n == 3 ? parse_size(sizes[2], path, "sizes") : 1};
  const std::string encoding = lower(required("encoding"));
  if (encoding == "gzip" || encoding == "gz")
    s.compressed = true;
  else if (encoding != "raw")
    throw ItemError(path, "load", "encoding: '" + encoding + "' is not supported (raw, gzip)");
  if (const std::string* endian = field("endian")) {
    const std::string e = lower(*endian);
    if (e != "little" && e != "big") throw ItemError(path, "load", "endian: '" + *endian + "' is neither little nor big");
    s.format.big_endian = e == "big";
  } else if (raw_dtype_bytes(s.format.dtype) > 1) {
    throw ItemError(path, "load", "the header has no 'endian' field, which " + s.format.dtype + " samples need");
  }

  // Where the data is: attached after the blank line, or the one file "data file" names.
  std::uint64_t line_skip = 0;
  if (const std::string* skip = field("line skip")) line_skip = parse_count(*skip, path, "line skip");
  std::int64_t byte_skip = 0;
  if (const std::string* skip = field("byte skip")) {
    if (trim(*skip) == "-1")
      byte_skip = -1;
    else
      byte_skip = std::int64_t(parse_count(*skip, path, "byte skip"));
  }
  if (const std::string* data_file = field("data file")) {
    if (words(*data_file).size() != 1 || lower(*data_file).rfind("list", 0) == 0)
      throw ItemError(path, "load", "data file: '" + *data_file + "' (several data files) is not supported; one file only");
    s.path = beside(path, *data_file).string();
    s.file_offset = 0;
  } else {
    s.path = path;
    s.file_offset = h.data_offset;
  }
  if (line_skip > 0) {
    std::ifstream in(s.path, std::ios::binary);
    if (!in) throw ItemError(s.path, "load", "cannot open the data file (header " + path + ")");
    in.seekg(std::streamoff(s.file_offset));
    std::string skipped;
    for (std::uint64_t i = 0; i < line_skip; ++i)
      if (!std::getline(in, skipped))
        throw ItemError(s.path, "load", "line skip: the data file has fewer than " + std::to_string(line_skip) + " lines");
    s.file_offset = std::uint64_t(in.tellg());
  }
  if (byte_skip == -1) {
    if (s.compressed) throw ItemError(path, "load", "byte skip: -1 (data at the end) needs raw encoding");
    s.at_end = true;
  } else if (s.compressed) {
    s.format.header_bytes = std::uint64_t(byte_skip);  // bytes of the inflated stream (teem)
  } else {
    s.format.header_bytes = s.file_offset + std::uint64_t(byte_skip);
  }

  // Geometry: space directions (with space origin) or spacings.
  if (const std::string* space = field("space")) {
    const std::string sp = lower(*space);
    if (sp == "left-posterior-superior" || sp == "lps") {
      v.lps = true;
    } else if (sp == "right-anterior-superior" || sp == "ras") {
      v.lps = true;  // converted below: LPS = RAS with x and y negated
    } else if (sp == "3d-right-handed" || sp == "3d-left-handed" || sp == "scanner-xyz") {
    } else {
      throw ItemError(path, "load", "space: '" + *space + "' is not a 3-D space this reader knows");
    }
  }
  const bool ras = field("space") && (lower(*field("space")) == "right-anterior-superior" || lower(*field("space")) == "ras");
  if (const std::string* directions = field("space directions")) {
    std::string t = *directions;
    std::vector<std::string> vectors;
    for (std::size_t open = t.find_first_of("(n"); open != std::string::npos; open = t.find_first_of("(n", open)) {
      const std::size_t close = t[open] == '(' ? t.find(')', open) : open + 3;
      if (close == std::string::npos || close >= t.size())
        throw ItemError(path, "load", "space directions: '" + t + "' is not a list of vectors");
      vectors.push_back(t.substr(open, close - open + 1));
      open = close + 1;
    }
    if (int(vectors.size()) != n)
      throw ItemError(path, "load", "space directions: expected " + std::to_string(n) + " vectors, got '" + t + "'");
    std::array<std::array<double, 3>, 3> axes{{{0, 0, 0}, {0, 0, 0}, {0, 0, 1}}};
    for (int a = 0; a < n; ++a)
      if (!parse_vector(vectors[std::size_t(a)], axes[std::size_t(a)], path, "space directions"))
        throw ItemError(path, "load", "space directions: axis " + std::to_string(a) + " is 'none'; it must be a spatial axis");
    if (ras)
      for (auto& a : axes) a[0] = -a[0], a[1] = -a[1];
    set_axes(v, axes, path, "space directions");
    if (n == 2) v.spacing.z = 1;
  } else if (const std::string* spacings = field("spacings")) {
    const auto w = words(*spacings);
    if (int(w.size()) != n) throw ItemError(path, "load", "spacings: expected " + std::to_string(n) + " values");
    double steps[3] = {1, 1, 1};
    for (int a = 0; a < n; ++a) {
      const double step = lower(w[std::size_t(a)]) == "nan" ? 1.0 : parse_number(w[std::size_t(a)], path, "spacings");
      if (!(step != 0) || !std::isfinite(step)) throw ItemError(path, "load", "spacings: '" + *spacings + "' has no length");
      steps[a] = std::abs(step);
      if (step < 0) v.axes[std::size_t(a)][std::size_t(a)] = -1;
    }
    v.spacing = {steps[0], steps[1], steps[2]};
  }
  if (const std::string* origin = field("space origin")) {
    std::array<double, 3> o{};
    if (parse_vector(*origin, o, path, "space origin")) {
      if (ras) o[0] = -o[0], o[1] = -o[1];
      v.origin = o;
    }
  }
  if (const std::string* units = field("space units")) {
    std::vector<std::string> u;
    std::string t = *units;
    for (std::size_t q = t.find('"'); q != std::string::npos; q = t.find('"', q)) {
      const std::size_t end = t.find('"', q + 1);
      if (end == std::string::npos) break;
      u.push_back(t.substr(q + 1, end - q - 1));
      q = end + 1;
    }
    if (!u.empty() && std::all_of(u.begin(), u.end(), [&](const std::string& x) { return x == u.front(); }))
      v.length_unit = u.front();
  }
  v.description = std::string(fields.count("data file") ? "NRRD (detached) " : "NRRD ") + s.format.dtype +
                  (s.compressed ? " gzip" : " raw") + ", " + dims_text(s.format.dims);
  return v;
}

HeaderVolume read_metaimage_header(const std::string& path) {
  const HeaderText h = read_header_lines(
      path, [](const std::string& line) { return lower(trim(line.substr(0, line.find('=')))) == "elementdatafile"; },
      false);
  std::map<std::string, std::string> keys;  // lower-case key -> value
  for (const auto& line : h.lines) {
    if (trim(line).empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw ItemError(path, "load", "header line '" + line + "' is not 'Key = value'");
    keys[lower(trim(line.substr(0, eq)))] = trim(line.substr(eq + 1));
  }
  auto key = [&](const std::string& name) -> const std::string* {
    const auto it = keys.find(lower(name));
    return it == keys.end() ? nullptr : &it->second;
  };
  auto required = [&](const std::string& name) -> const std::string& {
    const std::string* v = key(name);
    if (!v) throw ItemError(path, "load", "the header has no " + name);
    return *v;
  };
  auto yes = [&](const std::string& name) {
    const std::string* v = key(name);
    return v && (lower(*v) == "true" || *v == "1");
  };

  HeaderVolume v;
  SampleFile& s = v.samples;
  s.header = path;
  if (const std::string* type = key("ObjectType"); type && lower(*type) != "image")
    throw ItemError(path, "load", "ObjectType " + *type + " is not an image");
  const double ndims = parse_number(required("NDims"), path, "NDims");
  if (ndims != 2 && ndims != 3) throw ItemError(path, "load", "NDims " + required("NDims") + " is not supported (3, or 2)");
  const int n = int(ndims);
  const auto sizes = words(required("DimSize"));
  if (int(sizes.size()) != n) throw ItemError(path, "load", "DimSize: expected " + std::to_string(n) + " sizes");
  s.format.dims = {parse_size(sizes[0], path, "DimSize"), parse_size(sizes[1], path, "DimSize"),
                   n == 3 ? parse_size(sizes[2], path, "DimSize") : 1};
  if (const std::string* channels = key("ElementNumberOfChannels");
      channels && parse_number(*channels, path, "ElementNumberOfChannels") != 1)
    throw ItemError(path, "load", "ElementNumberOfChannels " + *channels + ": volumes need one channel");
  static const std::map<std::string, std::string> types = {
      {"met_char", "int8"},     {"met_uchar", "uint8"}, {"met_short", "int16"}, {"met_ushort", "uint16"},
      {"met_int", "int32"},     {"met_uint", "uint32"}, {"met_float", "float32"}, {"met_double", "float64"}};
  const auto type = types.find(lower(required("ElementType")));
  if (type == types.end())
    throw ItemError(path, "load", "ElementType " + required("ElementType") +
                                      " is not supported (MET_CHAR, MET_UCHAR, MET_SHORT, MET_USHORT, MET_INT, MET_UINT, "
                                      "MET_FLOAT, MET_DOUBLE)");
  s.format.dtype = type->second;
  s.format.big_endian = yes("ElementByteOrderMSB") || yes("BinaryDataByteOrderMSB");
  if (const std::string* binary = key("BinaryData"); binary && lower(*binary) != "true")
    throw ItemError(path, "load", "BinaryData " + *binary + ": text data is not supported");
  s.compressed = yes("CompressedData");

  const std::string& data_file = required("ElementDataFile");
  if (lower(data_file) == "local") {
    s.path = path;
    s.file_offset = h.data_offset;
  } else if (lower(data_file).rfind("list", 0) == 0 || words(data_file).size() != 1 ||
             data_file.find('%') != std::string::npos) {
    throw ItemError(path, "load", "ElementDataFile " + data_file + ": one data file (or LOCAL) only");
  } else {
    s.path = beside(path, data_file).string();
    s.file_offset = 0;
  }
  std::int64_t header_size = 0;
  if (const std::string* hs = key("HeaderSize"))
    header_size = trim(*hs) == "-1" ? -1 : std::int64_t(parse_count(*hs, path, "HeaderSize"));
  if (header_size == -1) {
    if (s.compressed) throw ItemError(path, "load", "HeaderSize -1 (data at the end) needs uncompressed data");
    s.at_end = true;
  } else if (s.compressed) {
    s.file_offset += std::uint64_t(header_size);
  } else {
    s.format.header_bytes = s.file_offset + std::uint64_t(header_size);
  }

  // Geometry (ITK: physical space is LPS, lengths in mm).
  v.lps = true;
  v.length_unit = "mm";
  double steps[3] = {1, 1, 1};
  const std::string* spacing = key("ElementSpacing") ? key("ElementSpacing") : key("ElementSize");
  if (spacing) {
    const auto w = numbers(*spacing, path, "ElementSpacing", std::size_t(n));
    for (int a = 0; a < n; ++a) {
      if (!(w[std::size_t(a)] > 0)) throw ItemError(path, "load", "ElementSpacing: '" + *spacing + "' is not positive");
      steps[a] = w[std::size_t(a)];
    }
  }
  std::array<std::array<double, 3>, 3> axes{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  const std::string* matrix =
      key("TransformMatrix") ? key("TransformMatrix") : key("Rotation") ? key("Rotation") : key("Orientation");
  if (matrix) {
    const auto m = numbers(*matrix, path, "TransformMatrix", std::size_t(n * n));
    // ITK writes axis a's direction as the a-th group of n numbers.
    for (int a = 0; a < n; ++a)
      for (int c = 0; c < n; ++c) axes[std::size_t(a)][std::size_t(c)] = m[std::size_t(a * n + c)];
  }
  for (int a = 0; a < 3; ++a)
    for (auto& c : axes[std::size_t(a)]) c *= steps[a];
  set_axes(v, axes, path, "TransformMatrix");
  const std::string* origin = key("Offset") ? key("Offset") : key("Position") ? key("Position") : key("Origin");
  if (origin) {
    const auto o = numbers(*origin, path, "Offset", std::size_t(n));
    v.origin = {o[0], o[1], n == 3 ? o[2] : 0};
  }
  v.description = std::string("MetaImage ") + s.format.dtype + (s.compressed ? " compressed" : "") + ", " +
                  dims_text(s.format.dims);
  return v;
}

std::unique_ptr<SliceSource> open_header_volume(const std::string& path, bool nrrd, const VolumeReadOptions& options) {
  const HeaderVolume h = nrrd ? read_nrrd_header(path) : read_metaimage_header(path);
  auto source = open_sample_file(h.samples, options.slope, options.intercept);
  source->spacing = h.spacing;
  source->origin = h.origin;
  source->axes = h.axes;
  source->lps = h.lps;
  source->length_unit = h.length_unit;
  source->description = h.description;
  source->name = path;
  if (options.spacing_given) {
    source->spacing = options.spacing;
    source->description += ", spacing overridden";
  }
  return source;
}

}  // namespace gp::io

// VTK XML files (segment-pnm's network.vtp, PolyData): parsed with expat, then every DataArray
// (Points, the Verts/Lines/Strips/Polys connectivity and offsets, PointData, CellData, FieldData)
// compared by its place and Name, values within the tolerances, and the pieces' NumberOf*
// counts exactly. ASCII arrays only, which is what our writer makes; binary and appended data
// cannot be compared.
#include <expat.h>

#include <fmt/format.h>

#include <climits>
#include <map>
#include <memory>

#include "tools/compare_parts.hpp"

namespace gp::tools::compare {
namespace {

struct DataArray {
  std::string type;
  std::size_t components = 1;
  std::vector<double> values;
};

// A file as the values that matter, each under a key naming its place: "PointData/pore.volume",
// "Lines/offsets", "Piece 1/Points/DataArray 0" (pieces after the first and unnamed arrays are
// numbered), "NumberOfPoints" for the pieces' counts and "type" for the dataset type.
struct VtkFile {
  std::map<std::string, std::string> attributes;
  std::vector<std::string> array_order;
  std::map<std::string, DataArray> arrays;
  std::size_t pieces = 0, points = 0, cells = 0;
};

class VtkParser {
 public:
  explicit VtkParser(std::string path) : path_(std::move(path)) {}

  VtkFile parse(const std::string& text) {
    std::unique_ptr<XML_ParserStruct, void (*)(XML_Parser)> parser(XML_ParserCreate(nullptr), XML_ParserFree);
    if (!parser) throw std::bad_alloc();
    XML_SetUserData(parser.get(), this);
    XML_SetElementHandler(parser.get(), on_start, on_end);
    XML_SetCharacterDataHandler(parser.get(), on_text);
    parser_ = parser.get();
    constexpr std::size_t chunk = INT_MAX / 2;  // XML_Parse takes an int length
    for (std::size_t at = 0;; at += chunk) {
      const std::size_t n = std::min(chunk, text.size() - std::min(at, text.size()));
      const bool last = at + n >= text.size();
      if (XML_Parse(parser.get(), text.data() + at, int(n), last) != XML_STATUS_OK) {
        if (!error_.empty()) throw Uncomparable(path_ + ": " + error_);
        throw Uncomparable(fmt::format("{}: invalid XML at line {}: {}", path_, XML_GetCurrentLineNumber(parser.get()),
                                       XML_ErrorString(XML_GetErrorCode(parser.get()))));
      }
      if (last) break;
    }
    if (file_.pieces == 0) throw Uncomparable(path_ + ": no VTKFile with a Piece");
    return std::move(file_);
  }

 private:
  static void on_start(void* self, const XML_Char* name, const XML_Char** attributes) {
    static_cast<VtkParser*>(self)->start(name, attributes);
  }
  static void on_end(void* self, const XML_Char*) { static_cast<VtkParser*>(self)->end(); }
  static void on_text(void* self, const XML_Char* text, int n) {
    auto* parser = static_cast<VtkParser*>(self);
    if (parser->array_) parser->text_.append(text, std::size_t(n));
  }

  // Expat is C: errors stop the parser and are thrown once it returns.
  void fail(std::string what) {
    if (error_.empty()) error_ = std::move(what);
    XML_StopParser(parser_, XML_FALSE);
  }

  static std::string attribute(const XML_Char** attributes, const std::string& name) {
    for (; attributes[0]; attributes += 2)
      if (name == attributes[0]) return attributes[1];
    return "";
  }

  // The key prefix of what is inside the current element ("", "Piece 1/", "PointData/"...).
  std::string place() const {
    std::string p;
    for (const auto& name : path_names_)
      if (!name.empty()) p += name + "/";
    return p;
  }

  void start(const std::string& name, const XML_Char** attributes) {
    const std::size_t depth = stack_.size();
    stack_.push_back(name);
    if (name != "DataArray") unnamed_ = 0;
    if (depth == 0) {
      if (name != "VTKFile") return fail("the root element is <" + name + ">, not <VTKFile>");
      if (!attribute(attributes, "compressor").empty()) return fail("compressed VTK data is not supported");
      file_.attributes["type"] = attribute(attributes, "type");
    } else if (name == "AppendedData") {
      fail("appended data is not supported (ASCII DataArrays only)");
    } else if (name == "Piece") {
      path_names_.push_back(file_.pieces > 0 ? "Piece " + std::to_string(file_.pieces) : "");
      ++file_.pieces;
      for (auto a = attributes; a[0]; a += 2) {
        const std::string key = a[0];
        if (key.rfind("NumberOf", 0) != 0) continue;
        file_.attributes[place() + key] = a[1];
        const auto count = as_number(a[1]);
        const std::size_t n = count && *count >= 0 ? std::size_t(*count) : 0;
        if (key == "NumberOfPoints") file_.points += n;
        else if (key == "NumberOfVerts" || key == "NumberOfLines" || key == "NumberOfStrips" || key == "NumberOfPolys")
          file_.cells += n;
      }
    } else if (name == "DataArray") {
      const std::string format = attribute(attributes, "format");
      if (format != "ascii") return fail(fmt::format("DataArray format \"{}\" is not supported (ASCII only)", format));
      std::string array_name = attribute(attributes, "Name");
      if (array_name.empty()) array_name = "DataArray " + std::to_string(unnamed_++);
      const std::string key = place() + stack_[depth - 1] + "/" + array_name;
      if (file_.arrays.count(key)) return fail("two DataArrays at " + key);
      file_.array_order.push_back(key);
      array_ = &file_.arrays[key];
      array_->type = attribute(attributes, "type");
      const auto components = as_number(attribute(attributes, "NumberOfComponents"));
      array_->components = components && *components >= 1 ? std::size_t(*components) : 1;
      text_.clear();
    }
  }

  void end() {
    const std::string name = stack_.back();
    stack_.pop_back();
    if (name == "Piece") {
      path_names_.pop_back();
    } else if (name == "DataArray" && array_) {
      for (const auto token : split_tokens(text_, " \t\r\n")) {
        const auto value = as_number(token);
        if (!value) return fail(fmt::format("{}: {} is not a number", file_.array_order.back(), quote(token)));
        array_->values.push_back(*value);
      }
      array_ = nullptr;
    }
  }

  std::string path_;
  XML_Parser parser_ = nullptr;
  std::string error_;
  VtkFile file_;
  std::vector<std::string> stack_, path_names_;
  DataArray* array_ = nullptr;  // the DataArray being read
  std::string text_;            // its text
  int unnamed_ = 0;             // unnamed DataArrays so far in the current element
};

VtkFile read_vtk(const std::string& path) { return VtkParser(path).parse(read_text(path)); }

}  // namespace

FileComparison compare_vtp(const std::string& a, const std::string& b, const CompareOptions& o) {
  const VtkFile fa = read_vtk(a), fb = read_vtk(b);
  FileComparison result;
  result.details = {{"pieces", fa.pieces}, {"points", fa.points}, {"cells", fa.cells}, {"arrays", fa.arrays.size()}};
  for (const auto& [key, value] : fa.attributes) {
    const auto other = fb.attributes.find(key);
    if (other == fb.attributes.end() || other->second != value)
      result.differ(fmt::format("{}: {} vs {} in {}", key, quote(value),
                                other == fb.attributes.end() ? "(none)" : quote(other->second), b));
  }
  for (const auto& [key, value] : fb.attributes)
    if (!fa.attributes.count(key)) result.differ(fmt::format("{}: (none) vs {} in {}", key, quote(value), b));
  std::size_t differing_values = 0;
  for (const auto& key : fa.array_order) {
    const DataArray& x = fa.arrays.at(key);
    const auto found = fb.arrays.find(key);
    if (found == fb.arrays.end()) {
      result.differ(key + ": only in " + a);
      continue;
    }
    const DataArray& y = found->second;
    if (x.type != y.type || x.components != y.components || x.values.size() != y.values.size()) {
      result.differ(fmt::format("{}: {} values of {} x {} vs {} of {} x {} in {}", key, x.values.size(), x.type,
                                x.components, y.values.size(), y.type, y.components, b));
      continue;
    }
    std::size_t differing = 0, first = 0;
    for (std::size_t i = 0; i < x.values.size(); ++i)
      if (!numbers_close(x.values[i], y.values[i], o) && differing++ == 0) first = i;
    if (differing == 0) continue;
    const std::size_t tuple = first / x.components, component = first % x.components;
    if (differing_values == 0)
      result.details["first_difference"] = {{"array", key}, {"tuple", tuple}, {"component", component},
                                            {"a", finite_or_null(x.values[first])}, {"b", finite_or_null(y.values[first])}};
    differing_values += differing;
    result.differ(fmt::format("{}: tuple {}, component {}: {} vs {}{}", key, tuple, component, x.values[first],
                              y.values[first], differing > 1 ? fmt::format("; {} values differ", differing) : ""));
  }
  for (const auto& key : fb.array_order)
    if (!fa.arrays.count(key)) result.differ(key + ": only in " + b);
  result.details["differing_values"] = differing_values;
  return result;
}

}  // namespace gp::tools::compare

// CSV tables (segment-pnm's pores.csv and throats.csv, track-faces' per-camera CSV): cell by cell
// under the same header, numbers within the tolerances, other cells exactly.
#include <fmt/format.h>

#include "tools/compare_parts.hpp"

namespace gp::tools::compare {
namespace {

struct CsvRecord {
  std::size_t line = 1;  // where the record starts (quoted cells may span lines)
  std::vector<std::string> cells;
};

// RFC 4180: "quoted, cells" with "" for a quote and line breaks inside quotes; \n or \r\n
// between records; blank lines skipped.
std::vector<CsvRecord> parse_csv(const std::string& text) {
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string cell;
  bool in_quotes = false, any_quote = false;
  std::size_t line = 1;
  auto end_record = [&] {
    record.cells.push_back(cell);
    const bool blank = record.cells.size() == 1 && cell.empty() && !any_quote;
    if (!blank) records.push_back(record);
    record = CsvRecord{line + 1, {}};
    cell.clear();
    any_quote = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      const bool doubled_quote = c == '"' && i + 1 < text.size() && text[i + 1] == '"';
      if (doubled_quote) cell += text[++i];
      else if (c == '"') in_quotes = false;
      else cell += c;
      if (c == '\n') ++line;
    } else if (c == '"') {
      in_quotes = any_quote = true;
    } else if (c == ',') {
      record.cells.push_back(cell);
      cell.clear();
    } else if (c == '\n') {
      end_record();
      ++line;
    } else if (!(c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) {
      cell += c;
    }
  }
  if (!cell.empty() || !record.cells.empty() || any_quote) end_record();
  return records;
}

}  // namespace

FileComparison compare_csv(const std::string& a, const std::string& b, const CompareOptions& o) {
  const auto rows_a = parse_csv(read_text(a)), rows_b = parse_csv(read_text(b));
  FileComparison result;
  const std::size_t data_a = rows_a.empty() ? 0 : rows_a.size() - 1, data_b = rows_b.empty() ? 0 : rows_b.size() - 1;
  result.details = {{"rows", data_a}, {"columns", rows_a.empty() ? 0 : rows_a[0].cells.size()}};
  if (rows_a.empty() || rows_b.empty()) {
    if (rows_a.size() != rows_b.size()) result.differ(rows_a.empty() ? "empty, " + b + " is not" : "not empty, " + b + " is");
    return result;
  }
  // Cells are matched by column, so the headers must be the same.
  const auto& header = rows_a[0].cells;
  if (header != rows_b[0].cells) {
    std::size_t col = 0;
    while (col < header.size() && col < rows_b[0].cells.size() && header[col] == rows_b[0].cells[col]) ++col;
    result.differ(fmt::format("header differs at column {}: {} vs {} in {}", col + 1, quote_at(header, col),
                              quote_at(rows_b[0].cells, col), b));
    return result;
  }
  std::size_t differing_cells = 0;
  for (std::size_t row = 1; row < std::min(rows_a.size(), rows_b.size()); ++row) {
    const auto& cells_a = rows_a[row].cells;
    const auto& cells_b = rows_b[row].cells;
    for (std::size_t col = 0; col < std::max(cells_a.size(), cells_b.size()); ++col) {
      if (col < cells_a.size() && col < cells_b.size() && tokens_match(cells_a[col], cells_b[col], o)) continue;
      if (differing_cells++ > 0) continue;
      const std::string name = col < header.size() ? header[col] : "";
      result.details["first_difference"] = {{"row", row},           {"column", col + 1},
                                            {"column_name", name},  {"line", rows_a[row].line},
                                            {"a", json_at(cells_a, col)}, {"b", json_at(cells_b, col)}};
      result.differ(fmt::format("row {}, column {} {} (line {}): {} vs {}", row, col + 1, quote(name),
                                rows_a[row].line, quote_at(cells_a, col), quote_at(cells_b, col)));
    }
  }
  result.details["differing_cells"] = differing_cells;
  if (differing_cells > 1) result.differences.back() += fmt::format("; {} cells differ", differing_cells);
  if (data_a != data_b) result.differ(fmt::format("{} data rows vs {} in {}", data_a, data_b, b));
  return result;
}

}  // namespace gp::tools::compare

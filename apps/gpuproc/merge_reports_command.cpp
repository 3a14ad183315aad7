#include "merge_reports_command.hpp"

#include <fstream>
#include <iostream>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/file_checks.hpp"
#include "core/outputs.hpp"
#include "tools/report_merge.hpp"

namespace gp::app {

void add_merge_reports_options(CLI::App& sub, MergeReportsArgs& args) {
  sub.add_option("reports", args.reports, "the shards' --report files")->required();
  sub.add_option("-o,--out", args.out, "write the merged report here (default: standard output)");
}

int run_merge_reports(const MergeReportsArgs& args) {
  std::vector<nlohmann::json> reports;
  for (const std::string& path : args.reports) {
    const std::string text = read_text_file(path, max_report_bytes, "report");
    try {
      reports.push_back(config::parse_bounded<nlohmann::json>(text, path));
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(path + ": not JSON: " + e.what());
    }
  }
  const tools::ReportMerge m = tools::merge_reports(reports, args.reports);
  const std::string text = m.report.dump(2) + "\n";
  if (args.out.empty()) {
    std::cout << text;
  } else {
    write_atomically(args.out, [&](const std::string& temp) {
      std::ofstream out(temp);
      out << text;
      if (!out) throw Error("cannot write " + temp);
    });
  }
  for (const std::string& p : m.problems) std::cerr << "merge-reports: " << p << "\n";
  return m.problems.empty() && !m.items_failed ? 0 : 1;
}

}  // namespace gp::app

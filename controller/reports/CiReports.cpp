#include "reports/CiReports.h"

#include <filesystem>
#include <system_error>

#include "reports/JunitReport.h"
#include "reports/SarifReport.h"

namespace ctrl {

void write_ci_reports(ReportFile& sarif, ReportFile& junit, const ExplorationReport& report, const std::string& program,
                      Symbolizer& symbols) {
  if (sarif.wanted()) {
    std::error_code ec;
    std::string root = std::filesystem::current_path(ec).string();
    sarif.write(sarif_log(report, program, ec ? "" : root, symbols).dump(2) + "\n");
  }
  if (junit.wanted()) junit.write(junit_xml(report, program, symbols));
}

}  // namespace ctrl

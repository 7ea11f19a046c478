// Writes the CI files a run asked for (--sarif, --junit) from its report.
#pragma once

#include <string>

#include "exploration/Explorer.h"
#include "reports/ReportFile.h"

namespace ctrl {

class Symbolizer;

// SARIF paths under the current directory are written relative to it
// (SarifReport.h). Files not asked for are skipped.
void write_ci_reports(ReportFile& sarif, ReportFile& junit, const ExplorationReport& report, const std::string& program,
                      Symbolizer& symbols);

}  // namespace ctrl

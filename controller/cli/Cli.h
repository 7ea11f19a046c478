// The command line: `ctrl attach` and `ctrl replay`. Returns ctrl's exit
// status; throws UsageError/InternalError for main() to report.
#pragma once

namespace ctrl {

int run_cli(int argc, char** argv);

}  // namespace ctrl

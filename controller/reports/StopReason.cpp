#include "reports/StopReason.h"

#include <fmt/format.h>

namespace ctrl {

std::string limit_keyword(const ExplorationReport& r) {
  if (r.stopped_at_max_executions) return "max-executions";
  if (r.interrupted && r.stopped_by == "the time limit") return "time-limit";
  if (r.bounded > 0) return "max-steps";
  if (r.interrupted) return "signal";
  return "";
}

std::string stop_reason_text(const ExplorationReport& r) {
  std::string k = limit_keyword(r);
  if (k == "max-executions") return fmt::format("--max-executions {} reached", r.max_executions);
  if (k == "time-limit") return "--time-limit ran out";
  if (k == "max-steps") return fmt::format("{} execution{} cut by --max-steps", r.bounded, r.bounded == 1 ? "" : "s");
  if (k == "signal") return fmt::format("stopped by {}", r.stopped_by);
  return "";
}

}  // namespace ctrl

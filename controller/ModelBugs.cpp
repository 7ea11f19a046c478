#include "ModelBugs.h"

#include <fmt/format.h>

#include "Symbolizer.h"

namespace ctrl {

void adopt_model_bug(ExecutionResult& r, const std::vector<Strategy::ModelBug>& bugs, const Symbolizer& symbols) {
  for (const Strategy::ModelBug& bug : bugs) {
    if (bug.kind == "uninitialized-load" && !symbols.module_name(bug.address).empty()) continue;
    uint64_t at = bug.second != UINT64_MAX ? bug.second : bug.first;
    if (at >= r.events.size()) continue;
    const shm::Event& e = r.events[at];
    r.end = ExecutionResult::End::Bug;
    r.kind = bug.kind;
    r.thread = e.thread;
    r.site = e.site;
    r.message = bug.message;
    if (bug.second != UINT64_MAX && bug.first < r.events.size())
      r.message += fmt::format(" (at {} and {}, on {})", symbols.describe_code(r.events[bug.first].site),
                               symbols.describe_code(e.site), symbols.describe_data(e.addr));
    else
      r.message += fmt::format(" (at {}, on {})", symbols.describe_code(e.site), symbols.describe_data(e.addr));
    return;
  }
}

}  // namespace ctrl

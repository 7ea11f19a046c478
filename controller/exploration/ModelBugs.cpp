#include "exploration/ModelBugs.h"

#include <fmt/format.h>

#include "binary/Symbolizer.h"

namespace ctrl {

void adopt_model_bug(ExecutionResult& r, const std::vector<Strategy::ModelBug>& bugs, const Symbolizer& symbols,
                     const std::function<bool(uint64_t)>& initialised,
                     const std::function<std::string(uint64_t)>& name_data) {
  auto data = [&](uint64_t addr) {
    std::string name = name_data ? name_data(addr) : "";
    return name.empty() ? symbols.describe_data(addr) : name;
  };
  for (const Strategy::ModelBug& bug : bugs) {
    if (bug.kind == "uninitialized-load" && (!symbols.module_name(bug.address).empty() || initialised(bug.address)))
      continue;
    uint64_t at = bug.second != UINT64_MAX ? bug.second : bug.first;
    if (at >= r.events.size()) continue;
    const shm::Event& e = r.events[at];
    // The model's bug comes first and is the cause: what the program then
    // did (an assertion on the value it read) is told after it.
    std::string then = r.end == ExecutionResult::End::Bug
                           ? fmt::format("; the execution then ended in {}: {}", r.kind, r.message)
                           : "";
    r.end = ExecutionResult::End::Bug;
    r.kind = bug.kind;
    r.thread = e.thread;
    r.site = e.site;
    r.message = bug.message;
    if (bug.second != UINT64_MAX && bug.first < r.events.size())
      r.message += fmt::format(" (at {} and {}, on {})", symbols.describe_code(r.events[bug.first].site),
                               symbols.describe_code(e.site), data(e.addr));
    else
      r.message += fmt::format(" (at {}, on {})", symbols.describe_code(e.site), data(e.addr));
    r.message += then;
    return;
  }
}

}  // namespace ctrl

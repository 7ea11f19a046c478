#include "exploration/ModelBugs.h"

#include <fmt/format.h>

#include "binary/Symbolizer.h"

namespace ctrl {

std::optional<Bug> first_model_bug(const ExecutionResult& r, const std::vector<Bug>& bugs, const Symbolizer& symbols,
                                   const std::function<bool(uint64_t)>& initialised,
                                   const std::function<std::string(uint64_t)>& name_data) {
  if (!may_have_model_bug(r)) return std::nullopt;
  auto data = [&](uint64_t addr) {
    std::string name = name_data ? name_data(addr) : "";
    return name.empty() ? symbols.describe_data(addr) : name;
  };
  for (const Bug& found : bugs) {
    if (found.kind == BugKind::UninitializedLoad &&
        (!symbols.module_name(found.facts.address).empty() || initialised(found.facts.address)))
      continue;
    const BugAccess* at = latest_access(found);
    if (!at || at->step >= r.events.size()) continue;
    const shm::Event& e = r.events[at->step];
    Bug bug = found;
    const BugAccess* other = nullptr;
    for (const BugAccess& a : bug.facts.accesses)
      if (&a != latest_access(bug) && a.step < r.events.size()) other = &a;
    if (other)
      bug.message += fmt::format(" (at {} and {}, on {})", symbols.describe_code(r.events[other->step].site),
                                 symbols.describe_code(e.site), data(e.addr));
    else
      bug.message += fmt::format(" (at {}, on {})", symbols.describe_code(e.site), data(e.addr));
    // The model's bug comes first and is the cause: what the program then
    // did (an assertion on the value it read) is told after it.
    if (r.end == ExecutionResult::End::Bug)
      bug.message += fmt::format("; the execution then ended in {}: {}", r.kind_name(), r.message);
    return bug;
  }
  return std::nullopt;
}

std::optional<Bug> ModelBugMonitor::examine(const ExecutionResult& r) {
  if (!may_have_model_bug(r)) return std::nullopt;
  return first_model_bug(r, found_(r), symbols_, initialised_);
}

}  // namespace ctrl

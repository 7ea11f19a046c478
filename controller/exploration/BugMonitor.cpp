#include "exploration/BugMonitor.h"

#include <algorithm>

namespace ctrl {

void BugMonitor::adopt(ExecutionResult& r, Bug bug) const { adopt_bug(r, std::move(bug)); }

bool BugMonitor::check(ExecutionResult& r) {
  std::optional<Bug> bug = examine(r);
  if (!bug) return false;
  adopt(r, std::move(*bug));
  return true;
}

const BugAccess* latest_access(const Bug& bug) {
  auto it = std::max_element(bug.facts.accesses.begin(), bug.facts.accesses.end(),
                             [](const BugAccess& a, const BugAccess& b) { return a.step < b.step; });
  return it == bug.facts.accesses.end() ? nullptr : &*it;
}

void adopt_bug(ExecutionResult& r, Bug bug) {
  for (BugAccess& a : bug.facts.accesses) {
    if (a.step >= r.events.size()) continue;
    const shm::Event& e = r.events[a.step];
    a.thread = e.thread;
    a.op = e.kind;
    a.site = e.site;
    a.addr = e.addr;
  }
  if (const BugAccess* at = latest_access(bug); at && at->step < r.events.size()) {
    r.thread = at->thread;
    r.site = at->site;
  }
  r.end = ExecutionResult::End::Bug;
  r.kind = bug.kind;
  r.message = std::move(bug.message);
  r.facts = std::move(bug.facts);
}

}  // namespace ctrl

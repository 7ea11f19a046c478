// Source-DPOR's side of partitioned exploration (DporPartition.h): a
// strategy that explores one work item's subtree, hands the races above its
// root to their owners, takes theirs from below, and gives its oldest open
// branches away.
#include <algorithm>

#include "DporEvents.h"
#include "DporStrategy.h"

namespace ctrl {

using namespace dpor;

void DporStrategy::start_item(const WorkItem& item) {
  std::vector<uint32_t> fixed = item.prefix;
  fixed.push_back(item.thread);
  set_fixed_prefix(std::move(fixed));
  std::vector<Sleeper> sleep;
  for (const auto& [t, record] : item.sleepers) sleep.push_back(Sleeper{t, from_record(record), shm::Event{}});
  root_sleep_ = std::move(sleep);
  root_sleep_mask_ = item.sleep_mask;
  collect_requests_ = true;
}

bool DporStrategy::apply_request(const Request& r) {
  // The owner keeps every state a living subtree below may ask about
  // (DporPartition: it never branches above the root of one).
  if (optimal_ || r.state >= stack_.size()) return false;
  return add_initials(r.state, r.initials, r.thread);
}

DporStrategy::Turn DporStrategy::next_partitioned(ExecutionPlan& plan, uint64_t keep) {
  if (!started_) {
    plan = *next();
    return Turn::Plan;
  }
  plan = ExecutionPlan{};
  plan.policy = shm::TailPolicy::Sticky;
  for (uint64_t i = stack_.size(); i-- > fixed_steps();) {
    Position& pos = stack_[i];
    uint64_t asleep = mask_of(pos.sleep);
    uint64_t open = pos.backtrack & ~pos.done & ~asleep;
    if (!open) continue;
    // Branching here would drop the states below i that a stolen subtree
    // may still add threads to, or sleep a stolen thread whose step is not
    // known yet.
    if (i < keep || pos.awaiting) return Turn::Wait;
    uint32_t q = uint32_t(__builtin_ctzll(open));
    branch_plan(plan, i, pos, asleep, q);
    branch_ = i;
    branch_thread_ = q;
    in_flight_ = true;
    return Turn::Plan;
  }
  return Turn::Done;
}

std::optional<DporStrategy::WorkItem> DporStrategy::steal() {
  if (optimal_ || !started_) return std::nullopt;
  // An execution still running will replace the states from its branch
  // point on.
  const uint64_t limit = in_flight_ ? std::min<uint64_t>(branch_, stack_.size()) : stack_.size();
  for (uint64_t i = fixed_steps(); i < limit; ++i) {
    Position& pos = stack_[i];
    uint64_t asleep = mask_of(pos.sleep);
    uint64_t open = pos.backtrack & ~pos.done & ~asleep;
    if (!open || pos.awaiting) continue;
    uint32_t q = uint32_t(__builtin_ctzll(open));
    ExecutionPlan plan;
    branch_plan(plan, i, pos, asleep, q);
    pos.awaiting |= bit(q);
    WorkItem item;
    item.prefix.assign(plan.prefix.begin(), plan.prefix.end() - 1);
    item.thread = q;
    item.sleep_mask = plan.sleep_mask;
    item.sleepers = std::move(plan.sleepers);
    return item;
  }
  return std::nullopt;
}

bool DporStrategy::explored() const {
  if (!started_ || in_flight_) return false;
  for (uint64_t i = fixed_steps(); i < stack_.size(); ++i) {
    const Position& pos = stack_[i];
    if (pos.backtrack & ~pos.done & ~mask_of(pos.sleep)) return false;
  }
  return true;
}

void DporStrategy::record_stolen(uint64_t state, const shm::Event& step) {
  if (state >= stack_.size()) return;
  Position& pos = stack_[state];
  pos.tried.push_back(Sleeper{step.thread, access_of(step), step});
  pos.awaiting &= ~bit(step.thread);
}

}  // namespace ctrl

#include "session/LiveCheckpoints.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/ExitStatus.h"
#include "session/Session.h"

namespace ctrl {

LiveCheckpoints::~LiveCheckpoints() {
  for (const Checkpoint& c : checkpoints_) session_.drop_checkpoint(c.slot);
}

LiveCheckpoints::Checkpoint& LiveCheckpoints::add(int slot, const shm::Event* events, uint64_t n, uint64_t step,
                                                  bool automatic) {
  Checkpoint c;
  c.id = next_id_++;
  c.slot = slot;
  c.step = step;
  c.automatic = automatic;
  uint64_t kept = std::min<uint64_t>(step, n);
  for (uint64_t k = 0; k < kept; ++k) c.schedule.push_back(events[k].thread);
  if (keep_events_ || !automatic) c.events.assign(events, events + kept);
  checkpoints_.push_back(std::move(c));
  return checkpoints_.back();
}

const LiveCheckpoints::Checkpoint& LiveCheckpoints::take(const std::vector<shm::Event>& events, bool automatic) {
  return take(events.data(), events.size(), automatic);
}

const LiveCheckpoints::Checkpoint& LiveCheckpoints::take(const shm::Event* events, uint64_t n, bool automatic) {
  std::string error;
  int slot = session_.take_checkpoint(error);
  if (slot < 0) throw UsageError("cannot take a live checkpoint here: " + error);
  return add(slot, events, n, n, automatic);
}

const LiveCheckpoints::Checkpoint* LiveCheckpoints::adopt(const std::vector<shm::Event>& events, uint64_t step) {
  int slot = session_.region().header().checkpoint_result;
  if (slot < 0 || events.size() < step) return nullptr;
  const shm::CheckpointSlot& s = session_.region().header().checkpoints[slot];
  if (s.step != step) return nullptr;
  return &add(slot, events.data(), events.size(), step, true);
}

const LiveCheckpoints::Checkpoint* LiveCheckpoints::find(int id) const {
  for (const Checkpoint& c : checkpoints_)
    if (c.id == id) return &c;
  return nullptr;
}

const LiveCheckpoints::Checkpoint* LiveCheckpoints::nearest(const std::vector<uint32_t>& schedule,
                                                            uint64_t step) const {
  const Checkpoint* best = nullptr;
  for (const Checkpoint& c : checkpoints_) {
    if (c.step > step || c.step > schedule.size() || (best && best->step >= c.step)) continue;
    if (std::equal(c.schedule.begin(), c.schedule.end(), schedule.begin())) best = &c;
  }
  return best;
}

ExecutionResult LiveCheckpoints::restore(int id, ExecutionPlan plan, uint64_t index,
                                         const std::vector<shm::Signature>& expected) {
  const Checkpoint* c = find(id);
  if (!c) throw UsageError(fmt::format("no checkpoint {}", id));
  if (plan.prefix.size() < c->step) plan.prefix.resize(c->step);
  std::copy(c->schedule.begin(), c->schedule.end(), plan.prefix.begin());
  return session_.restore_checkpoint(c->slot, plan, index, c->events.data(), c->events.size(), expected);
}

ExecutionResult LiveCheckpoints::restore(int id, ExecutionPlan plan, uint64_t index,
                                         const std::vector<shm::Signature>& expected, const shm::Event* events) {
  const Checkpoint* c = find(id);
  if (!c) throw UsageError(fmt::format("no checkpoint {}", id));
  if (plan.prefix.size() < c->step) plan.prefix.resize(c->step);
  std::copy(c->schedule.begin(), c->schedule.end(), plan.prefix.begin());
  return session_.restore_checkpoint(c->slot, plan, index, events, c->step, expected);
}

void LiveCheckpoints::drop(int id) {
  auto it = std::find_if(checkpoints_.begin(), checkpoints_.end(), [&](const Checkpoint& c) { return c.id == id; });
  if (it == checkpoints_.end()) return;
  session_.drop_checkpoint(it->slot);
  checkpoints_.erase(it);
}

}  // namespace ctrl

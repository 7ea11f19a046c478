#include "session/StepCheckpoints.h"

#include <algorithm>

#include "cli/ExitStatus.h"

namespace ctrl {

void StepCheckpoints::set_enabled(bool enabled) {
  enabled_ = enabled;
  if (!enabled) live_.reset();
}

LiveCheckpoints& StepCheckpoints::live() {
  if (!live_) live_ = std::make_unique<LiveCheckpoints>(session_, false);
  return *live_;
}

const LiveCheckpoints::Checkpoint* StepCheckpoints::nearest(const std::vector<uint32_t>& schedule,
                                                            uint64_t step) const {
  return any() ? live_->nearest(schedule, step) : nullptr;
}

std::vector<uint64_t> StepCheckpoints::stops_between(uint64_t from, uint64_t target) {
  std::vector<uint64_t> stops;
  if (target - from < kAutomaticFrom) return stops;
  for (uint64_t d = 1024; d < target - from; d *= 2) stops.push_back(target - d);
  for (uint64_t p = (from / kBand + 1) * kBand; p < target; p += kBand) stops.push_back(p);
  std::sort(stops.begin(), stops.end());
  stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
  stops.erase(std::remove_if(stops.begin(), stops.end(), [&](uint64_t p) { return p <= from + 64; }), stops.end());
  return stops;
}

void StepCheckpoints::take_automatic(const std::vector<uint32_t>& path, const std::vector<shm::Event>& events,
                                     uint64_t position) {
  if (!enabled_) return;
  std::vector<uint32_t> here(path.begin(), path.begin() + long(position));
  if (const auto* c = live().nearest(here, position); c && c->step == position) return;
  // Room first: the automatic checkpoints farthest from here go.
  std::vector<const LiveCheckpoints::Checkpoint*> automatic;
  for (const auto& c : live().all())
    if (c.automatic) automatic.push_back(&c);
  if (automatic.size() >= kMaxAutomatic) {
    auto far = std::max_element(automatic.begin(), automatic.end(), [&](auto* a, auto* b) {
      auto dist = [&](uint64_t step) { return step > position ? step - position : position - step; };
      return dist(a->step) < dist(b->step);
    });
    live().drop((*far)->id);
  }
  try {
    live().take(events.data(), position, true);
  } catch (const UsageError&) {
    // The agent refused (a thread it does not control, no slot): going
    // back re-runs from further away, nothing else changes.
  }
}

int StepCheckpoints::take_numbered(const std::vector<shm::Event>& events, uint64_t position) {
  if (!enabled_) throw UsageError("live checkpoints are off (--no-checkpoints)");
  const auto& c = live().take(events.data(), position);
  int number = numbered_.empty() ? 1 : numbered_.back().first + 1;
  numbered_.emplace_back(number, c.id);
  return number;
}

const LiveCheckpoints::Checkpoint* StepCheckpoints::numbered(int number) const {
  const LiveCheckpoints::Checkpoint* c = nullptr;
  for (const auto& [n, id] : numbered_)
    if (n == number && live_) c = live_->find(id);
  return c;
}

std::vector<CheckpointInfo> StepCheckpoints::list() const {
  std::vector<CheckpointInfo> out;
  if (!live_) return out;
  for (const auto& c : live_->all()) {
    int number = 0;
    for (const auto& [n, id] : numbered_)
      if (id == c.id) number = n;
    out.push_back(CheckpointInfo{number, c.step, c.automatic});
  }
  std::sort(out.begin(), out.end(), [](const CheckpointInfo& a, const CheckpointInfo& b) { return a.step < b.step; });
  return out;
}

ExecutionResult StepCheckpoints::restore(const LiveCheckpoints::Checkpoint& c, ExecutionPlan plan, uint64_t index,
                                         const shm::Event* events) {
  return live_->restore(c.id, std::move(plan), index, {}, events);
}

}  // namespace ctrl

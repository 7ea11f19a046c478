#include "exploration/CheckpointedSearch.h"

#include <fmt/format.h>

#include <algorithm>

#include "Operation.h"
#include "session/Session.h"

namespace ctrl {

namespace {

// The first step whose state the plan's sleep set shapes (as
// SharedMemory::prepare writes it); UINT64_MAX when it has none.
uint64_t sleep_start(const ExecutionPlan& plan) {
  if (plan.sleep_mask == 0) return UINT64_MAX;
  return plan.sleep_from.value_or(plan.prefix.empty() ? 0 : plan.prefix.size() - 1);
}

bool deterministic_tail(shm::TailPolicy p) { return p == shm::TailPolicy::Sticky || p == shm::TailPolicy::RoundRobin; }

}  // namespace

CheckpointedSearch::CheckpointedSearch(Session& session, uint64_t min_steps_saved, size_t max_kept)
    : session_(session),
      checkpoints_(session),
      min_steps_saved_(std::max<uint64_t>(min_steps_saved, 1)),
      max_kept_(max_kept) {}

const LiveCheckpoints::Checkpoint* CheckpointedSearch::usable(const ExecutionPlan& plan) const {
  if (!enabled_ || !deterministic_tail(plan.policy)) return nullptr;
  uint64_t limit = std::min<uint64_t>(plan.prefix.size(), sleep_start(plan));
  const LiveCheckpoints::Checkpoint* c = checkpoints_.nearest(plan.prefix, limit);
  return c && c->step >= min_steps_saved_ ? c : nullptr;
}

void CheckpointedSearch::drop_unusable(const ExecutionPlan& plan) {
  std::vector<int> gone;
  for (const auto& c : checkpoints_.all()) {
    size_t n = std::min<size_t>(c.schedule.size(), plan.prefix.size());
    if (!std::equal(c.schedule.begin(), c.schedule.begin() + n, plan.prefix.begin())) gone.push_back(c.id);
  }
  for (int id : gone) checkpoints_.drop(id);
}

uint64_t CheckpointedSearch::placement(const ExecutionPlan& plan, uint64_t base, uint64_t branch) const {
  // A little before the branch: later plans branch a few steps above it
  // too (DPOR reverses races further and further back), and re-running a
  // quarter of the threshold's steps costs a fraction of a restore.
  uint64_t slack = min_steps_saved_ / 4;
  uint64_t before = branch > base + slack ? branch - slack : branch;
  // The steps before the branch are those of the previous execution (the
  // strategy branched from it) when its schedule says so; their enabled
  // sets tell where no plan can branch.
  if (last_.size() < branch) return before;
  for (uint64_t k = 0; k < branch; ++k)
    if (last_[k].thread != plan.prefix[k]) return before;
  // The end of the deepest run of min_steps_saved_ forced steps (one thread
  // enabled) before the branch: no later plan branches within it, and every
  // plan that branches after it, siblings of this one included, can start
  // there.
  uint64_t run = 0;
  for (uint64_t k = branch; k-- > base;) {
    if (__builtin_popcountll(last_[k].enabled) <= 1) {
      if (++run >= min_steps_saved_) {
        uint64_t end = k + run;
        return end;
      }
    } else {
      run = 0;
    }
  }
  return before;
}

void CheckpointedSearch::drop_all() {
  std::vector<int> ids;
  for (const auto& c : checkpoints_.all()) ids.push_back(c.id);
  for (int id : ids) checkpoints_.drop(id);
}

void CheckpointedSearch::forget() { drop_all(); }

void CheckpointedSearch::check_restorable(const ExecutionResult& r) {
  if (!enabled_) return;
  bool ok = session_.region().header().files_changed.load(std::memory_order_acquire) == 0;
  for (const shm::Event& e : r.events) {
    if (!ok) break;
    auto kind = OpKind(e.kind);
    ok = kind != OpKind::FdWait && kind != OpKind::ChildWait;
  }
  if (ok) return;
  enabled_ = false;
  stats_.disabled = true;
  drop_all();
}

ExecutionResult CheckpointedSearch::run(ExecutionPlan plan, uint64_t index,
                                        const std::vector<shm::Signature>& expected) {
  drop_unusable(plan);
  const LiveCheckpoints::Checkpoint* from = usable(plan);
  // The branch point: its sibling plans and the plans below it share every
  // decision before it (depth-first order), so they can start there.
  uint64_t branch = plan.prefix.empty() ? 0 : plan.prefix.size() - 1;
  uint64_t base = from ? from->step : 0;
  uint64_t at = placement(plan, base, branch);
  plan.checkpoint_at = UINT64_MAX;
  if (enabled_ && deterministic_tail(plan.policy) && checkpoints_.all().size() < max_kept_ &&
      at >= base + min_steps_saved_)
    plan.checkpoint_at = at;
  ExecutionResult r;
  if (from) {
    ++stats_.restored;
    stats_.steps_saved += from->step;
    r = checkpoints_.restore(from->id, plan, index, expected);
    if (r.end == ExecutionResult::End::Diverged) {
      // The restored process was not the execution it was taken from:
      // something a restore does not put back (ffmpeg under DPOR, issue 22
      // item 6, read the time, now virtual: agent/VirtualClock.h). The
      // plan runs again from the start, and checkpoints stay off: a restore
      // must never change what an exploration finds.
      enabled_ = false;
      stats_.disabled = true;
      ++stats_.diverged;
      drop_all();
      fmt::print(stderr,
                 "ctrl: execution {} continued from a live checkpoint went elsewhere than its plan ({}): run again "
                 "from the start, live checkpoints off\n",
                 index + 1, r.message);
      plan.checkpoint_at = UINT64_MAX;
      r = session_.run(plan, index, expected);
    }
  } else {
    // A restore of a checkpoint taken before this execution would find the
    // file journal's mark moved (see the header): they go.
    drop_all();
    r = session_.run(plan, index, expected);
  }
  if (plan.checkpoint_at != UINT64_MAX && checkpoints_.adopt(r.events, plan.checkpoint_at)) ++stats_.taken;
  last_.resize(r.events.size());
  for (size_t k = 0; k < r.events.size(); ++k) last_[k] = {r.events[k].thread, r.events[k].enabled};
  check_restorable(r);
  return r;
}

}  // namespace ctrl

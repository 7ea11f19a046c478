#include "exploration/PartitionedDpor.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "exploration/HelperSession.h"
#include "session/Tracer.h"

namespace ctrl {

namespace {

using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }

ExecutionSummary summary_of(const ExecutionResult& r, uint64_t index) {
  ExecutionSummary s;
  s.index = index;
  s.events = r.events.data();
  s.steps = r.events.size();
  s.complete = r.end == ExecutionResult::End::Complete || r.end == ExecutionResult::End::Bug;
  s.blocked = r.end == ExecutionResult::End::Blocked;
  s.pending = r.pending.data();
  s.npending = r.pending.size();
  return s;
}

// The root item's first plan is the explorer's first execution, accounted
// before the partition began.
bool explorers_first(const DporPartition::Task& task) { return task.item == 0 && task.first; }

// How long a session without work sleeps before it looks again, should no
// finished execution wake it.
constexpr auto kIdlePoll = std::chrono::milliseconds(20);

// Finished executions the explorer has not taken yet, at most: its analysis
// (race checks of a real program's long executions) can be slower than the
// helpers, whose results would otherwise pile up without bound (592 MB on
// an asio program in 25 s) and be thrown away at a limit.
constexpr size_t kReadyLimit = 64;

}  // namespace

PartitionedDpor::PartitionedDpor(const SessionConfig& config, unsigned helpers, clock::time_point deadline,
                                 std::vector<shm::Signature> expected, ExecutionPlan first,
                                 ExecutionResult first_result, DporPartition::Factory make, std::vector<uint32_t> fixed,
                                 std::unique_ptr<ProbeSchedule> probes, unsigned remote_sessions)
    : config_(config),
      deadline_(deadline),
      expected_(std::move(expected)),
      first_(std::move(first)),
      first_result_(std::move(first_result)),
      partition_(std::move(make), std::move(fixed), helpers + 1 + remote_sessions),
      probes_(std::move(probes)),
      held_(helpers + 1 + remote_sessions),
      remote_probe_(remote_sessions, false),
      remote_base_(helpers + 1) {
  stats_.jobs = helpers + 1;
  stats_.mode = "dpor-partition";
  stats_.workers.resize(helpers + 1);
  idle_.assign(helpers + 1, 0);
  began_.assign(helpers + 1, clock::now());
  ended_.assign(helpers + 1, clock::time_point::max());
  start_helper_threads(helpers_, helpers, [this](size_t k) { helper(k); });
}

PartitionedDpor::~PartitionedDpor() {
  stop();
  join_helper_threads(helpers_);
}

bool PartitionedDpor::explored() {
  stop();
  join_helper_threads(helpers_);
  {
    // A helper's execution past the limit, not taken: not explored.
    std::lock_guard lock(mutex_);
    if (!ready_.empty()) return false;
  }
  return partition_.done() || partition_.explored();
}

void PartitionedDpor::stop() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  changed_.notify_all();
}

void PartitionedDpor::turn_off(const std::string& why) {
  if (stats_.off.empty()) stats_.off = why;
  changed_.notify_all();
}

void PartitionedDpor::check_own(const ExecutionResult& r, bool files_changed) {
  if (!touches_outside(r, files_changed)) return;
  std::lock_guard lock(mutex_);
  turn_off("an execution changed a file or waited on a descriptor or a child process");
}

SpeculationStats PartitionedDpor::stats() const {
  DporPartition::Stats p = partition_.stats();
  std::lock_guard lock(mutex_);
  SpeculationStats s = stats_;
  s.ranges = p.items;
  s.steals = p.steals;
  auto now = clock::now();
  for (size_t k = 0; k < s.workers.size(); ++k) {
    auto end = ended_[k] == clock::time_point::max() ? now : ended_[k];
    double life = std::chrono::duration<double>(end - began_[k]).count();
    s.workers[k].idle_fraction = life > 0 ? std::min(1.0, idle_[k] / life) : 0;
  }
  return s;
}

DporPartition::Status PartitionedDpor::next_job(size_t worker, Job& job) {
  job.probe = false;
  std::optional<DporPartition::Task> held = std::move(held_[worker]);
  held_[worker].reset();
  if (!held && worker == 0) {
    std::lock_guard lock(mutex_);
    if (!orphans_.empty()) {
      held = std::move(orphans_.front());
      orphans_.pop_front();
      partition_.adopt(0, held->item);
    }
  }
  if (held) {
    job.task = std::move(*held);
    std::lock_guard lock(probes_mutex_);
    probes_->search_planned();
    return DporPartition::Status::Run;
  }
  DporPartition::Status status = partition_.next(worker, job.task);
  if (status != DporPartition::Status::Run || !probes_ || explorers_first(job.task)) return status;
  std::lock_guard lock(probes_mutex_);
  if (auto probe = probes_->before_search_plan()) {
    held_[worker] = std::move(job.task);
    job.task = DporPartition::Task{};
    job.task.plan = std::move(*probe);
    job.probe = true;
    return status;
  }
  probes_->search_planned();
  return status;
}

void PartitionedDpor::learn(size_t worker, const Job& job, const ExecutionSummary& summary) {
  if (!job.probe) partition_.completed(worker, job.task, summary);
  if (!probes_ || explorers_first(job.task)) return;
  std::lock_guard lock(probes_mutex_);
  probes_->completed(summary, job.probe);
}

std::optional<PartitionedDpor::Finished> PartitionedDpor::take(const RunOwn& run_own) {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (!ready_.empty()) {
        Finished f = std::move(ready_.front());
        ready_.pop_front();
        if (ready_.size() + 1 == kReadyLimit) changed_.notify_all();
        if (handed_over(f.result.end)) {
          ++stats_.taken;
          return f;
        }
        lock.unlock();
        // A bug (or anything but an ordinary end) is the explorer's
        // session's to hold: run again there.
        f.result = run_own(f.plan);
        return f;
      }
      if (!lost_.empty()) {
        Lost l = std::move(lost_.front());
        lost_.pop_front();
        lock.unlock();
        if (auto f = run_lost(std::move(l), run_own)) return f;
        continue;
      }
    }
    Job job;
    DporPartition::Status status = next_job(0, job);
    if (status == DporPartition::Status::Run) {
      ExecutionResult r = run_own(job.task.plan);
      {
        std::lock_guard lock(mutex_);
        ++stats_.workers[0].executions;
      }
      // Stopped half-way: it teaches nothing, the explorer sees the stop.
      if (r.end == ExecutionResult::End::Interrupted) return Finished{std::move(job.task.plan), std::move(r)};
      learn(0, job, summary_of(r, 0));
      changed_.notify_all();
      if (explorers_first(job.task)) continue;
      return Finished{std::move(job.task.plan), std::move(r)};
    }
    std::unique_lock lock(mutex_);
    if (!ready_.empty() || !lost_.empty()) continue;
    if (status == DporPartition::Status::Done) return std::nullopt;
    auto t0 = clock::now();
    changed_.wait_for(lock, kIdlePoll);
    idle_[0] += seconds_since(t0);
  }
}

void PartitionedDpor::helper(size_t k) {
  Tracer::set_helper_thread();
  const size_t w = k + 1;  // this helper's worker number and statistics slot
  try {
    {
      std::lock_guard lock(mutex_);
      if (quit_ || !stats_.off.empty()) {
        began_[w] = ended_[w] = clock::now();
        return;
      }
    }
    HelperStart start = start_helper_session(config_, k, deadline_, expected_, first_, first_result_);
    if (!start.session) {
      std::lock_guard lock(mutex_);
      began_[w] = ended_[w] = clock::now();
      if (!quit_ && !start.interrupted) turn_off(start.failed);
      return;
    }
    Session& session = *start.session;
    {
      std::lock_guard lock(mutex_);
      began_[w] = clock::now();
    }
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        if (quit_ || !stats_.off.empty()) break;
        if (ready_.size() >= kReadyLimit) {
          auto t0 = clock::now();
          changed_.wait_for(lock, kIdlePoll);
          idle_[w] += seconds_since(t0);
          continue;
        }
      }
      Job job;
      DporPartition::Status status = next_job(w, job);
      if (status == DporPartition::Status::Done) break;
      if (status == DporPartition::Status::Wait) {
        std::unique_lock lock(mutex_);
        auto t0 = clock::now();
        changed_.wait_for(lock, kIdlePoll);
        idle_[w] += seconds_since(t0);
        continue;
      }
      uint64_t index;
      {
        std::lock_guard lock(mutex_);
        index = dispatched_++;
      }
      ExecutionResult r = session.run(job.task.plan, index, expected_);
      if (r.end == ExecutionResult::End::Interrupted) break;
      bool outside = touches_outside(r, session.region().header().files_changed.load() != 0);
      learn(w, job, summary_of(r, index));
      std::lock_guard lock(mutex_);
      ++stats_.workers[w].executions;
      ++stats_.speculative;
      if (!explorers_first(job.task)) ready_.push_back(Finished{std::move(job.task.plan), std::move(r)});
      if (outside) turn_off("an execution changed a file or waited on a descriptor or a child process");
      changed_.notify_all();
    }
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    if (!quit_) turn_off(fmt::format("helper {} failed: {}", k + 1, e.what()));
  }
  std::lock_guard lock(mutex_);
  // Its item goes on elsewhere; a search plan it held before a probe, on
  // the explorer's session (the item stays bound until then).
  if (held_[w])
    orphans_.push_back(std::move(*held_[w]));
  else
    partition_.release(w);
  ended_[w] = clock::now();
  changed_.notify_all();
}

// Remote sessions (--mpi): workers of the partition like the helpers, fed
// and drained by another thread (parallel/RemoteRanks.h).

bool PartitionedDpor::remote_next(size_t slot, DporPartition::Task& task) {
  {
    std::lock_guard lock(mutex_);
    if (quit_ || !stats_.off.empty()) return false;
  }
  Job job;
  if (next_job(remote_base_ + slot, job) != DporPartition::Status::Run) return false;
  remote_probe_[slot] = job.probe;
  task = std::move(job.task);
  return true;
}

void PartitionedDpor::remote_completed(size_t slot, DporPartition::Task task, ExecutionResult result, bool outside) {
  uint64_t index;
  {
    std::lock_guard lock(mutex_);
    index = dispatched_++;
  }
  Job job{std::move(task), bool(remote_probe_[slot])};
  learn(remote_base_ + slot, job, summary_of(result, index));
  std::lock_guard lock(mutex_);
  ++stats_.speculative;
  if (!explorers_first(job.task)) ready_.push_back(Finished{std::move(job.task.plan), std::move(result)});
  if (outside) turn_off("an execution changed a file or waited on a descriptor or a child process");
  changed_.notify_all();
}

void PartitionedDpor::remote_lost(size_t slot, DporPartition::Task task) {
  std::lock_guard lock(mutex_);
  const size_t w = remote_base_ + slot;
  // A probe's slot holds the search task it was given the probe before:
  // the explorer's, as a stopped helper's (its item stays bound until then).
  if (remote_probe_[slot] && held_[w]) {
    orphans_.push_back(std::move(*held_[w]));
    held_[w].reset();
  }
  lost_.push_back(Lost{w, std::move(task), bool(remote_probe_[slot])});
  changed_.notify_all();
}

void PartitionedDpor::remote_release(size_t slot) {
  {
    std::lock_guard lock(mutex_);
    const size_t w = remote_base_ + slot;
    if (held_[w]) {
      orphans_.push_back(std::move(*held_[w]));
      held_[w].reset();
    } else {
      partition_.release(w);
    }
  }
  changed_.notify_all();
}

std::optional<PartitionedDpor::Finished> PartitionedDpor::run_lost(Lost lost, const RunOwn& run_own) {
  ExecutionResult r = run_own(lost.task.plan);
  {
    std::lock_guard lock(mutex_);
    ++stats_.workers[0].executions;
  }
  // Stopped half-way: it teaches nothing, the explorer sees the stop.
  if (r.end == ExecutionResult::End::Interrupted) return Finished{std::move(lost.task.plan), std::move(r)};
  if (lost.probe) {
    // No item's: it teaches the probes only (its slot's search task, if
    // any, went to the orphans when it was lost).
    std::lock_guard lock(probes_mutex_);
    probes_->completed(summary_of(r, 0), true);
    return Finished{std::move(lost.task.plan), std::move(r)};
  }
  partition_.completed(lost.worker, lost.task, summary_of(r, 0));
  partition_.release(lost.worker);
  changed_.notify_all();
  if (explorers_first(lost.task)) return std::nullopt;
  return Finished{std::move(lost.task.plan), std::move(r)};
}

}  // namespace ctrl

#include "exploration/ParallelExplorer.h"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <exception>

#include "exploration/HelperSession.h"
#include "session/Tracer.h"

namespace ctrl {

bool ParallelExplorer::touches_outside(const ExecutionResult& r, bool files_changed) {
  return ctrl::touches_outside(r, files_changed);
}

ParallelExplorer::ParallelExplorer(const SessionConfig& config, unsigned helpers,
                                   std::chrono::steady_clock::time_point deadline, std::vector<shm::Signature> expected,
                                   ExecutionPlan first, ExecutionResult first_result)
    : config_(config),
      deadline_(deadline),
      expected_(std::move(expected)),
      first_(std::move(first)),
      first_result_(std::move(first_result)) {
  stats_.jobs = helpers + 1;
  stats_.mode = "run-ahead";
  start_helper_threads(helpers_, helpers, [this](size_t k) { helper(k); });
}

ParallelExplorer::~ParallelExplorer() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  changed_.notify_all();
  // A helper may be in the middle of an execution (or of its start-up): the
  // stop signal ends it as Ctrl-C ends the explorer's.
  for (auto& t : helpers_) pthread_kill(t.native_handle(), Tracer::kStopSignal);
  for (auto& t : helpers_) t.join();
}

SpeculationStats ParallelExplorer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

const ExecutionPlan* ParallelExplorer::unclaimed() const {
  for (const auto& p : wanted_) {
    bool taken = std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return same_plan(e.plan, p); });
    if (!taken) return &p;
  }
  return nullptr;
}

std::list<ParallelExplorer::Entry>::iterator ParallelExplorer::find(const ExecutionPlan& plan) {
  return std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return same_plan(e.plan, plan); });
}

void ParallelExplorer::turn_off(const std::string& why) {
  if (stats_.off.empty()) stats_.off = why;
  wanted_.clear();
  // Results still running are dropped when they come.
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->done) {
      it = entries_.erase(it);
    } else {
      it->wanted = false;
      ++it;
    }
  }
  changed_.notify_all();
}

void ParallelExplorer::want(std::vector<ExecutionPlan> plans) {
  {
    std::lock_guard lock(mutex_);
    if (!stats_.off.empty()) return;
    wanted_ = std::move(plans);
    for (auto it = entries_.begin(); it != entries_.end();) {
      bool still =
          std::any_of(wanted_.begin(), wanted_.end(), [&](const ExecutionPlan& p) { return same_plan(p, it->plan); });
      it->wanted = still;
      if (!still && it->done) {
        it = entries_.erase(it);
      } else {
        ++it;
      }
    }
  }
  changed_.notify_all();
}

void ParallelExplorer::finish(const ExecutionPlan& plan, ExecutionResult r, bool outside) {
  auto it = find(plan);
  if (it == entries_.end() || it->done) return;
  ++stats_.speculative;
  if (outside) {
    entries_.erase(it);
    turn_off("an execution changed a file or waited on a descriptor or a child process");
    return;
  }
  if (!it->wanted || r.end == ExecutionResult::End::Interrupted) {
    entries_.erase(it);
  } else {
    it->done = true;
    it->result = std::move(r);
  }
  changed_.notify_all();
}

std::optional<ExecutionResult> ParallelExplorer::take(const ExecutionPlan& plan, const RunOwn& run_own) {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (!stats_.off.empty()) return std::nullopt;
    auto it = find(plan);
    if (it == entries_.end()) {
      // The explorer runs it: no helper may take it up now.
      std::erase_if(wanted_, [&](const ExecutionPlan& p) { return same_plan(p, plan); });
      return std::nullopt;
    }
    if (it->done) {
      ExecutionResult r = std::move(it->result);
      entries_.erase(it);
      if (!handed_over(r.end)) return std::nullopt;
      ++stats_.taken;
      return r;
    }
    // Running in a helper: meanwhile this session runs ahead too.
    if (const ExecutionPlan* p = unclaimed()) {
      ExecutionPlan mine = *p;
      entries_.emplace_back().plan = mine;
      lock.unlock();
      ExecutionResult r = run_own(mine);
      lock.lock();
      bool stop = r.end == ExecutionResult::End::Interrupted;
      finish(mine, std::move(r), false);  // run_own called check_own
      if (stop) return std::nullopt;      // the explorer sees the stop itself
      continue;
    }
    changed_.wait(lock);
  }
}

void ParallelExplorer::check_own(const ExecutionResult& r, bool files_changed) {
  if (!touches_outside(r, files_changed)) return;
  std::lock_guard lock(mutex_);
  turn_off("an execution changed a file or waited on a descriptor or a child process");
}

void ParallelExplorer::helper(size_t k) {
  Tracer::set_helper_thread();
  auto quitting = [&] {
    std::lock_guard lock(mutex_);
    return quit_ || !stats_.off.empty();
  };
  ExecutionPlan plan;  // the plan this helper runs, while `running`
  bool running = false;
  try {
    if (quitting()) return;
    HelperStart start = start_helper_session(config_, k, deadline_, expected_, first_, first_result_);
    if (!start.session) {
      std::lock_guard lock(mutex_);
      if (!quit_ && !start.interrupted) turn_off(start.failed);
      return;
    }
    Session& session = *start.session;
    for (uint64_t index = 1;; ++index) {
      {
        std::unique_lock lock(mutex_);
        const ExecutionPlan* p = nullptr;
        changed_.wait(lock, [&] { return quit_ || !stats_.off.empty() || (p = unclaimed()) != nullptr; });
        if (quit_ || !stats_.off.empty()) return;
        plan = *p;
        entries_.emplace_back().plan = plan;
        running = true;
      }
      ExecutionResult r = session.run(plan, index, expected_);
      bool outside_now = touches_outside(r, session.region().header().files_changed.load() != 0);
      bool stopped = r.end == ExecutionResult::End::Interrupted;
      std::lock_guard lock(mutex_);
      running = false;
      finish(plan, std::move(r), outside_now);
      if (stopped) return;
    }
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    // Its plan, if it had one, is the explorer's to run.
    if (running) {
      auto it = find(plan);
      if (it != entries_.end() && !it->done) entries_.erase(it);
    }
    if (!quit_) turn_off(fmt::format("helper {} failed: {}", k + 1, e.what()));
  }
}

}  // namespace ctrl

#include "exploration/Explorer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "FairYields.h"
#include "ModelAnalysis.h"
#include "ProbingStrategy.h"
#include "cli/ExitStatus.h"
#include "exploration/HelperSession.h"
#include "exploration/ModelBugs.h"
#include "exploration/ProgressLine.h"
#include "exploration/Shrinker.h"
#include "exploration/TsoSafety.h"
#include "reports/TraceFile.h"
#include "reports/Verdict.h"
#include "session/BackgroundMonitor.h"

namespace ctrl {

proto::Trace make_trace(const proto::Trace& trace_template, const ExecutionResult& result) {
  proto::Trace t = trace_template;
  t.set_format_version(kTraceFormatVersion);
  t.set_ctrl_version(CTRL_VERSION);
  t.set_execution(result.execution);
  auto* bug = t.mutable_bug();
  bug->set_kind(std::string(result.kind_name()));
  bug->set_message(result.message);
  bug->set_thread(result.thread);
  bug->set_site(result.site);
  for (const auto& e : result.events) {
    t.add_decisions(e.thread);
    auto* s = t.add_signatures();
    s->set_thread(e.thread);
    s->set_kind(e.kind);
    s->set_site(e.site);
    s->set_addr(e.addr);
    s->set_flags(e.flags);
    s->set_size(e.size);
  }
  set_trace_choices(t, result.choices);
  return t;
}

uint64_t count_handoffs(const std::vector<shm::Event>& events, size_t from) {
  uint64_t n = 0;
  uint32_t running = UINT32_MAX;
  for (size_t k = from; k < events.size(); ++k) {
    uint32_t t = events[k].thread;
    if (t >= shm::kFlushActorBase) continue;  // a flush: the deciding thread did it
    n += running != UINT32_MAX && t != running;
    running = t;
  }
  return n;
}

TraceDir::TraceDir(const std::string& path) : given_(path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::absolute(path.empty() ? "." : path, ec);
  if (ec) throw UsageError(fmt::format("--trace-dir: cannot use {}: {}", path, ec.message()));
  path_ = dir.string();
  // Nothing is made yet (a run killed before its first bug leaves no empty
  // directory), but whether it can be is known now: the directory or its
  // nearest existing ancestor must take a new entry. access() is not
  // enough: root passes it on directories it cannot write (sysfs, an
  // immutable one), and those were found only after the exploration.
  fs::path base = dir;
  while (!fs::exists(base, ec) && base != base.parent_path()) base = base.parent_path();
  if (!fs::is_directory(base, ec))
    throw UsageError(fmt::format("--trace-dir: {} is not a directory", base == dir ? path : base.string()));
  std::string probe = (base / ".ctrl-probe-XXXXXX").string();
  if (!::mkdtemp(probe.data()))
    throw UsageError(
        fmt::format("--trace-dir: cannot write in {}: {}", base == dir ? path : base.string(), std::strerror(errno)));
  ::rmdir(probe.c_str());
}

void TraceDir::make() {
  if (made_) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  // Which directories are missing, so that only those get the owner-only
  // mode (an existing directory keeps the mode its owner gave it).
  std::vector<fs::path> missing;
  for (fs::path p = path_; !fs::exists(p, ec); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  fs::create_directories(path_, ec);
  if (ec) throw UsageError(fmt::format("--trace-dir: cannot create {}: {}", given_, ec.message()));
  for (const auto& p : missing) fs::permissions(p, fs::perms::owner_all, fs::perm_options::replace, ec);
  made_ = true;
}

Explorer::Explorer(Session& session, ExploreOptions options, proto::Trace trace_template)
    : session_(session),
      options_(std::move(options)),
      trace_dir_(options_.trace_dir),
      template_(std::move(trace_template)) {
  if (options_.races && !model_analysis(session_.config().model).plans_choices())
    races_ = std::make_unique<DataRaceCheck>(session_, options_.races_all);
}

void Explorer::mark_interrupted(ExplorationReport& report) {
  report.interrupted = true;
  report.stopped_by = session_.stop_reason();
}

bool Explorer::record_bug(ExplorationReport& report, ExecutionResult result) {
  for (auto& b : report.bugs) {
    if (b.result.kind == result.kind && b.result.site == result.site && b.result.message == result.message) {
      ++b.occurrences;
      return false;
    }
  }
  FoundBug found;
  found.preemptions = found.preemptions_found = count_preemptions(result.events);
  // Under c11/rc11 a schedule's Choices are tied to its steps: no shrinking.
  // A data race is the race check's verdict, which the shrinker's runs do not get.
  if (options_.shrink && !result.before_checkpoint && !bug_is_verdict(result.kind) &&
      !model_analysis(session_.config().model).plans_choices()) {
    // Said first: shrinking runs up to 64 more executions before the report.
    if (found.preemptions > 0) {
      fmt::print(stderr, "{}ctrl: bug found in execution {}; shrinking its interleaving ({} preemptions)\n",
                 options_.progress ? "\r\033[K" : "", result.execution + 1, found.preemptions);
      std::fflush(stderr);
    }
    ShrinkStats st = shrink(session_, result, 64, options_.prefix.size());
    found.preemptions = st.after;
    // The shrinker's executions ran from the start.
    if (checkpointed_) checkpointed_->forget();
  }
  std::string name =
      fmt::format("{}-{}-exec{}.ctrltrace", std::filesystem::path(template_.program().path()).filename().string(),
                  result.kind_name(), result.execution + 1);  // as the report numbers it
  std::string path = (std::filesystem::path(trace_dir_.path()) / name).string();
  trace_dir_.make();
  save_trace(path, make_trace(template_, result));
  found.result = std::move(result);
  found.trace_path = path;
  report.bugs.push_back(std::move(found));
  return true;
}

void Explorer::check_plan(const ExecutionPlan& plan, uint64_t index) const {
  const auto& fixed = options_.prefix;
  if (plan.prefix.size() < fixed.size() || !std::equal(fixed.begin(), fixed.end(), plan.prefix.begin()))
    throw InternalError(fmt::format("the plan of execution {} does not begin with the fixed prefix", index));
}

void Explorer::check_prefix(const ExecutionResult& r) const {
  const auto& expected = options_.prefix_signatures;
  if (expected.empty() || r.end == ExecutionResult::End::Interrupted) return;
  for (size_t k = 0; k < expected.size(); ++k) {
    if (k >= r.events.size())
      throw InternalError(fmt::format("execution {} ended at step {}, within the fixed prefix of {} steps", r.execution,
                                      k, expected.size()));
    const shm::Event& e = r.events[k];
    const shm::Signature& x = expected[k];
    if (e.thread != x.thread || e.kind != x.kind || e.site != x.site || e.addr != x.addr)
      throw InternalError(fmt::format("execution {} left the fixed prefix at step {}", r.execution, k));
  }
}

ExecutionResult Explorer::run_own(const ExecutionPlan& plan, uint64_t index) {
  // The agent checks the fixed prefix's steps as they run
  // (Header::checked_steps), the rest of the plan's prefix is new.
  ExecutionResult r = checkpointed_ ? checkpointed_->run(plan, index, options_.prefix_signatures)
                                    : session_.run(plan, index, options_.prefix_signatures);
  if (partition_) partition_->check_own(r, session_.region().header().files_changed.load() != 0);
  if (dpor_partition_) dpor_partition_->check_own(r, session_.region().header().files_changed.load() != 0);
  return r;
}

ExplorationReport Explorer::run() {
  using clock = std::chrono::steady_clock;
  auto started = clock::now();
  ExplorationReport report;
  report.max_steps = session_.config().max_steps;
  if (!options_.prefix_signatures.empty() && options_.prefix_signatures.size() != options_.prefix.size())
    throw InternalError(fmt::format("{} signatures for a fixed prefix of {} decisions",
                                    options_.prefix_signatures.size(), options_.prefix.size()));
  const shm::MemoryModel model = session_.config().model;
  auto strategy = options_.strategy_factory ? options_.strategy_factory()
                                            : make_strategy(options_.strategy, options_.seed, options_.preemption_bound,
                                                            options_.pct_depth, model);
  strategy->set_fixed_prefix(options_.prefix);
  // A long execution's analysis can take seconds: Ctrl-C and the time limit
  // cut it short.
  strategy->set_stop_check([this] { return session_.should_stop(); });
  report.strategy = strategy->name();
  report.preemption_bound = options_.preemption_bound;
  report.speculation.jobs = options_.jobs;
  // The session outlives the exploration (DebugSession): the time limit is
  // lifted again at the end.
  struct Deadline {
    Session* session = nullptr;
    ~Deadline() {
      if (session) session->set_deadline(clock::time_point::max());
    }
  } deadline;
  if (options_.time_limit > 0) {
    session_.set_deadline(
        started + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(options_.time_limit)));
    deadline.session = &session_;
  }
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - started).count(); };

  // The execution being accounted for is a probe: counted apart.
  bool probe = false;
  auto account_probe = [&](ExecutionResult& r) -> bool {  // true: stop exploring
    if (r.end == ExecutionResult::End::StepBound)
      ++report.probes.bounded;
    else if (r.end == ExecutionResult::End::Blocked)
      ++report.probes.blocked;
    else
      ++report.probes.complete;
    ++report.probes.total;
    ++report.total;
    if (r.end != ExecutionResult::End::Bug) return false;
    record_bug(report, std::move(r));
    return !options_.keep_going;
  };
  auto account = [&](ExecutionResult& r) -> bool {  // true: stop exploring
    if (probe && (r.end == ExecutionResult::End::StepBound || r.end == ExecutionResult::End::Blocked ||
                  r.end == ExecutionResult::End::Complete || r.end == ExecutionResult::End::Bug))
      return account_probe(r);
    switch (r.end) {
      case ExecutionResult::End::Interrupted:
        mark_interrupted(report);
        return true;
      case ExecutionResult::End::Unsupported:
        throw UsageError(r.message);
      case ExecutionResult::End::Paused:
        throw InternalError("an explored execution paused for stepping");
      case ExecutionResult::End::Diverged:
        throw InternalError(fmt::format("execution {} diverged from its own plan: {}", r.execution, r.message));
      case ExecutionResult::End::StepBound:
        ++report.bounded;
        ++report.total;
        // --visible auto: the caller explores again with less visible
        // (Cli.cpp), unless a bug is already there to report.
        if (options_.stop_at_cut && report.bugs.empty()) return report.stopped_at_cut = true;
        return false;
      case ExecutionResult::End::Blocked:
        if (r.message == kFairBlocked) ++report.fairness_blocked;
        ++report.blocked;
        ++report.total;
        return false;
      case ExecutionResult::End::Complete:
        ++report.complete;
        ++report.total;
        return false;
      case ExecutionResult::End::Bug:
        ++report.complete;
        ++report.total;
        record_bug(report, std::move(r));
        return !options_.keep_going;
    }
    return false;
  };

  // After strategy->completed(r): an execution that is not consistent under
  // the memory model (c11/rc11) is only counted; else as account().
  // A consistent execution equal to one seen before (redundant) counts as
  // blocked; the model's own bugs (data races, uninitialised loads) become
  // the execution's bug when it has none of its own.
  uint64_t redundant_seen = 0;
  auto settle = [&](ExecutionResult& r) -> bool {  // true: stop exploring
    bool ordinary = r.end == ExecutionResult::End::Bug || r.end == ExecutionResult::End::Complete ||
                    r.end == ExecutionResult::End::StepBound || r.end == ExecutionResult::End::Blocked;
    if (!ordinary) return account(r);
    if (!strategy->last_feasible()) {
      ++report.infeasible;
      ++report.total;
      return false;
    }
    if (auto counts = strategy->model_counts(); counts && counts->redundant > redundant_seen) {
      redundant_seen = counts->redundant;
      ++report.blocked;
      ++report.total;
      return false;
    }
    ModelBugMonitor([&](const ExecutionResult&) { return strategy->last_model_bugs(); }, session_.symbolizer(),
                    [&](uint64_t a) { return session_.initialised_unseen(a); })
        .check(r);
    // Stopped (Ctrl-C, SIGTERM, the time limit): a long execution's race
    // check would take seconds; the search is reported as interrupted, so
    // the execution counts as not race-checked.
    if (races_ && !session_.should_stop()) {
      races_->check(r);
      report.races = races_->summary();
    }
    return account(r);
  };

  if (auto early = options_.session_started ? std::nullopt : session_.start()) {
    // The program never created a thread: its one execution is all there
    // is, and there was nothing to interleave, so nothing is exhaustive
    // (Verdict.h).
    report.no_thread = early->end != ExecutionResult::End::Interrupted;
    report.no_thread_status = early->exit_status;
    account(*early);
    report.elapsed = elapsed();
    return report;
  }

  // Live checkpoints match plans by their threads only, not their Choices
  // (c11/rc11): not used there.
  if (options_.checkpoints && !model_analysis(model).plans_choices())
    checkpointed_ = std::make_unique<CheckpointedSearch>(session_, options_.checkpoint_min_steps);

  // --monitor sober: each execution is checked while the next one runs.
  std::optional<BackgroundMonitor> monitor;
  if (options_.sober) monitor.emplace();
  ExecutionResult monitored;           // the execution being checked (already counted)
  auto take_verdict = [&]() -> bool {  // true: stop exploring
    if (!monitor || !monitor->busy()) return false;
    std::optional<Borderline> b;
    if (!monitor->wait(b, [&] { return session_.should_stop(); })) {
      // Stopped while the check ran: that execution is counted, its check is
      // not done.
      mark_interrupted(report);
      return true;
    }
    if (!b) return false;
    TsoSafetyMonitor sober(session_.symbolizer());
    sober.adopt(monitored, explain_borderline(monitored, *b, session_.symbolizer()));
    record_bug(report, std::move(monitored));
    return !options_.keep_going;
  };

  // -j N: the partition starts after a first execution that left files and
  // descriptors alone, which every helper session must repeat.
  std::optional<std::pair<ExecutionPlan, ExecutionResult>> first;
  bool may_speculate = options_.jobs > 1 || options_.remote;
  // The other ranks (--mpi) stop before the partition they serve goes,
  // whatever ends the exploration.
  struct EndRemote {
    RemoteWorkers* remote = nullptr;
    ~EndRemote() {
      SpeculationStats ignored;
      if (remote) remote->end(ignored);
    }
  } end_remote;
  // A seeded strategy's plans are partitioned instead (PartitionedSampling.h):
  // ranges of plan numbers, each run by one session; the strategy is then
  // asked and taught under the partition's lock.
  const bool seeded = may_speculate && strategy->plan_at(0).has_value();
  // Source-DPOR, alone or with the default's probes, is partitioned into
  // work items (PartitionedDpor.h): each session explores its own with its
  // own strategy; the explorer accounts for every execution as it finishes.
  // (--model ra's weak-trace search is also named "dpor": not this one.)
  auto* probing = dynamic_cast<ProbingStrategy*>(strategy.get());
  const Strategy& searched = probing ? probing->systematic() : *strategy;
  const bool dpor_partitioned = may_speculate && !seeded && dynamic_cast<const DporStrategy*>(&searched) &&
                                searched.name() == "dpor" && !options_.sober &&
                                !model_analysis(model).plans_choices() && !options_.strategy_factory;
  // The other strategies run on the explorer's session alone.
  if (options_.jobs > 1 && !seeded && !dpor_partitioned)
    report.speculation.off = fmt::format("--strategy {} is not partitioned", strategy->name());
  auto strategy_lock = [&] {
    return partition_ ? std::unique_lock<std::mutex>(partition_->strategy_mutex()) : std::unique_lock<std::mutex>();
  };

  // --resume: the plans before the saved frontier are counted already.
  uint64_t start = 0;
  if (options_.resume) {
    const proto::SavedExploration& saved = *options_.resume;
    if (!strategy->restore_state(saved.next_plan(), {saved.strategy_state().begin(), saved.strategy_state().end()}))
      throw UsageError(fmt::format("--resume: --strategy {} cannot go on from a saved frontier", strategy->name()));
    start = saved.next_plan();
    report.complete = saved.complete();
    report.blocked = saved.blocked();
    report.bounded = saved.bounded();
    report.total = saved.total();
    report.steps = saved.steps();
    report.handoffs = saved.handoffs();
    report.fairness_blocked = saved.fairness_blocked();
    if (races_) {
      races_->resume_count(saved.races_checked());
      report.races = races_->summary();
    }
  }
  // Executions are numbered on from the session's earlier ones.
  uint64_t ran = start, index = options_.first_execution + start;
  // --state: the frontier as it is between two executions.
  auto snapshot = [&](const std::string& ended) {
    if (!options_.state) return;
    proto::SavedExploration s;
    s.set_next_plan(ran);
    s.set_complete(report.complete);
    s.set_blocked(report.blocked);
    s.set_bounded(report.bounded);
    s.set_total(report.total);
    s.set_steps(report.steps);
    s.set_handoffs(report.handoffs);
    s.set_fairness_blocked(report.fairness_blocked);
    if (races_) s.set_races_checked(races_->summary().executions);
    {
      auto guard = strategy_lock();
      for (uint64_t v : strategy->saved_state()) s.add_strategy_state(v);
    }
    s.set_ended(ended);
    s.set_visible(options_.visible_used);
    s.set_shared(std::string(reinterpret_cast<const char*>(session_.config().shared.data()),
                             session_.config().shared.size() * sizeof(shm::Header::Range)));
    s.set_elapsed(elapsed());
    options_.state->save(std::move(s));
  };
  double last_progress = 0;
  while (ran < options_.max_executions) {
    std::optional<ExecutionPlan> plan;
    std::optional<ExecutionResult> taken;
    if (dpor_partitioned && first && !dpor_partition_) {
      auto deadline = options_.time_limit > 0 ? started + std::chrono::duration_cast<clock::duration>(
                                                              std::chrono::duration<double>(options_.time_limit))
                                              : clock::time_point::max();
      SessionConfig helpers = session_.config();
      helpers.runner_cpu = session_.runner_cpu();  // the helpers take the CPUs after it
      // --mpi: the other ranks' sessions are remote workers of the partition.
      std::optional<std::pair<ExecutionPlan, ExecutionResult>> for_remote;
      if (options_.remote) for_remote = first;
      dpor_partition_ = std::make_unique<PartitionedDpor>(
          helpers, options_.jobs - 1, deadline, options_.prefix_signatures, std::move(first->first),
          std::move(first->second),
          [this, model] {
            auto s = std::make_unique<DporStrategy>(false, model_analysis(model));
            s->set_stop_check([this] { return session_.should_stop(); });
            return s;
          },
          options_.prefix, probing ? probing->release_probes() : nullptr,
          options_.remote ? options_.remote->sessions() : 0);
      first.reset();
      if (for_remote) {
        options_.remote->begin_dpor(*dpor_partition_, helpers, options_.prefix_signatures, for_remote->first,
                                    for_remote->second);
        end_remote.remote = options_.remote;
      }
    }
    if (dpor_partition_) {
      if (auto f = dpor_partition_->take([&](const ExecutionPlan& p) { return run_own(p, index); })) {
        plan = std::move(f->plan);
        taken = std::move(f->result);
      } else {
        report.exhaustive_fair = dpor_partition_->exhausted() && report.bounded == 0;
        report.exhaustive =
            report.exhaustive_fair && dpor_partition_->fairness_cuts() == 0 && report.fairness_blocked == 0;
        break;
      }
    } else {
      auto guard = strategy_lock();
      plan = strategy->next();
    }
    if (!plan) {
      // An execution cut by --max-steps left the rest of its schedules
      // unexplored (a livelock, or a bound too small for the program).
      report.exhaustive_fair = strategy->exhaustive() && report.bounded == 0;
      report.exhaustive = report.exhaustive_fair && strategy->fairness_cuts() == 0 && report.fairness_blocked == 0;
      break;
    }
    check_plan(*plan, index);
    probe = plan->probe;
    // The agent checks the fixed prefix's steps as they run
    // (Header::checked_steps), the rest of the plan's prefix is new.
    uint64_t saved_before = checkpointed_ ? checkpointed_->stats().steps_saved : 0;
    if (seeded && first && !partition_) {
      auto deadline = options_.time_limit > 0 ? started + std::chrono::duration_cast<clock::duration>(
                                                              std::chrono::duration<double>(options_.time_limit))
                                              : clock::time_point::max();
      SessionConfig helpers = session_.config();
      helpers.runner_cpu = session_.runner_cpu();  // the helpers take the CPUs after it
      PartitionedSampling::Limits limits;
      limits.limit = options_.max_executions;
      // Small enough that a bug or the limit wastes little, large enough
      // that claiming costs nothing beside the executions.
      limits.remote_sessions = options_.remote ? options_.remote->sessions() : 0;
      limits.chunk = std::clamp<uint64_t>(
          options_.max_executions / (16 * (uint64_t(options_.jobs) + limits.remote_sessions)), 1, 32);
      limits.index_base = options_.first_execution;
      limits.first = start + 1;
      limits.keep_going = options_.keep_going;
      std::optional<std::pair<ExecutionPlan, ExecutionResult>> for_remote;
      if (options_.remote) for_remote = first;
      partition_ = std::make_unique<PartitionedSampling>(
          helpers, options_.jobs - 1, deadline, options_.prefix_signatures, std::move(first->first),
          std::move(first->second), [s = strategy.get()](uint64_t m) { return s->plan_at(m); }, limits);
      first.reset();
      if (for_remote) {
        options_.remote->begin(*partition_, helpers, options_.prefix_signatures, for_remote->first, for_remote->second);
        end_remote.remote = options_.remote;
      }
    }
    if (partition_)
      taken = partition_->take(ran, *plan, [&](const ExecutionPlan& p, uint64_t i) { return run_own(p, i); });
    ExecutionResult r = taken ? std::move(*taken) : run_own(*plan, index);
    r.execution = index;
    r.choices = plan->choices;
    if (may_speculate && ran == start) {
      // The helpers' sessions must repeat this first execution exactly.
      if (r.end == ExecutionResult::End::Complete || r.end == ExecutionResult::End::Blocked ||
          r.end == ExecutionResult::End::StepBound) {
        if (!touches_outside(r, session_.region().header().files_changed.load() != 0))
          first.emplace(*plan, r);
        else if (report.speculation.off.empty())
          report.speculation.off = "the first execution changed a file or waited on a descriptor or a child process";
      } else if (report.speculation.off.empty() && r.end != ExecutionResult::End::Interrupted) {
        report.speculation.off = "the first execution found a bug or did not end";
      }
      may_speculate = first.has_value();
    }
    // The first bug in plan order ends the exploration: no session runs on
    // while it is shrunk.
    if (partition_ && r.end == ExecutionResult::End::Bug && !options_.keep_going) partition_->stop();
    if (dpor_partition_ && r.end == ExecutionResult::End::Bug && !options_.keep_going) dpor_partition_->stop();
    check_prefix(r);
    if (r.end == ExecutionResult::End::Interrupted) {
      // An execution stopped half-way teaches the strategy nothing, and its
      // analysis (a long execution's could take many seconds) would only
      // delay the stop.
      account(r);
      break;
    }
    // The steps a live checkpoint saved did not run again.
    size_t skipped = checkpointed_ ? size_t(checkpointed_->stats().steps_saved - saved_before) : 0;
    report.steps += r.events.size() - std::min(skipped, r.events.size());
    report.handoffs += count_handoffs(r.events, skipped);
    report.user_handoffs += r.user_handoffs;
    report.user_thread_starts += r.user_thread_starts;
    report.user_thread_ends += r.user_thread_ends;
    ExecutionSummary summary;
    summary.index = index;
    summary.events = r.events.data();
    summary.steps = r.events.size();
    summary.complete = r.end == ExecutionResult::End::Complete || r.end == ExecutionResult::End::Bug;
    summary.blocked = r.end == ExecutionResult::End::Blocked;
    summary.pending = r.pending.data();
    summary.npending = r.pending.size();
    // The strategy learns from the execution as it ran, before any shrinking.
    if (!dpor_partition_) {  // else the partition's strategies learnt from it
      auto guard = strategy_lock();
      strategy->completed(summary);
    }
    ++index;
    ++ran;
    if (session_.should_stop()) {
      // The analysis may have been cut short: the strategy is not asked for
      // another plan.
      settle(r);
      mark_interrupted(report);
      break;
    }
    size_t depth = r.events.size();
    // A sharing of own memory (agent/OwnMemory.h): accesses that were not
    // steps in this exploration touch memory another thread touched, so
    // its executions so far may have missed interleavings; the caller
    // explores again with the memory shared. The execution itself ran (a
    // bug in it is real) except under tso/pso, where a store to own memory
    // that was no step bypassed its thread's store buffer, which another
    // thread's read of it could observe.
    const bool sharing = session_.config().own_memory && (!r.discovered.empty() || r.discovered_more);
    if (sharing) {
      report.stopped_at_sharing = true;
      report.discovered.insert(report.discovered.end(), r.discovered.begin(), r.discovered.end());
      if (r.end == ExecutionResult::End::Bug && (model == shm::MemoryModel::TSO || model == shm::MemoryModel::PSO)) {
        r.end = ExecutionResult::End::Complete;
        r.kind = BugKind::None;
        r.facts = {};
      }
    }
    bool stop = take_verdict();
    if (!stop && monitor && r.end != ExecutionResult::End::Bug && r.end != ExecutionResult::End::Interrupted &&
        r.end != ExecutionResult::End::Diverged && r.end != ExecutionResult::End::Unsupported) {
      monitor->submit(r.events);
      monitored = r;
    }
    if (settle(r) || stop || sharing) break;
    if (options_.state && options_.state->due()) snapshot("");
    if (!options_.progress && options_.progress_every > 0 && elapsed() - last_progress >= options_.progress_every) {
      last_progress = elapsed();
      ProgressFacts f{ran,           report.complete,         report.blocked,      report.bugs.size(),
                      last_progress, options_.max_executions, options_.time_limit, strategy->completed_bound()};
      fmt::print(stderr, "{}\n", progress_line(f));
      std::fflush(stderr);
    }
    if (options_.progress) {
      // A live line on a terminal, refreshed a few times a second.
      double t = elapsed();
      if (t - last_progress >= 0.2) {
        last_progress = t;
        std::string sat;
        if (const auto* solver = strategy->solver_stats(); solver && !solver->rounds.empty()) {
          const auto& last = solver->rounds.back();
          sat = fmt::format(", goals {}/{}, formula {} vars {} clauses, solver {:.2f} s", solver->goals_covered,
                            solver->goals_known, last.vars, last.clauses, last.seconds);
        }
        fmt::print(stderr, "\r\033[K{} executions ({} complete, {} blocked), {:.0f}/s, depth {}, {:.1f} s{}", ran,
                   report.complete, report.blocked, ran / t, depth, t, sat);
      }
    }
  }
  if (!report.interrupted) take_verdict();
  report.max_executions = options_.max_executions;
  // Would the strategy have gone on? (Asked once more: a search that
  // finished with the last execution allowed is not stopped.)
  if (dpor_partition_ && ran >= options_.max_executions && !report.interrupted &&
      (options_.keep_going || report.bugs.empty())) {
    // Whatever is still running or open is left unexplored.
    if (!dpor_partition_->explored())
      report.stopped_at_max_executions = true;
    else
      report.exhaustive = report.bounded == 0;
  } else if (ran >= options_.max_executions && !report.interrupted && (options_.keep_going || report.bugs.empty())) {
    if (auto guard = strategy_lock(); strategy->next())
      report.stopped_at_max_executions = true;
    else
      report.exhaustive = strategy->exhaustive() && report.bounded == 0;
  }
  // The last snapshot: what is left, or why nothing is.
  if (!report.bugs.empty() && !options_.keep_going)
    snapshot("a bug was found");
  else if (report.exhaustive)
    snapshot("the search was exhaustive");
  else if (!report.interrupted || strategy->plan_at(0))
    snapshot("");
  // else a stop may have cut the analysis of the last execution short: a
  // systematic strategy's frontier is the last periodic snapshot's.

  if (options_.progress) fmt::print(stderr, "\r\033[K");
  report.preemption_bound_completed = strategy->completed_bound();
  report.fairness_cuts = dpor_partition_ ? dpor_partition_->fairness_cuts() : strategy->fairness_cuts();
  report.model_counts = strategy->model_counts();
  if (const auto* solver = strategy->solver_stats()) {
    report.solver = *solver;
    report.exhaustive_scope = "behaviour-complete: no execution of the seen histories reads a new value anywhere";
  }
  if (model == shm::MemoryModel::C11)
    report.exhaustive_scope = "every RC11-consistent execution, and the load buffering its promises reach";
  report.runners = session_.runner_stats();
  if (partition_) {
    report.speculation = partition_->stats();
    if (end_remote.remote) options_.remote->end(report.speculation);
    end_remote.remote = nullptr;
    partition_.reset();
  }
  if (dpor_partition_) {
    report.speculation = dpor_partition_->stats();
    if (end_remote.remote) options_.remote->end(report.speculation);
    end_remote.remote = nullptr;
    dpor_partition_.reset();
  }
  if (checkpointed_) {
    report.restored = checkpointed_->stats().restored;
    report.steps_saved = checkpointed_->stats().steps_saved;
    // The checkpoint processes go with the exploration.
    checkpointed_.reset();
  }
  // A run that checked nothing covered nothing (Verdict.h).
  if (unchecked(report) != Unchecked::None) report.exhaustive = report.exhaustive_fair = false;
  report.elapsed = elapsed();
  return report;
}

}  // namespace ctrl

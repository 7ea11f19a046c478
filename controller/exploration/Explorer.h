// Runs executions one after another as a strategy plans them, until the
// strategy is done, a bound is reached or a bug is found, and saves a trace
// for every bug.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Strategy.h"
#include "exploration/CheckpointedSearch.h"
#include "exploration/DataRaceCheck.h"
#include "exploration/PartitionedDpor.h"
#include "exploration/PartitionedSampling.h"
#include "parallel/ExplorationState.h"
#include "parallel/RemoteWorkers.h"
#include "session/ExecutionResult.h"
#include "session/Session.h"
#include "trace.pb.h"

namespace ctrl {

struct ExploreOptions {
  std::string strategy = "dpor";
  uint64_t seed = 1;
  uint64_t max_executions = 1000;
  double time_limit = 0;  // seconds, 0: none
  std::string trace_dir = "ctrl-traces";
  bool progress = false;  // live line on stderr
  // Not a terminal: a progress line (ProgressLine.h) every so many seconds
  // on stderr; 0: none.
  double progress_every = 0;
  bool keep_going = false;    // collect distinct bugs instead of stopping at the first
  bool shrink = true;         // look for a schedule with fewer preemptions before reporting
  int preemption_bound = -1;  // >= 0: iterative context bounding up to it
  uint32_t pct_depth = 3;     // --strategy pct: the bug depth d
  bool sober = false;         // --monitor sober: report SC executions TSO could break
  // Start each plan from the deepest live checkpoint on its path when that
  // pays (CheckpointedSearch.h); --no-checkpoints: always from the start.
  // Counts, verdicts and traces are the same either way.
  bool checkpoints = true;
  // Steps a restore must skip to be used (tests lower it to use checkpoints
  // on short programs).
  uint64_t checkpoint_min_steps = CheckpointedSearch::kMinStepsSaved;
  // -j: sessions that run executions at once (PartitionedSampling.h for
  // random, pos and pct, PartitionedDpor.h for dpor and the default
  // dpor+probes; the other strategies run on this session alone); 1: this
  // session alone. Counts, verdicts and bugs are the same for any value
  // (under DPOR the complete ones: PartitionedDpor.h).
  unsigned jobs = 1;
  // --mpi: the other ranks' sessions, which take part in the partition of a
  // seeded strategy (parallel/RemoteWorkers.h); null: this process alone.
  RemoteWorkers* remote = nullptr;
  // --state DIR (parallel/ExplorationState.h): snapshots of a seeded
  // exploration's frontier, every second and when it stops; null: none.
  // `visible_used`: the sites it runs under, saved with them.
  ExplorationState* state = nullptr;
  std::string visible_used;
  // --resume DIR: the exploration goes on from this snapshot (plans from
  // its next_plan on, its counts kept).
  std::optional<proto::SavedExploration> resume;
  // --races: under sc, tso and pso, each finished execution's first data
  // race is its bug (DataRaceCheck.h); c11/rc11 find theirs in the graph.
  bool races = true;
  bool races_all = false;  // --races all: heap and anonymous memory too
  // Tests: makes the strategy instead of make_strategy (a scripted one).
  std::function<std::unique_ptr<Strategy>()> strategy_factory;

  // ---- exploring from a step (DebugSession::explore) ----
  // Decisions every execution makes first (steps 0..k-1); the strategy plans
  // only what follows (Strategy::set_fixed_prefix): counts, `exhaustive` and
  // the bugs are those of the executions that begin with them, and a saved
  // trace holds the whole execution, prefix included, so that `ctrl replay`
  // reproduces it from the start.
  std::vector<uint32_t> prefix;
  // Empty, or one per prefix decision: what each prefix step must be (as in
  // a trace). An execution whose prefix steps differ is an internal error.
  std::vector<shm::Signature> prefix_signatures;
  // The session has already been started (it ran to its checkpoint, and
  // maybe executions since): run() does not start it again.
  bool session_started = false;
  // Index of the first execution (its number in traces and messages): a
  // session that already ran executions goes on from their count.
  uint64_t first_execution = 0;
  // --visible auto: stop at the first execution cut by --max-steps when no
  // bug was found (ExplorationReport::stopped_at_cut).
  bool stop_at_cut = false;
};

struct FoundBug {
  ExecutionResult result;
  std::string trace_path;
  uint32_t preemptions = 0;        // in the reported schedule
  uint32_t preemptions_found = 0;  // in the schedule as first found
  uint64_t occurrences = 1;        // executions that hit this bug (--keep-going)
};

struct ExplorationReport {
  std::string strategy;
  uint64_t complete = 0;  // executions that ran to their end (with or without a bug)
  uint64_t blocked = 0;   // executions a strategy abandoned (none for random/round-robin)
  uint64_t bounded = 0;   // executions cut by --max-steps
  uint64_t total = 0;
  // Probes (ExecutionPlan::probe, ProbingStrategy.h): sampled executions
  // run beside a systematic search, counted in `total` only, here, and
  // never in complete/blocked/bounded, which stay the search's own (its
  // classes; its cuts, which make it not exhaustive).
  struct Probes {
    uint64_t total = 0, complete = 0, blocked = 0, bounded = 0;
  } probes;
  // --model c11/rc11: executions the strategy found not consistent under the
  // model (Strategy::last_feasible): counted in `total` only, their outcome
  // (a bug included) is not reported; and what the strategy counted
  // (Strategy::model_counts).
  uint64_t infeasible = 0;
  std::optional<Strategy::ModelCounts> model_counts;
  // --strategy sat: the solver's rounds and goal coverage (Strategy::solver_stats).
  std::optional<Strategy::SolverStats> solver;
  bool exhaustive = false;  // every schedule ran, none cut by --max-steps or by fairness
  // Fair scheduling of yields (analyses/FairYields.h): every fair schedule
  // ran, none cut by --max-steps (exhaustive, or cut only by fairness);
  // the alternatives a systematic search did not try because the thread
  // had yielded and gave way; executions the agent ended as blocked because
  // only threads that gave way were awake (their unfair continuations).
  bool exhaustive_fair = false;
  // What an exhaustive search covered when that is less than every
  // execution of the model (c11: load buffering only as far as promises
  // reach); printed after "exhaustive: yes".
  std::string exhaustive_scope;
  uint64_t fairness_cuts = 0;
  uint64_t fairness_blocked = 0;
  bool interrupted = false;
  std::string stopped_by;  // when interrupted: "the time limit", "SIGINT" or "SIGTERM"
  // --max-executions ran out while the strategy still had plans (not a bug
  // that ended the run, not a stop from outside).
  bool stopped_at_max_executions = false;
  uint64_t max_executions = 0;  // as asked
  // The program ended before it created any thread (its one execution ran
  // natively: nothing to interleave, Verdict.h); with its exit status.
  bool no_thread = false;
  int no_thread_status = 0;
  // The files when ctrl ends (Session::files_left): "last-execution" (as
  // the last execution left them, or the program's one run), "checkpoint"
  // (put back as at the checkpoint: after a bug, or after an execution that
  // stopped half-way) or "start-up" (stopped before the program's first
  // thread: as its start-up left them); and why.
  std::string files_left_as = "last-execution";
  std::string files_why;
  uint64_t max_steps = 0;               // as asked (0: unknown)
  std::string visible;                  // --visible as asked ("": unknown)
  int preemption_bound = -1;            // as asked
  int preemption_bound_completed = -1;  // the largest bound fully explored
  double elapsed = 0;
  std::vector<FoundBug> bugs;
  // Checkpointed search: executions continued from a live checkpoint and
  // the steps they did not re-run.
  uint64_t restored = 0;
  uint64_t steps_saved = 0;
  // Over every execution counted in `total`, the steps it ran and its
  // hand-offs: the times the OS thread performing the next step changed
  // (consecutive steps of different threads; a store-buffer flush is done by
  // the thread that chose it, so it is not one). Steps a live checkpoint
  // saved are not counted: they did not run again. What a context switch
  // count per execution is measured against (issue 12, bench/anchors.sh).
  uint64_t steps = 0;
  uint64_t handoffs = 0;
  // Of those, the ones the agent made without the kernel (agent/Runtime.h,
  // user-level hand-offs); not kept across --resume.
  uint64_t user_handoffs = 0;
  // Of those, pool threads started, and ended, on another thread's kernel thread.
  uint64_t user_thread_starts = 0, user_thread_ends = 0;
  // --races under sc/tso/pso: what the race check did (DataRaceCheck.h).
  std::optional<DataRaceSummary> races;
  // Executions in place (agent/Rollback.h): how they got their process.
  RunnerStats runners;
  // -j N: executions run ahead of their plan and results taken from them.
  SpeculationStats speculation;
  // ExploreOptions::stop_at_cut stopped the exploration.
  bool stopped_at_cut = false;
  // Own memory (agent/OwnMemory.h): the exploration stopped after an
  // execution that found another thread touching a thread's own memory
  // outside the shared set; what it found (granule runs). The caller
  // explores again from the start with them shared (Cli.cpp).
  bool stopped_at_sharing = false;
  std::vector<shm::Header::Range> discovered;
  // Said on the summary line: how often the exploration started again
  // with a larger shared set, and the executions those earlier rounds ran
  // (not in the counts). Empty: nothing to say.
  std::string restarts_note;
  // What the exploration did not check although the user did not ask for
  // less (--visible auto fell back to atomics); said on the summary line.
  // Empty: nothing to say.
  std::string scope_note;
};

// The trace directory: checked before anything runs, so that one that
// cannot be made or written is refused at once (exit 2), and made (with its
// missing parents) only when the first trace is saved, so that no empty
// directory is left, even by a ctrl killed with SIGKILL.
class TraceDir {
 public:
  explicit TraceDir(const std::string& path);  // throws UsageError
  TraceDir(const TraceDir&) = delete;
  TraceDir& operator=(const TraceDir&) = delete;
  const std::string& path() const { return path_; }
  // Makes it (and its missing parents, owner-only) before the first trace
  // is saved. Throws UsageError.
  void make();

 private:
  std::string given_, path_;
  bool made_ = false;
};

class Explorer {
 public:
  // `trace_template` holds the program, options and environment of every
  // trace this exploration saves; the explorer fills in the rest. Makes the
  // trace directory.
  Explorer(Session& session, ExploreOptions options, proto::Trace trace_template);
  ExplorationReport run();

 private:
  // Stops the report as interrupted (Ctrl-C, SIGTERM or the time limit).
  void mark_interrupted(ExplorationReport& report);

  // False when it is a bug already reported (same kind and place).
  bool record_bug(ExplorationReport& report, ExecutionResult result);
  // Throws InternalError when `plan` does not begin with the fixed prefix.
  void check_plan(const ExecutionPlan& plan, uint64_t index) const;
  // Throws InternalError when execution `r` left the fixed prefix.
  void check_prefix(const ExecutionResult& r) const;

  Session& session_;
  ExploreOptions options_;
  // Runs `plan` on this session (from a live checkpoint when that pays).
  ExecutionResult run_own(const ExecutionPlan& plan, uint64_t index);

  std::unique_ptr<CheckpointedSearch> checkpointed_;  // with options_.checkpoints
  std::unique_ptr<DataRaceCheck> races_;              // with options_.races, under sc/tso/pso
  std::unique_ptr<PartitionedSampling> partition_;    // with options_.jobs > 1, for a seeded strategy
  std::unique_ptr<PartitionedDpor> dpor_partition_;   // and for source-DPOR (with probes or not)
  TraceDir trace_dir_;
  proto::Trace template_;
};

// Hand-offs among events[from..]: see ExplorationReport::handoffs.
uint64_t count_handoffs(const std::vector<shm::Event>& events, size_t from = 0);

// The trace of one execution: decisions and signatures from its events.
proto::Trace make_trace(const proto::Trace& trace_template, const ExecutionResult& result);

}  // namespace ctrl

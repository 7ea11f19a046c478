// The controller-side half of an exploration strategy. Between executions the
// controller asks the strategy for the next plan (a prefix of decisions the
// agent replays, then a tail policy the agent applies on its own), and shows
// it every finished execution. A new strategy is a new file here.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Bug.h"
#include "SharedRegion.h"

namespace ctrl {

struct ExecutionPlan {
  std::vector<uint32_t> prefix;  // thread chosen at steps 0..prefix.size()-1
  // Under --model c11/rc11: what decision k does besides choosing prefix[k]
  // (shm::Choice; at most prefix.size() entries, missing ones Default).
  std::vector<shm::Choice> choices;
  shm::TailPolicy policy = shm::TailPolicy::Sticky;
  uint64_t seed = 0;  // for TailPolicy::Random and Pct
  // TailPolicy::Pct: the depth and the steps of its priority-change points
  // (shm::Header::pct_depth, pct_change).
  uint32_t pct_depth = 0;
  std::vector<uint64_t> pct_change;
  // TailPolicy::Ask: the step at which the execution pauses even within the
  // prefix (shm::Header::pause_at).
  uint64_t pause_at = UINT64_MAX;
  // Take a live checkpoint before decision `checkpoint_at` (UINT64_MAX:
  // never); its slot is reported in shm::Header::checkpoint_result.
  uint64_t checkpoint_at = UINT64_MAX;
  // Sleep set from decision `sleep_from` on (see shm::Header::sleep_mask);
  // by default from the last prefix decision.
  uint64_t sleep_mask = 0;
  std::optional<uint64_t> sleep_from;
  // For each thread in sleep_mask, the step it would take (what wakes it).
  std::vector<std::pair<uint32_t, shm::SleeperAccess>> sleepers;
  // A sampled execution run beside a systematic search (ProbingStrategy.h):
  // counted apart from the search's executions, and never a reason to call
  // the search incomplete (its cut by --max-steps included). Not compared
  // by same_plan: it says how a result is counted, not what runs.
  bool probe = false;
  // Reads log their thread's state fingerprint (shm::Header::read_states).
  bool read_states = false;
};

// Everything an execution's agent is given by its plan, compared field by
// field: two plans that are the same run the same execution (partitioned
// exploration, PartitionedSampling.h, hands the result of one to the other).
inline bool same_plan(const ExecutionPlan& a, const ExecutionPlan& b) {
  if (a.prefix != b.prefix || a.policy != b.policy || a.seed != b.seed || a.pause_at != b.pause_at ||
      a.checkpoint_at != b.checkpoint_at || a.sleep_mask != b.sleep_mask || a.sleep_from != b.sleep_from ||
      a.pct_depth != b.pct_depth || a.pct_change != b.pct_change || a.sleepers.size() != b.sleepers.size() ||
      a.choices.size() != b.choices.size() || a.read_states != b.read_states)
    return false;
  if (!a.choices.empty() && std::memcmp(a.choices.data(), b.choices.data(), a.choices.size() * sizeof(shm::Choice)) != 0)
    return false;
  for (size_t k = 0; k < a.sleepers.size(); ++k)
    if (a.sleepers[k].first != b.sleepers[k].first ||
        std::memcmp(&a.sleepers[k].second, &b.sleepers[k].second, sizeof(shm::SleeperAccess)) != 0)
      return false;
  return true;
}

// What a strategy learns from one finished execution.
struct ExecutionSummary {
  uint64_t index = 0;
  const shm::Event* events = nullptr;  // valid only during the call
  uint64_t steps = 0;
  bool complete = false;  // ran to its end (bug or not), not cut by a bound
  bool blocked = false;   // abandoned: only sleeping threads could run
  // Ended by a process exit or cut: the operation each unfinished thread was
  // parked at (never run; shm::Header::pending). Valid only during the call.
  const shm::Event* pending = nullptr;
  uint64_t npending = 0;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  // The plan of the next execution, or nothing when the strategy is done.
  virtual std::optional<ExecutionPlan> next() = 0;
  // May return early when the stop check (below) says so; the strategy is
  // then not asked for another plan.
  virtual void completed(const ExecutionSummary&) {}
  // Seeded strategies (random, pos, pct), whose every plan is drawn from
  // (--seed, its number) and at most an estimate learnt from the executions
  // shown to completed(): the plan next() would return as its n-th (0: the
  // first next()) if no further execution taught it anything. Changes
  // nothing. Partitioned exploration (PartitionedSampling.h) runs ranges of
  // them on several sessions and keeps a result only for a plan equal to
  // the one next() gives in its turn. nullopt: the plans depend on the
  // executions before them (the systematic strategies).
  virtual std::optional<ExecutionPlan> plan_at(uint64_t /*n*/) const { return std::nullopt; }
  // --state/--resume (controller/parallel/ExplorationState.h), seeded
  // strategies: what they learnt from the executions shown to completed(),
  // as numbers, and the strategy put back as it was after `next` plans with
  // it. False: not resumable (the systematic strategies; their frontier is
  // not a plan number).
  virtual std::vector<uint64_t> saved_state() const { return {}; }
  virtual bool restore_state(uint64_t /*next*/, const std::vector<uint64_t>& /*state*/) { return false; }
  // Memory models with a consistency check (--model c11/rc11): false when the
  // execution last shown to completed() is not a consistent execution of the
  // model (a promise nobody kept, a cycle): its outcome, a bug included, is
  // then not reported, only counted.
  virtual bool last_feasible() const { return true; }
  // Bugs the memory model itself finds in the execution last shown to
  // completed(), beside the agent's outcome, as the Bug every layer reads
  // (protocol/Bug.h): a data race (facts.accesses: the two racing steps), or
  // a candidate uninitialized load (its one access read the location's
  // value from before any store of the execution: a bug only if
  // facts.address is not static data, which the controller decides).
  using ModelBug = Bug;
  virtual std::vector<ModelBug> last_model_bugs() const { return {}; }
  // What such an exploration ran: complete consistent executions (distinct
  // reads-from and modification orders), infeasible ones, and redundant
  // ones (consistent but equal to one already seen).
  struct ModelCounts {
    uint64_t consistent = 0, infeasible = 0, redundant = 0;
    // Plain accesses (instruction sites) to bytes some atomic operation
    // also touched, taken for inline atomics (C11Races.h): not race-checked.
    uint64_t inline_atomic = 0;
  };
  virtual std::optional<ModelCounts> model_counts() const { return std::nullopt; }
  // --strategy sat (SatStrategy.h): per question asked of the SAT solver,
  // the formula's size and the solver's time; the coverage of its goals (a
  // value a read could get at its place, covered once some execution read
  // it there); why the search stopped short, if it did.
  struct SolverRound {
    uint64_t vars = 0, clauses = 0, goals = 0;
    double seconds = 0;         // the whole round: encoding, solving, refinements
    double encode_seconds = 0;  // of which building the formula
    uint32_t refinements = 0;   // cycles forbidden (lazy transitivity)
    uint32_t between = 0;       // lazy "no writer in between" clauses a model broke
    bool sat = false;
  };
  struct SolverStats {
    std::vector<SolverRound> rounds;
    uint64_t goals_covered = 0, goals_known = 0;
    uint64_t deviations = 0;  // schedules cut where the run would leave the model's order
    std::string unsupported;
  };
  virtual const SolverStats* solver_stats() const { return nullptr; }
  // True when next() returned nothing because the whole space was covered.
  virtual bool exhaustive() const { return false; }
  // For bounded searches: the largest bound fully explored (-1: none, or no bound).
  virtual int completed_bound() const { return -1; }
  // Alternatives a systematic strategy did not explore because fair
  // scheduling of yields held their thread back (analyses/FairYields.h).
  // exhaustive() then means every fair schedule, not every schedule.
  virtual uint64_t fairness_cuts() const { return 0; }
  // Ctrl-C or the time limit: a long analysis polls this and gives up.
  void set_stop_check(std::function<bool()> check) { stop_check_ = std::move(check); }
  // Exploration from a fixed prefix (the debugger's `explore` from a step):
  // every execution makes these decisions at steps 0..k-1. Set before the
  // first next(). The strategy plans only what follows: every plan's prefix
  // begins with these decisions, no state before step k is ever branched
  // at (no backtrack point, no race reversal, no sleep set there), and
  // exhaustive() means every class of executions that begin with them.
  // Steps keep their indices in the whole execution (sleep_from, events).
  void set_fixed_prefix(std::vector<uint32_t> prefix) { fixed_ = std::move(prefix); }
  const std::vector<uint32_t>& fixed_prefix() const { return fixed_; }

 protected:
  // A plan that starts with the fixed prefix and plans nothing more.
  ExecutionPlan fixed_plan() const {
    ExecutionPlan plan;
    plan.prefix = fixed_;
    return plan;
  }
  uint64_t fixed_steps() const { return fixed_.size(); }
  // For a strategy made of others, to hand on to them.
  const std::function<bool()>& stop_check() const { return stop_check_; }

  // Cheap enough for every step: asks the check once every 4096 calls.
  bool stop_requested() {
    if (!stop_check_ || (++stop_polls_ & 4095) != 0) return false;
    return stop_check_();
  }
  // Asks the check now (for loops whose iterations take long).
  bool stop_requested_now() const { return stop_check_ && stop_check_(); }

 private:
  std::function<bool()> stop_check_;
  uint64_t stop_polls_ = 0;
  std::vector<uint32_t> fixed_;
};

// Throws std::invalid_argument for an unknown name.
// `preemption_bound` >= 0 replaces a systematic strategy by iterative
// context bounding up to that bound.
// `pct_depth` is pct's d (from 1 to shm::kMaxPctDepth).
// Under a C11-family `model` only "dpor" exists (the execution-graph
// exploration of GraphStrategy.h); other names throw std::invalid_argument.
std::unique_ptr<Strategy> make_strategy(const std::string& name, uint64_t seed, int preemption_bound = -1,
                                        uint32_t pct_depth = 3, shm::MemoryModel model = shm::MemoryModel::SC);

}  // namespace ctrl

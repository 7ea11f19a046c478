#include "reports/Report.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "binary/Backtracer.h"
#include "cli/ExitStatus.h"
#include "session/StopSignals.h"
#include "binary/PointerNames.h"
#include "binary/ProgramFrames.h"
#include "binary/Symbolizer.h"
#include "reports/BugJson.h"
#include "reports/CalledNames.h"
#include "reports/CauseMarks.h"
#include "reports/ThreadsAtBug.h"
#include "reports/Verdict.h"

namespace ctrl {

namespace {

std::string value_text(uint64_t v) { return v < 4096 ? std::to_string(v) : fmt::format("{:#x}", v); }

std::string thread_name(uint32_t t) { return t == UINT32_MAX ? "T?" : fmt::format("T{}", t); }

}  // namespace

std::string describe_operation(const shm::Event& e, Symbolizer& symbols) {
  auto kind = OpKind(e.kind);
  std::string what = called_name(kind);
  switch (kind) {
    case OpKind::AtomicLoad:
      what = fmt::format("atomic_load({}) {} -> {}", order_name(MemOrder(e.order)), symbols.describe_data(e.addr),
                         value_text(e.value_read));
      break;
    case OpKind::AtomicStore:
      what = fmt::format("atomic_store({}) {} <- {}", order_name(MemOrder(e.order)), symbols.describe_data(e.addr),
                         value_text(e.value_written));
      break;
    case OpKind::AtomicRmw:
      what = fmt::format("atomic_{}({}) {}: {} -> {}", rmw_name(RmwOp(e.rmw)), order_name(MemOrder(e.order)),
                         symbols.describe_data(e.addr), value_text(e.value_read), value_text(e.value_written));
      break;
    case OpKind::AtomicCas:
      what = fmt::format("atomic_cas({}) {}: read {}{}", order_name(MemOrder(e.order)), symbols.describe_data(e.addr),
                         value_text(e.value_read),
                         e.flags & shm::kFailed ? ", failed" : fmt::format(", wrote {}", value_text(e.value_written)));
      break;
    case OpKind::ThreadCreate:
      what = fmt::format("pthread_create -> T{}", e.aux);
      break;
    case OpKind::ThreadJoin:
      what = fmt::format("pthread_join T{}", e.aux);
      break;
    case OpKind::ThreadStart:
      what = "starts";
      break;
    case OpKind::CondWait:
    case OpKind::CondTimedWait:
      what = fmt::format("{} {} (releases {})", called_name(kind), symbols.describe_data(e.addr),
                         symbols.describe_data(e.aux));
      break;
    case OpKind::CondSignal:
      what = fmt::format("pthread_cond_signal {}{}", symbols.describe_data(e.addr),
                         e.aux < shm::kMaxThreads ? fmt::format(" (wakes T{})", e.aux) : " (no waiter)");
      break;
    case OpKind::ProcessExit:
      what = fmt::format("exit({})", int(e.value_written));
      break;
    case OpKind::Load:
      what = fmt::format("load{} {} ({} bytes) -> {}", e.flags & shm::kLocked ? " (locked)" : "",
                         symbols.describe_data(e.addr), e.size, value_text(e.value_read));
      break;
    case OpKind::Store:
      what = fmt::format("store {} ({} bytes) <- {}", symbols.describe_data(e.addr), e.size,
                         value_text(e.value_written));
      break;
    case OpKind::Rmw:
      what = fmt::format("{}rmw{} {} ({} bytes): {}{}", e.flags & shm::kLocked ? "locked " : "",
                         e.rmw ? fmt::format("({})", rmw_name(RmwOp(e.rmw))) : "", symbols.describe_data(e.addr),
                         e.size, value_text(e.value_read),
                         e.flags & shm::kFailed ? " (compare failed)" : fmt::format(" -> {}", value_text(e.value_written)));
      break;
    case OpKind::Fence:
      what = e.flags & shm::kInstruction ? "fence (instruction)" : fmt::format("fence({})", order_name(MemOrder(e.order)));
      break;
    case OpKind::Flush:
      what = fmt::format("store buffer flush: {} ({} bytes) <- {}", symbols.describe_data(e.addr), e.size,
                         value_text(e.value_written));
      break;
    case OpKind::ThreadExit:
    case OpKind::Yield:
      break;
    default:
      if (e.addr) what += " " + symbols.describe_data(e.addr);
      if (e.flags & shm::kTimedOut)
        what += " (timed out)";
      else if (e.flags & shm::kFailed)
        what += " (failed)";
  }
  if (e.flags & shm::kBuffered) what += " (buffered)";
  if (e.flags & shm::kForwarded) what += " (from its own buffer)";
  return what;
}

uint32_t event_thread(const shm::Event& e) { return OpKind(e.kind) == OpKind::Flush ? e.owner : e.thread; }

std::string describe_event(const shm::Event& e, Symbolizer& symbols) {
  std::string what = describe_operation(e, symbols);
  uint64_t code = event_code_address(e);
  std::string where = code ? symbols.describe_code(code) : "";
  // A flush is the step of the thread's store buffer.
  return fmt::format("{:<4} {}{}", thread_name(event_thread(e)), what, where.empty() ? "" : "   at " + where);
}

namespace {

// A long interleaving (a real program's execution runs to millions of
// steps) is shown by its shape (steps_to_show, CauseMarks.h): the steps that
// decided the bug, each change of the running thread, long runs of one
// thread folded. The trace holds every step.
void print_interleaving(std::FILE* out, const std::vector<shm::Event>& events, const CauseMarks& marks,
                        Symbolizer& symbols, const std::string& trace_path) {
  size_t n = events.size();
  std::vector<bool> shown = steps_to_show(events, marks);
  size_t hidden = 0, total_hidden = 0;
  uint32_t hidden_thread = UINT32_MAX;
  bool one_thread = true;
  auto gap = [&] {
    if (hidden)
      fmt::print(out, "         ... {} step{}{}\n", hidden, hidden == 1 ? "" : "s",
                 one_thread ? fmt::format(" of {}", thread_name(hidden_thread)) : "");
    total_hidden += hidden;
    hidden = 0;
    one_thread = true;
    hidden_thread = UINT32_MAX;
  };
  for (size_t i = 0; i < n; ++i) {
    if (!shown[i]) {
      if (hidden_thread != UINT32_MAX && events[i].thread != hidden_thread) one_thread = false;
      hidden_thread = events[i].thread;
      ++hidden;
      continue;
    }
    gap();
    bool marked = marks.preempts(i) || marks.decides(i);
    fmt::print(out, "{} {:>5}  {}{}\n", marked ? ">" : " ", events[i].step + 1, describe_event(events[i], symbols),
               step_note(events, marks, i));
  }
  gap();
  if (total_hidden)
    fmt::print(out, "  ({} of {} steps shown: the first, the deciding ones, each change of thread, and the last; {} steps through all)\n",
               n - total_hidden, n,
               trace_path.empty() ? std::string("stepping") : fmt::format("`ctrl replay --interactive {}`", trace_path));
}

}  // namespace

void print_bug(std::FILE* out, const FoundBug& bug, int number, Symbolizer& symbols) {
  const ExecutionResult& r = bug.result;
  fmt::print(out, "\n== bug {}: {} (execution {}{}) ==\n", number, r.kind_name(), r.execution + 1,
             r.before_checkpoint ? ", before the program created any thread" : "");
  fmt::print(out, "{}\n", r.message);
  if (auto place = bug_place(r, symbols))
    fmt::print(out, "  in {} at {}\n", thread_name(r.thread), symbols.describe_code(*place));
  if (bug.occurrences > 1) fmt::print(out, "  (hit in {} executions)\n", bug.occurrences);
  if (!r.events.empty()) {
    fmt::print(out, "\ninterleaving ({} steps, {} preemption{}{}):\n", r.events.size(), bug.preemptions,
               bug.preemptions == 1 ? "" : "s",
               bug.preemptions < bug.preemptions_found
                   ? fmt::format("; shrunk from {} in the execution that found it", bug.preemptions_found)
                   : "");
    learn_pointer_names(r.events, symbols);
    CauseMarks marks = find_cause(r.events, r.blocked);
    print_interleaving(out, r.events, marks, symbols, bug.trace_path);
    fmt::print(out, "{}", cause_text(r.events, marks, symbols));
  }
  if (!r.backtraces.empty()) {
    fmt::print(out, "\nthreads at the bug:\n");
    for (const auto& bt : r.backtraces) {
      if (!listed_at_bug(bt)) continue;
      fmt::print(out, "  {} (tid {}): {}\n", thread_name(bt.thread), bt.tid, bt.state);
      if (!frames_shown_at_bug(bt)) continue;
      auto ip_of = [&](size_t i) { return bt.frames[i] & ~Backtracer::kExactIp; };
      auto in_agent = [&](size_t i) { return symbols.in_module(ip_of(i), "libctrl-agent"); };
      size_t first = first_program_frame(bt.frames, symbols);
      int shown = 0;
      for (size_t i = first; i < bt.frames.size(); ++i) {
        if (in_agent(i)) continue;
        fmt::print(out, "      #{:<2} {}\n", shown++, symbols.describe_code(frame_address(bt, i)));
      }
    }
  }
  if (bug.trace_path.empty())
    fmt::print(out, "\nnot saved yet: `save FILE` writes this schedule as a trace\n");
  else
    fmt::print(out, "\ntrace saved to {}\n  replay it with: ctrl replay {}\n", bug.trace_path, bug.trace_path);
}

void print_summary(std::FILE* out, const ExplorationReport& report) {
  std::string why = report.interrupted ? fmt::format(" (interrupted by {})", report.stopped_by) : "";
  // Nothing to claim (Verdict.h): why, and what to try, never "exhaustive".
  if (std::string unchecked = unchecked_summary(report); !unchecked.empty()) {
    fmt::print(out, "\n{}\n", unchecked);
    return;
  }
  if (report.no_thread) {
    // A bug before the program created any thread.
    fmt::print(out, "\n1 execution, {} bug{} (the program created no thread: nothing to interleave), {:.2f} s{}\n",
               report.bugs.size(), report.bugs.size() == 1 ? "" : "s", report.elapsed, why);
    return;
  }
  std::string bound;
  if (report.preemption_bound >= 0)
    bound = report.preemption_bound_completed >= 0
                ? fmt::format(" (every schedule with at most {} preemption{} ran)", report.preemption_bound_completed,
                              report.preemption_bound_completed == 1 ? "" : "s")
                : " (no preemption bound completed)";
  // A systematic search that stopped at a limit says which, and what can
  // go further on a program too large for it (issue 13).
  bool systematic = report.strategy.rfind("dpor", 0) == 0;
  if (systematic && report.stopped_at_max_executions)
    bound += fmt::format(" (stopped at --max-executions {})", report.max_executions);
  // --strategy sat that stopped at an operation it cannot encode says so
  // where the verdict is read, not only in its stderr line: on a real
  // program that is often after the first execution.
  if (const auto& solver = report.solver; solver && !solver->unsupported.empty() && !report.exhaustive)
    bound += fmt::format(" (sat stopped at {})", solver->unsupported);
  // Fair scheduling of yields: what it held back is said, and a search that
  // covered every fair schedule only is not called exhaustive.
  uint64_t held = report.fairness_cuts + report.fairness_blocked;
  std::string fairness;
  if (held)
    fairness = fmt::format(" ({}{} alternative{} held back by fair yields)",
                           report.exhaustive_fair ? "every fair schedule ran; " : "", held, held == 1 ? "" : "s");
  // c11/rc11: the execution graphs the strategy counted, or at least the
  // executions that were not consistent (their outcomes are not reported).
  if (report.exhaustive && !report.exhaustive_scope.empty()) fairness += " (" + report.exhaustive_scope + ")";
  std::string model;
  if (const auto& m = report.model_counts)
    model = fmt::format("; {} consistent, {} infeasible, {} redundant", m->consistent, m->infeasible, m->redundant);
  else if (report.infeasible)
    model = fmt::format(", {} infeasible", report.infeasible);
  // Probes (ProbingStrategy.h) apart: the counts before them are the
  // systematic search's.
  std::string probes;
  if (const auto& p = report.probes; p.total)
    probes = fmt::format("; {} probe{} by pos and pct{}", p.total, p.total == 1 ? "" : "s",
                         p.bounded ? fmt::format(", {} of them cut", p.bounded) : "");
  // What was left unchecked is said on the verdict line itself.
  if (!report.scope_note.empty()) why = "; " + report.scope_note + why;
  if (!report.restarts_note.empty()) why = "; " + report.restarts_note + why;
  fmt::print(out, "\n{} executions ({} complete, {} blocked{}{}{}), {} bug{}, exhaustive: {}{}{}, {:.2f} s{}\n",
             report.total, report.complete, report.blocked,
             report.bounded ? fmt::format(", {} cut by --max-steps", report.bounded) : "", model, probes,
             report.bugs.size(), report.bugs.size() == 1 ? "" : "s", report.exhaustive ? "yes" : "no", fairness, bound,
             report.elapsed, why);
  // On stderr: stdout ends with the summary line (scripts read it there).
  // What the race check (--races, DataRaceCheck.h) did.
  if (const auto& races = report.races) {
    if (!races->unchecked.empty())
      fmt::print(stderr, "ctrl: data races not checked: {}\n", races->unchecked);
    else if (races->executions)
      fmt::print(stderr, "ctrl: data races checked in {} execution{} ({}); treated as atomic: {}{}{}\n",
                 races->executions, races->executions == 1 ? "" : "s",
                 races->heap ? "every address" : "static data only: --races all checks the heap too",
                 races->treated.empty() ? "nothing" : fmt::format("{}", fmt::join(races->treated, ", ")),
                 races->treated_more ? fmt::format(" and {} more", races->treated_more) : "",
                 races->debug_info ? "" : " (no debug information: only bytes atomic events touched)");
  }
  bool at_limit = report.stopped_at_max_executions || report.bounded > 0 ||
                  (report.interrupted && report.stopped_by == "the time limit");
  if (systematic && !report.exhaustive && at_limit && report.bugs.empty())
    fmt::print(stderr,
               "ctrl: DPOR did not cover every schedule within the limits; on a program this large, --strategy pos "
               "(partial order sampling) or --strategy pct samples schedules: every other pct execution finds a bug "
               "of depth d among n threads in k steps with probability at least 1/(n k^(d-1)){}\n",
               report.probes.total ? fmt::format("; the default ran {} such executions beside DPOR, one of them alone "
                                                 "runs only those",
                                                 report.probes.total)
                                   : "");
  if (report.restored)
    fmt::print(stderr, "ctrl: {} executions started from a live checkpoint ({} steps not re-run)\n", report.restored,
               report.steps_saved);
  const RunnerStats& r = report.runners;
  if (r.rolled_back || !r.refusals.empty()) {
    std::string why;
    for (const auto& [reason, n] : r.refusals) why += fmt::format("{}{} ({})", why.empty() ? "" : "; ", reason, n);
    fmt::print(stderr, "ctrl: {} executions rolled back in place, {} process{} forked for executions{}{}\n",
               r.rolled_back, r.runners, r.runners == 1 ? "" : "es", why.empty() ? "" : "; not rolled back: ", why);
  }
  if (report.model_counts && report.model_counts->inline_atomic)
    fmt::print(stderr,
               "ctrl: {} plain accesses (instruction sites) touched bytes that atomic operations also touch: taken "
               "for inline atomics (relaxed loads and stores compile to plain movs), so not race-checked and their "
               "reads not explored\n",
               report.model_counts->inline_atomic);
  if (const auto& solver = report.solver) {
    double seconds = 0;
    uint64_t vars = 0, clauses = 0;
    for (const auto& r : solver->rounds) {
      seconds += r.seconds;
      vars = std::max(vars, r.vars);
      clauses = std::max(clauses, r.clauses);
    }
    fmt::print(stderr,
               "ctrl: sat: goals covered {}/{}, {} solver round{} in {:.2f} s, largest formula {} vars {} "
               "clauses{}{}\n",
               solver->goals_covered, solver->goals_known, solver->rounds.size(), solver->rounds.size() == 1 ? "" : "s",
               seconds, vars, clauses,
               solver->deviations ? fmt::format(", {} schedules cut at a deviation", solver->deviations) : "",
               solver->unsupported.empty() ? "" : fmt::format("; stopped: {}", solver->unsupported));
  }
  const SpeculationStats& sp = report.speculation;
  if (sp.jobs > 1 && sp.mode == "seed-ranges") {
    // Partitioned (PartitionedSampling.h): what each session ran and how
    // much of its time it waited for work.
    std::string sessions;
    for (size_t k = 0; k < sp.workers.size(); ++k)
      sessions += fmt::format("{}{} ({:.0f}% idle)", k ? ", " : "", sp.workers[k].executions,
                              100 * sp.workers[k].idle_fraction);
    fmt::print(stderr,
               "ctrl: -j {}: seed ranges: {} of {} executions taken from other turns, {} ranges, {} run again{}; "
               "per session: {}\n",
               sp.jobs, sp.taken, report.total, sp.ranges, sp.replanned,
               sp.off.empty() ? "" : fmt::format(" (partition stopped: {})", sp.off), sessions);
    if (!sp.ranks.empty()) {
      // --mpi: each rank's sessions (RemoteRanks.h).
      std::string ranks;
      for (size_t k = 0; k < sp.ranks.size(); ++k)
        ranks += fmt::format("{}{} ({} sessions, {:.0f}% idle, {} steals)", k ? ", " : "", sp.ranks[k].executions,
                             sp.ranks[k].sessions, 100 * sp.ranks[k].idle_fraction, sp.ranks[k].steals);
      fmt::print(stderr, "ctrl: --mpi: {} ranks; per rank: {}\n", sp.ranks.size(), ranks);
    }
  } else if (sp.jobs > 1 && sp.mode == "dpor-partition") {
    // Partitioned DPOR (PartitionedDpor.h): items stolen, per session.
    std::string sessions;
    for (size_t k = 0; k < sp.workers.size(); ++k)
      sessions += fmt::format("{}{} ({:.0f}% idle)", k ? ", " : "", sp.workers[k].executions,
                              100 * sp.workers[k].idle_fraction);
    fmt::print(stderr, "ctrl: -j {}: partitioned DPOR: {} work items, {} stolen{}; per session: {}\n", sp.jobs,
               sp.ranges, sp.steals, sp.off.empty() ? "" : fmt::format(" (helpers stopped: {})", sp.off), sessions);
  } else if (sp.jobs > 1) {
    // Not partitioned (a strategy -j does not split, or a first execution
    // no other session may repeat): the explorer's session ran everything.
    fmt::print(stderr, "ctrl: -j {}: one session ran every execution: {}\n", sp.jobs,
               sp.off.empty() ? "not partitioned" : sp.off);
  }
}

namespace {

// Per session of a partitioned run: executions run, fraction of time idle.
nlohmann::json parallel_workers_json(const SpeculationStats& sp) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& w : sp.workers) out.push_back({{"executions", w.executions}, {"idle_fraction", w.idle_fraction}});
  return out;
}

// --mpi: per rank (rank 0 first), null without MPI.
nlohmann::json parallel_ranks_json(const SpeculationStats& sp) {
  if (sp.ranks.empty()) return nullptr;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : sp.ranks)
    out.push_back({{"sessions", r.sessions},
                   {"executions", r.executions},
                   {"idle_fraction", r.idle_fraction},
                   {"steals", r.steals},
                   {"yielded", r.yielded}});
  return out;
}

nlohmann::json solver_json(const std::optional<Strategy::SolverStats>& solver) {
  if (!solver) return nullptr;
  nlohmann::json rounds = nlohmann::json::array();
  for (const auto& r : solver->rounds)
    rounds.push_back({{"vars", r.vars},
                      {"clauses", r.clauses},
                      {"goals", r.goals},
                      {"seconds", r.seconds},
                      {"encode_seconds", r.encode_seconds},
                      {"refinements", r.refinements},
                      {"between", r.between},
                      {"sat", r.sat}});
  return {{"goals_covered", solver->goals_covered},
          {"goals_known", solver->goals_known},
          {"deviations", solver->deviations},
          {"unsupported", solver->unsupported.empty() ? nlohmann::json(nullptr) : nlohmann::json(solver->unsupported)},
          {"rounds", rounds}};
}

}  // namespace

nlohmann::json report_json(const ExplorationReport& report, const std::string& program, const std::string& model) {
  nlohmann::json bugs = nlohmann::json::array();
  for (const auto& b : report.bugs) {
    bugs.push_back({{"kind", b.result.kind_name()},
                    {"message", b.result.message},
                    {"thread", b.result.thread},
                    {"execution", b.result.execution + 1},
                    {"trace", b.trace_path},
                    {"preemptions", b.preemptions},
                    {"occurrences", b.occurrences}});
  }
  return {
      {"program", program},
      {"model", model},
      {"strategy", report.strategy},
      {"executions",
       {{"complete", report.complete},
        {"blocked", report.blocked},
        {"cut_by_max_steps", report.bounded},
        {"infeasible", report.infeasible},
        // Sampled beside the systematic search (ProbingStrategy.h),
        // counted in total only: the counts above are the search's.
        {"probes",
         {{"total", report.probes.total},
          {"complete", report.probes.complete},
          {"blocked", report.probes.blocked},
          {"cut_by_max_steps", report.probes.bounded}}},
        {"total", report.total}}},
      // c11/rc11 (Strategy::model_counts): consistent execution graphs,
      // infeasible and redundant executions; null for the other models.
      {"model_counts", report.model_counts ? nlohmann::json{{"consistent", report.model_counts->consistent},
                                                            {"infeasible", report.model_counts->infeasible},
                                                            {"redundant", report.model_counts->redundant},
                                                            {"inline_atomic", report.model_counts->inline_atomic}}
                                           : nlohmann::json(nullptr)},
      // --strategy sat: per solver round the formula and the time; goal coverage.
      {"solver", solver_json(report.solver)},
      {"exhaustive", report.exhaustive},
      // c11: what "exhaustive" covers (empty: every execution of the model).
      {"exhaustive_scope", report.exhaustive_scope},
      // Fair scheduling of yields (analyses/FairYields.h): every fair
      // schedule ran; alternatives held back (race reversals not tried,
      // executions ended because only threads that gave way were awake).
      {"fairness",
       {{"exhaustive_fair", report.exhaustive_fair},
        {"cuts", report.fairness_cuts},
        {"blocked", report.fairness_blocked}}},
      {"elapsed_seconds", report.elapsed},
      {"checkpoint_restores", report.restored},
      {"parallel",
       {{"jobs", report.speculation.jobs},
        {"run_ahead", report.speculation.speculative},
        {"taken", report.speculation.taken},
        {"stopped", report.speculation.off.empty() ? nlohmann::json(nullptr) : nlohmann::json(report.speculation.off)},
        {"mode", report.speculation.mode.empty() ? nlohmann::json(nullptr) : nlohmann::json(report.speculation.mode)},
        {"ranges", report.speculation.ranges},
        {"replanned", report.speculation.replanned},
        {"steals", report.speculation.steals},
        {"workers", parallel_workers_json(report.speculation)},
        {"ranks", parallel_ranks_json(report.speculation)}}},
      // Summed over the executions: steps run and thread hand-offs
      // (ExplorationReport::handoffs).
      {"steps", report.steps},
      {"handoffs", report.handoffs},
      {"user_handoffs", report.user_handoffs},
      {"user_thread_starts", report.user_thread_starts},
      {"user_thread_ends", report.user_thread_ends},
      {"interrupted", report.interrupted},
      {"stopped_by", report.interrupted ? nlohmann::json(report.stopped_by) : nlohmann::json(nullptr)},
      // false: no interleaving was checked; unchecked_reason says why
      // (Verdict.h: "none-ended", "every-execution-cut", "no-thread").
      {"checked", unchecked(report) == Unchecked::None},
      {"unchecked_reason", unchecked(report) == Unchecked::None ? nlohmann::json(nullptr)
                                                                : nlohmann::json(unchecked_keyword(unchecked(report)))},
      // What the files are left as when ctrl ends, and why (Explorer.h).
      {"files",
       {{"left_as", report.files_left_as},
        {"why", report.files_why.empty() ? nlohmann::json(nullptr) : nlohmann::json(report.files_why)}}},
      // --races under sc/tso/pso (DataRaceCheck.h); null when off or c11/rc11.
      {"races", report.races ? nlohmann::json{{"checked_executions", report.races->executions},
                                              {"unchecked", report.races->unchecked.empty()
                                                                ? nlohmann::json(nullptr)
                                                                : nlohmann::json(report.races->unchecked)},
                                              {"treated_as_atomic", report.races->treated},
                                              {"debug_info", report.races->debug_info},
                                              {"heap", report.races->heap}}
                             : nlohmann::json(nullptr)},
      {"preemption_bound", report.preemption_bound},
      {"preemption_bound_completed", report.preemption_bound_completed},
      {"bugs", bugs}};
}

JsonReport::JsonReport(const std::string& path) : path_(path) {
  if (path.empty()) return;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0 && errno == ENOENT) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    created_ = fd_ >= 0;
    if (created_) remove_on_stop(path.c_str());
  }
  if (fd_ < 0) throw UsageError(fmt::format("--json: cannot write {}: {}", path, std::strerror(errno)));
}

JsonReport::~JsonReport() {
  if (fd_ < 0) return;
  ::close(fd_);
  if (created_ && !written_) ::unlink(path_.c_str());
  if (created_) forget_on_stop(path_.c_str());
}

void JsonReport::write(const nlohmann::json& j) {
  if (fd_ < 0) return;
  std::string text = j.dump(2) + "\n";
  if (::ftruncate(fd_, 0) != 0) throw UsageError(fmt::format("--json: cannot write {}: {}", path_, std::strerror(errno)));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::pwrite(fd_, text.data() + done, text.size() - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw UsageError(fmt::format("--json: cannot write {}: {}", path_, std::strerror(errno)));
    done += size_t(n);
  }
  written_ = true;
  if (created_) forget_on_stop(path_.c_str());
}

}  // namespace ctrl

#include "exploration/Replayer.h"

#include <fmt/format.h>

#include "C11Races.h"
#include "exploration/DataRaceCheck.h"
#include "binary/ElfInspector.h"
#include "cli/ExitStatus.h"
#include "ModelAnalysis.h"
#include "exploration/ModelBugs.h"
#include "reports/Report.h"
#include "binary/Symbolizer.h"
#include "reports/TraceEnvironment.h"
#include "reports/TraceFile.h"
#include "exploration/TsoSafety.h"
#include "exploration/SharedSet.h"

namespace ctrl {

SessionConfig replay_config(const proto::Trace& trace, const std::string& agent, bool show_output) {
  const auto& program = trace.program();
  ProgramFacts facts;
  try {
    facts = inspect_program(program.path());
  } catch (const UsageError& e) {
    throw UsageError(
        fmt::format("the trace's program cannot be run: {} (moved? ctrl replay --program PATH)", e.what()));
  }
  if (facts.content_hash != program.content_hash() || facts.size != program.size())
    throw UsageError(fmt::format("the trace was recorded for another version of {} (content hash {} then, {} now)",
                                 program.path(), program.content_hash(), facts.content_hash));
  SessionConfig config;
  config.program = facts.path;
  config.args.assign(program.args().begin(), program.args().end());
  config.env = replay_environment(program);
  config.cwd = program.cwd();
  // The recording's clocks (0 in a trace of an older ctrl: the replay's own).
  config.clock_realtime_ns = program.clock_realtime_ns();
  config.clock_monotonic_ns = program.clock_monotonic_ns();
  config.agent = agent;
  config.max_steps = std::max<uint64_t>(trace.options().max_steps(), uint64_t(trace.decisions_size()) + 1);
  config.hang_timeout = trace.options().hang_timeout_ms() / 1000.0;
  if (config.hang_timeout <= 0) config.hang_timeout = 5;
  config.show_output = show_output;
  config.model = shm::memory_model_named(trace.options().model());
  // Judged by the rule the exploration used (a trace written by an older
  // ctrl has none: no exit status is a bug).
  config.fail_on_exit = parse_fail_on_exit(trace.options().fail_on_exit(), "the trace's --fail-on-exit");
  // The own-memory rule and shared set the execution ran with (SharedSet.h).
  config.own_memory = trace.options().visible() == "shared";
  config.shared = trace_shared(trace.options());
  return config;
}

namespace {

// A trace keeps what identifies each step, not its values.
std::string describe_signature(const proto::Signature& s, Symbolizer& symbols) {
  auto kind = OpKind(s.kind());
  std::string what = op_name(kind);
  if (s.addr()) what += " " + symbols.describe_data(s.addr());
  if (s.size()) what += fmt::format(" ({} bytes)", s.size());
  bool exact = (s.flags() & shm::kInstruction) || kind == OpKind::ThreadStart || kind == OpKind::ThreadExit ||
               kind == OpKind::ProcessExit;
  std::string where = s.site() ? symbols.describe_code(exact ? s.site() : s.site() - 1) : "";
  if (kind == OpKind::Flush) return fmt::format("a store buffer's {}", what);
  return fmt::format("T{:<3} {}{}", s.thread(), what, where.empty() ? "" : "   at " + where);
}

// A divergence is the trace's, not ctrl's: the program on this machine did
// not do what the trace says (an edited trace, other files, environment or
// input, randomness ctrl does not control). One line, whatever the bug's
// message held.
std::string divergence_line(const std::string& what) {
  std::string line = what +
                     ": the program did not do what the trace says (an edited trace, or files, environment "
                     "or input other than the recording's): nothing was checked";
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  return line;
}

}  // namespace

ReplayOutcome replay(Session& session, const proto::Trace& trace) {
  ReplayOutcome out;
  // A trace from a newer ctrl may name a kind this one does not know: it
  // is then reproduced by no bug (the divergence names it).
  std::optional<BugKind> known = bug_kind_from_name(trace.bug().kind());
  const std::string& want_name = trace.bug().kind();
  BugKind want = known.value_or(BugKind::Count);
  if (auto early = session.start()) {
    out.result = std::move(*early);
  } else {
    ExecutionPlan plan;
    plan.prefix.assign(trace.decisions().begin(), trace.decisions().end());
    plan.policy = shm::TailPolicy::Sticky;
    plan.choices = trace_choices(trace);
    std::vector<shm::Signature> expected;
    for (const auto& s : trace.signatures())
      expected.push_back(shm::Signature{s.thread(), uint16_t(s.kind()), 0, s.site(), s.addr()});
    out.result = session.run(plan, trace.execution(), expected);
  }
  ExecutionResult& r = out.result;
  r.execution = trace.execution();
  // A tso-unsafe bug is the monitor's verdict on the replayed SC execution.
  if (want == BugKind::TsoUnsafe && r.end != ExecutionResult::End::Bug && r.end != ExecutionResult::End::Diverged &&
      r.end != ExecutionResult::End::Interrupted)
    TsoSafetyMonitor(session.symbolizer()).check(r);
  // A data race or an uninitialised load is the model's verdict on the
  // replayed execution, as in the exploration.
  if (model_analysis(session.config().model).plans_choices())
    ModelBugMonitor(
        [&](const ExecutionResult& x) {
          return model_bugs_of(x.events.data(), x.events.size(), trace_choices(trace), session.config().model);
        },
        session.symbolizer(), [&](uint64_t a) { return session.initialised_unseen(a); })
        .check(r);
  // Under sc/tso/pso a race is the race check's verdict. Only a race's trace
  // is checked: an execution saved for another bug had no race when found.
  if (!model_analysis(session.config().model).plans_choices() && want == BugKind::DataRace &&
      !trace.options().races_off())
    DataRaceCheck(session, trace.options().races_all()).check(r);
  size_t steps = r.events.size();
  auto& symbols = session.symbolizer();
  switch (r.end) {
    case ExecutionResult::End::Diverged: {
      // The agent stops at the first event that differs (logged as the last
      // one) or at a decision the trace makes for a thread that cannot run.
      bool event_differs = std::string(r.message).find("event") != std::string::npos;
      size_t n = event_differs && steps > 0 ? steps - 1 : steps;
      std::string expected = n < size_t(trace.signatures_size()) ? describe_signature(trace.signatures(int(n)), symbols)
                                                                 : "the end of the trace";
      std::string got =
          event_differs && steps > 0
              ? describe_event(r.events[n], symbols)
              : fmt::format("T{} cannot run there", n < size_t(trace.decisions_size()) ? trace.decisions(int(n)) : 0);
      out.divergence =
          divergence_line(fmt::format("replay diverged at step {}: expected {}, got {}", n + 1, expected, got));
      return out;
    }
    case ExecutionResult::End::Bug:
      // A schedule saved without a bug (a stepping session's `save`) is
      // reproduced when its decisions all ran; what comes after them is the
      // sticky policy's, and a bug there is reported as found.
      if (r.kind == want || (want == BugKind::None && steps >= size_t(trace.decisions_size()))) {
        out.reproduced = true;
        return out;
      }
      out.divergence = divergence_line(fmt::format("replay diverged at step {}: expected a {} bug, got a {} bug: {}",
                                                   steps, want_name, r.kind_name(), r.message));
      return out;
    case ExecutionResult::End::Interrupted:
      out.divergence = "replay interrupted";
      return out;
    case ExecutionResult::End::Unsupported:
      throw UsageError(r.message);
    default:
      if (want == BugKind::None && r.end == ExecutionResult::End::Complete && steps >= size_t(trace.decisions_size())) {
        out.reproduced = true;
        return out;
      }
      out.divergence = divergence_line(
          fmt::format("replay diverged at step {}: expected a {} bug, but the execution {}", steps, want_name,
                      r.end == ExecutionResult::End::StepBound ? "reached --max-steps" : "ended normally"));
      return out;
  }
}

}  // namespace ctrl

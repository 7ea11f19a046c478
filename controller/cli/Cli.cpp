#include "cli/Cli.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

#include "ModelAnalysis.h"
#include "binary/ElfInspector.h"
#include "binary/Symbolizer.h"
#include "cli/ExitStatus.h"
#include "cli/InstallLayout.h"
#include "debug/DebugPrompt.h"
#include "debug/DebugSession.h"
#include "exploration/Explorer.h"
#include "exploration/Replayer.h"
#include "exploration/SharedSet.h"
#include "exploration/Shrinker.h"
#include "parallel/LauncherRank.h"
#ifdef CTRL_HAVE_MPI
#include "parallel/RankChannel.h"
#include "parallel/RankWorker.h"
#include "parallel/RemoteRanks.h"
#endif
#include "gdb/GdbServer.h"
#include "reports/BugJson.h"
#include "reports/CiReports.h"
#include "reports/DotGraph.h"
#include "reports/ExecutionPicture.h"
#include "reports/HtmlReport.h"
#include "reports/Report.h"
#include "reports/ReportFile.h"
#include "reports/StopReason.h"
#include "reports/TraceEnvironment.h"
#include "reports/TraceFile.h"
#include "reports/Verdict.h"
#include "session/OutputKind.h"
#include "sites/InlineAtomics.h"
#include "sites/Instrumentation.h"

extern char** environ;

namespace ctrl {

namespace {

namespace fs = std::filesystem;

// The agent sits at <prefix>/lib/ctrl/ beside <prefix>/bin/ctrl, in the build
// tree as in an installation; CTRL_AGENT overrides.
std::string find_agent() {
  if (const char* env = getenv("CTRL_AGENT"); env && *env) {
    if (!fs::exists(env)) throw InternalError(fmt::format("CTRL_AGENT={} does not exist", env));
    return fs::absolute(env).string();
  }
  fs::path agent = ctrl_library_dir() / "libctrl-agent.so";
  if (!fs::exists(agent)) throw InternalError(fmt::format("ctrl's agent is missing: {}", agent.string()));
  return agent.string();
}

// The target inherits ctrl's environment, minus ctrl's own settings.
std::vector<std::string> target_environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view v(*e);
    if (v.rfind("CTRL_", 0) == 0) continue;
    env.emplace_back(v);
  }
  return env;
}

// `text` as a POSIX shell reads it back, control characters shown as ?.
std::string shell_quoted(const std::string& text) {
  bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("/._-+=:,@%", c) != nullptr;
  });
  if (plain) return text;
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  }
  return out + "'";
}

std::string current_dir() {
  std::error_code ec;
  auto p = fs::current_path(ec);
  return ec ? "" : p.string();
}

// Numbers on the command line are taken as text and converted here: CLI11
// would let "-5" wrap round to a huge seed, take "nan" for a time, and print
// a 300-digit bound in its range message.
std::string shown(const std::string& text) { return text.size() > 24 ? text.substr(0, 20) + "..." : text; }

// -j when not given.
unsigned default_jobs() { return 1; }

uint64_t whole_number(const std::string& option, const std::string& text, uint64_t min, uint64_t max) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || ptr != end || ec != std::errc() || v < min || v > max)
    throw UsageError(fmt::format("{}: '{}' is not a whole number from {} to {}", option, shown(text), min, max));
  return v;
}

double seconds(const std::string& option, const std::string& text, bool zero_allowed, double max) {
  char* end = nullptr;
  errno = 0;
  double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  bool number = !text.empty() && end == text.c_str() + text.size() && std::isfinite(v) && errno == 0;
  if (!number || v < 0 || (v == 0 && !zero_allowed) || v > max)
    throw UsageError(fmt::format("{}: '{}' is not a number of seconds ({} 0, at most {:g})", option, shown(text),
                                 zero_allowed ? "at least" : "more than", max));
  return v;
}

struct AttachArgs {
  std::string strategy = "dpor+probes";
  bool strategy_given = false;  // --strategy on the command line
  std::string seed_text = "1";
  std::string max_executions_text = "100000";
  std::string time_limit_text = "0";
  std::string max_steps_text = "100000";
  std::string hang_timeout_text = "5";
  std::string preemption_bound_text;
  std::string pct_depth_text;
  uint64_t seed = 1;
  uint64_t max_executions = 100000;
  double time_limit = 0;
  uint64_t max_steps = 100000;
  double hang_timeout = 5;
  std::string json;
  std::string trace_dir = "ctrl-traces";
  std::vector<std::string> omit_env;  // --omit-env: name globs left out of traces
  bool show_output = false;
  bool keep_going = false;
  std::string dpor = "source";
  std::string equivalence = "mazurkiewicz";  // --equivalence (issue 23)
  int preemption_bound = -1;
  uint32_t pct_depth = 3;
  std::string monitor;
  std::string model = "sc";
  bool no_shrink = false;
  bool no_checkpoints = false;
  bool no_rollback = false;
  bool kernel_handoffs = false;
  std::string jobs_text;
  unsigned jobs = 1;
  bool mpi = false;                   // --mpi: one rank of an MPI job (parallel/RemoteRanks.h)
  std::string state_dir, resume_dir;  // --state, --resume (parallel/ExplorationState.h)
  std::string visible = "auto";
  std::string fail_on_exit;  // as given (kept in traces)
  FailExitStatuses fail_exit;
  std::string races = "on";  // --races: validated by CLI::IsMember below
  std::vector<std::string> instrument;
  std::vector<std::string> command;
  bool interactive = false;
  std::string batch;
  std::string gdb_port;
  // CI (issue 25, item 5): SARIF and JUnit files, the exit status of a run
  // a limit stopped without a bug, the progress line's period.
  std::string sarif, junit;
  std::string limit_exit_text, progress_every_text = "10";
  int limit_exit = -1;  // -1: such a run exits 0
  double progress_every = 10;

  void convert() {
    if (!limit_exit_text.empty()) limit_exit = int(whole_number("--limit-exit", limit_exit_text, 4, 125));
    progress_every = seconds("--progress-every", progress_every_text, true, 1e6);
    seed = whole_number("--seed", seed_text, 0, UINT64_MAX);
    max_executions = whole_number("--max-executions", max_executions_text, 1, UINT64_MAX);
    max_steps = whole_number("--max-steps", max_steps_text, 1, 50000000);
    // The trace keeps the hang timeout in milliseconds (32 bits).
    time_limit = seconds("--time-limit", time_limit_text, true, 1e8);
    hang_timeout = seconds("--hang-timeout", hang_timeout_text, false, 1e6);
    if (!preemption_bound_text.empty())
      preemption_bound = int(whole_number("--preemption-bound", preemption_bound_text, 0, 64));
    if (!pct_depth_text.empty()) {
      if (strategy != "pct") throw UsageError("--pct-depth goes with --strategy pct");
      pct_depth = uint32_t(whole_number("--pct-depth", pct_depth_text, 1, shm::kMaxPctDepth));
    }
    jobs = jobs_text.empty() ? default_jobs() : unsigned(whole_number("-j", jobs_text, 1, 256));
    fail_exit = parse_fail_on_exit(fail_on_exit);
  }
};

// --model c11/rc11: what the execution-graph exploration (GraphStrategy.h)
// supports, and a program whose atomics it can see. Throws UsageError.
void check_c11_run(const AttachArgs& a, const std::string& program) {
  if (a.strategy != "dpor" || a.dpor != "source")
    throw UsageError(fmt::format("--model {} explores with --strategy dpor only (its execution graphs)", a.model));
  if (a.preemption_bound >= 0)
    throw UsageError(fmt::format("--preemption-bound is not available with --model {}", a.model));
  if (!a.monitor.empty())
    throw UsageError("--monitor sober checks sequentially consistent executions: use it with --model sc");
  if (a.interactive || !a.batch.empty() || !a.gdb_port.empty())
    throw UsageError(
        fmt::format("stepping (--interactive, --batch, --gdb) is not available with --model {} yet", a.model));
  // A program with atomics of its own but no libatomic call is refused
  // (InlineAtomics.h): its inline relaxed/acquire/release loads and stores
  // are plain moves, on which the race check would report false races. One
  // with no atomics at all (pthread calls only) is checked in full. A
  // ThreadSanitizer build's atomics are calls into TSan's runtime, which the
  // agent follows with their orders (agent/TsanAtomics.h).
  if (imports_libatomic(program) == false && !imports_prefixed(program, "__tsan_atomic").value_or(false)) {
    if (auto found = find_inline_atomics(program))
      throw UsageError(
          fmt::format("--model {}: {} has inline atomics ({}): orders unseen; rebuild with "
                      "-fno-inline-atomics -latomic",
                      a.model, program, found->evidence));
    if (!has_debug_info(program))
      fmt::print(stderr,
                 "ctrl: note: {} has no debug information: if it has inline relaxed, acquire or release atomics "
                 "(plain movs to ctrl), a data race reported on them is false; build with -g to let ctrl check\n",
                 program);
  }
  if (!a.jobs_text.empty() && a.jobs > 1)
    fmt::print(stderr, "ctrl: -j is ignored with --model {}: one session\n", a.model);
}

// A stepping session over `session` (DebugPrompt): commands from `batch`
// when given, else from the terminal or standard input.
int step_through(Session& session, std::optional<proto::Trace> recording, const proto::Trace& trace_template,
                 const std::string& batch, const std::string& gdb_port, bool checkpoints = true) {
  std::optional<uint16_t> port;
  if (!gdb_port.empty()) port = uint16_t(whole_number("--gdb", gdb_port, 0, 65535));
  // The whole script is read now: a descriptor left open would be the
  // program's too (it is launched below), and putting its files back before
  // each execution would move the script's offset under ctrl's feet.
  std::istringstream script;
  if (!batch.empty()) {
    std::ifstream file(batch);
    if (!file) throw UsageError(fmt::format("--batch: cannot read {}", batch));
    std::ostringstream text;
    text << file.rdbuf();
    script.str(text.str());
  }
  DebugSession debug(session, std::move(recording), trace_template);
  debug.set_checkpoints(checkpoints);
  DebugPrompt prompt(debug, stdout);
  StopInfo start = debug.start();
  if (start.reason == StopReason::Interrupted) {
    fmt::print("{}\n", start.message);
    return kExitBadInput;
  }
  if (start.reason != StopReason::Step) fmt::print("the program ended before its first thread: {}\n", start.message);
  std::fflush(stdout);
  if (port) {
    // gdb's front end instead of the prompt (GdbServer): one connection.
    // The log shows the program's memory: a new file of its own, never one
    // that exists or that a symlink planted at the path leads to.
    const char* log_path = getenv("CTRL_GDB_LOG");
    std::FILE* log = nullptr;
    if (log_path && *log_path) {
      int fd = ::open(log_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      log = fd >= 0 ? fdopen(fd, "w") : nullptr;
      if (fd >= 0 && !log) ::close(fd);
      if (!log)
        fmt::print(stderr, "ctrl: CTRL_GDB_LOG: cannot create {}: {} (no log: it is written only as a new file)\n",
                   log_path, std::strerror(errno));
    }
    GdbServer server(debug);
    int status = server.serve(*port, log);
    if (log) std::fclose(log);
    return status;
  }
  return prompt.run(batch.empty() ? nullptr : &script);
}

// --equivalence rf (ReadsFromStrategy.h): the systematic search alone,
// under SC, where it applies. Throws UsageError.
void choose_equivalence(AttachArgs& a) {
  if (a.equivalence != "rf") return;
  if (a.model == "pso")
    throw UsageError(
        "--equivalence rf is available with --model sc and tso only (its search does not model pso's "
        "per-location store buffers)");
  // c11, rc11 and ra explore by what each read reads already: no choice to make.
  if (a.model != "sc" && a.model != "tso")
    throw UsageError(
        fmt::format("--equivalence rf is for --model sc and tso only: --model {} already runs one "
                    "execution per {}",
                    a.model, a.model == "ra" ? "weak trace (po, rf)" : "execution graph (rf, mo)"));
  if (a.strategy_given && a.strategy != "dpor")
    throw UsageError(
        fmt::format("--equivalence rf is a systematic search: use it with --strategy dpor (not {})", a.strategy));
  if (a.preemption_bound >= 0 || a.dpor != "source")
    throw UsageError("--equivalence rf does not combine with --preemption-bound or --dpor");
  if (a.interactive || !a.batch.empty() || !a.gdb_port.empty())
    throw UsageError(
        "--equivalence rf does not apply to stepping (--interactive, --batch, --gdb): its explore "
        "command explores Mazurkiewicz classes");
  a.strategy = "dpor-rf";
}

// Runs `write` (a report file's write); a failure is said in one line and
// returns false instead of ending ctrl with exit 2, which would hide a found
// bug's exit 1 (issue 26: exit statuses must not lie).
bool write_report_file(const std::function<void()>& write) {
  try {
    write();
    return true;
  } catch (const UsageError& e) {
    fmt::print(stderr, "ctrl: {}\n", e.what());
    return false;
  }
}

int attach(AttachArgs a) {
  choose_equivalence(a);
  // The default probes beside plain DPOR only (ProbingStrategy.h): with a
  // preemption bound, Optimal-DPOR or the execution graphs of c11/rc11, it
  // is that search alone.
  if (!a.strategy_given && a.strategy != "dpor-rf" &&
      (a.preemption_bound >= 0 || a.dpor != "source" ||
       model_analysis(shm::memory_model_named(a.model)).plans_choices()))
    a.strategy = "dpor";
  // --dpor optimal passes the option's check with CTRL_EXPERIMENTAL=1 only.
  if (a.strategy == "dpor" && a.dpor == "optimal") a.strategy = "dpor-optimal";
    // --mpi (issue 28): every rank runs this; rank 0 explores and reports,
    // the others run its plans (parallel/RankWorker.h) and print nothing.
#ifdef CTRL_HAVE_MPI
  std::unique_ptr<RankChannel> channel;
  std::unique_ptr<RemoteRanks> remote;
#endif
  if (!a.state_dir.empty() || !a.resume_dir.empty()) {
    // Every rank of --mpi refuses alike: rank 0 says it.
    auto refuse = [&](const std::string& why) {
      if (a.mpi && launcher_rank().value_or(0) != 0) return true;
      throw UsageError(why);
    };
    const char* option = a.state_dir.empty() ? "--resume" : "--state";
    // Source-DPOR's frontier is its stack (analyses/DporSavedState.cpp):
    // one session's; the partition's work items (-j N, --mpi) are not saved.
    const bool dpor = a.strategy == "dpor" && a.preemption_bound < 0 && a.monitor.empty() &&
                      (a.model == "sc" || a.model == "tso" || a.model == "pso");
    if (a.strategy != "random" && a.strategy != "pct" && a.strategy != "pos" && !dpor &&
        refuse(fmt::format("{} saves the frontier of --strategy random, pct and pos (a range of seeds) and of "
                           "--strategy dpor (under --model sc, tso or pso) only, not of {}",
                           option, a.strategy == "dpor" ? "this dpor search" : "--strategy " + a.strategy)))
      return kExitBadInput;
    if (dpor && a.jobs_text.empty()) a.jobs = 1;
    if (dpor && (a.jobs > 1 || a.mpi) &&
        refuse(fmt::format("{} saves the frontier of --strategy dpor with -j 1 only (the work items of -j N and "
                           "--mpi are not saved yet)",
                           option)))
      return kExitBadInput;
    if (a.keep_going && refuse(fmt::format("{} does not keep the bugs of --keep-going yet", option)))
      return kExitBadInput;
    if ((a.interactive || !a.batch.empty() || !a.gdb_port.empty()) &&
        refuse(fmt::format("{} does not apply to stepping", option)))
      return kExitBadInput;
    if (a.state_dir.empty()) a.state_dir = a.resume_dir;  // a resumed run saves on where it was
  }
  if (a.mpi) {
    std::string refused;
    // Source-DPOR's work items (PartitionedDpor.h) under sc, tso and pso,
    // with the default strategy's probes (ProbeSchedule.h); c11/rc11/ra's
    // graphs and weak traces, sat and a preemption bound are not
    // partitioned across ranks yet.
    const bool dpor_partitioned = (a.strategy == "dpor" || a.strategy == "dpor+probes") && a.preemption_bound < 0 &&
                                  a.monitor.empty() && (a.model == "sc" || a.model == "tso" || a.model == "pso");
    if (a.strategy != "random" && a.strategy != "pct" && a.strategy != "pos" && !dpor_partitioned)
      refused = fmt::format(
          "--mpi partitions dpor and the default strategy (under --model sc, tso or pso, without "
          "--preemption-bound or --monitor) and random, pct and pos only; {} runs on one machine (-j)",
          a.strategy == "dpor" || a.strategy == "dpor+probes" ? "this search" : "--strategy " + a.strategy);
    else if (a.show_output || a.interactive || !a.batch.empty() || !a.gdb_port.empty())
      refused = "--mpi does not combine with --show-output or stepping (--interactive, --batch, --gdb)";
#ifndef CTRL_HAVE_MPI
    refused = "--mpi: this ctrl was built without MPI (install libopenmpi-dev and openmpi-bin, then build again)";
#endif
    if (!refused.empty()) {
      // Every rank refuses alike: rank 0 says it.
      if (launcher_rank().value_or(0) != 0) return kExitBadInput;
      throw UsageError(refused);
    }
#ifdef CTRL_HAVE_MPI
    channel = std::make_unique<RankChannel>();
    if (channel->rank() != 0) return run_rank_worker(*channel, a.jobs, find_agent());
    remote = std::make_unique<RemoteRanks>(*channel, a.jobs);
#endif
  }
  JsonReport json(a.json);  // refused now rather than after the exploration
  ReportFile sarif("--sarif", a.sarif), junit("--junit", a.junit);
  ProgramFacts facts = inspect_program(a.command.front());
  if (auto note = set_id_note(facts.path)) fmt::print(stderr, "ctrl: note: {}\n", *note);
  const shm::MemoryModel model = shm::memory_model_named(a.model);
  if (model_analysis(model).plans_choices()) check_c11_run(a, facts.path);
  try {
    // Rejects bad combinations before anything runs.
    make_strategy(a.strategy, a.seed, a.preemption_bound, a.pct_depth, model);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }

  SessionConfig config;
  config.program = facts.path;
  config.args.assign(a.command.begin() + 1, a.command.end());
  config.env = target_environment();
  if (a.mpi) config.env = without_launcher_variables(config.env);
  config.cwd = current_dir();
  config.agent = find_agent();
  config.max_steps = a.max_steps;
  config.hang_timeout = a.hang_timeout;
  config.show_output = a.show_output;
  config.in_place = !a.no_rollback;
  config.user_handoffs = !a.kernel_handoffs;
  config.model = model;
  config.fail_on_exit = a.fail_exit;
  {
    // One origin for the virtual clocks of every session of this run, kept
    // in the trace (agent/VirtualClock.h).
    timespec real_now{}, mono_now{};
    clock_gettime(CLOCK_REALTIME, &real_now);
    clock_gettime(CLOCK_MONOTONIC, &mono_now);
    config.clock_realtime_ns = int64_t(real_now.tv_sec) * 1000000000 + real_now.tv_nsec;
    config.clock_monotonic_ns = int64_t(mono_now.tv_sec) * 1000000000 + mono_now.tv_nsec;
  }
  if (a.model != "sc" && a.strategy == "dpor-optimal")
    throw UsageError(fmt::format("--dpor optimal is not available with --model {} yet (use --dpor source)", a.model));
  if (a.model != "sc" && !a.monitor.empty())
    throw UsageError("--monitor sober checks sequentially consistent executions: use it with --model sc");
  // --visible auto: `all`, unless an execution is cut by --max-steps (no
  // bug found before it): then everything again from the start under
  // `atomics`, said on stderr, in the summary and in the JSON (README "What
  // ctrl sees"). A program whose runtime does its work in its own code (a
  // Rust tool, perl, Go) makes a step of every access under `all`: without
  // this, none of its executions would end and nothing would be checked.
  // Stepping shows every access (`all`).
  // --state/--resume: what must be the same to go on from a snapshot.
  const std::string identity = fmt::format(
      "{} {} [{}] strategy {} seed {} depth {} model {} max-steps {} visible {} races {} fail-on-exit '{}' "
      "instrument [{}]",
      facts.path, facts.content_hash, fmt::join(config.args, " "), a.strategy, a.seed, a.pct_depth, a.model,
      a.max_steps, a.visible, a.races, a.fail_on_exit, fmt::join(a.instrument, " "));
  std::optional<proto::SavedExploration> resumed;
  if (!a.resume_dir.empty()) {
    resumed = ExplorationState::load(a.resume_dir, identity);
    fmt::print(stderr, "ctrl: resuming from {}: {} executions counted, plans from {} on\n", a.resume_dir,
               resumed->total(), resumed->next_plan());
  }
  std::unique_ptr<ExplorationState> state;
  if (!a.state_dir.empty()) state = std::make_unique<ExplorationState>(a.state_dir, identity);
  const bool automatic = a.visible == "auto";
  // `shared` (agent/OwnMemory.h): the sites of `all`, a thread's own stack
  // and static TLS not steps until another thread is seen touching them.
  // Stepping shows every access.
  const bool stepping = a.interactive || !a.batch.empty() || !a.gdb_port.empty();
  std::string visible = automatic ? (stepping ? "all" : "shared") : a.visible;
  // Resumed: under the sites and the shared set the saved exploration ran with.
  if (resumed && !resumed->visible().empty()) visible = resumed->visible();
  auto sites_of = [](const std::string& v) { return v == "shared" ? std::string("all") : v; };
  auto instrumentation =
      std::make_unique<Instrumentation>(facts.path, InstrumentationOptions{sites_of(visible), a.instrument});
  config.sites_fd = instrumentation->fd();
  config.own_memory = visible == "shared";
  if (resumed && visible == "shared") {
    const std::string& bytes = resumed->shared();
    config.shared.resize(bytes.size() / sizeof(shm::Header::Range));
    std::memcpy(config.shared.data(), bytes.data(), config.shared.size() * sizeof(shm::Header::Range));
  }

  proto::Trace trace;
  auto* p = trace.mutable_program();
  p->set_path(facts.path);
  p->set_size(facts.size);
  p->set_content_hash(facts.content_hash);
  for (const auto& arg : config.args) p->add_args(arg);
  // Secrets stay out of traces (TraceEnvironment.h); the program still gets them.
  // Said once the run is under way (nothing on stdout before a refusal).
  std::string left_out;
  if (std::vector<std::string> omitted = record_environment(*p, config.env, a.omit_env); !omitted.empty()) {
    std::string names;
    for (const auto& n : omitted) names += (names.empty() ? "" : " ") + n;
    left_out = fmt::format("ctrl: the trace leaves out {} variable{}: {} (a replay runs without them)\n",
                           omitted.size(), omitted.size() == 1 ? "" : "s", names);
  }
  p->set_cwd(config.cwd);
  p->set_clock_realtime_ns(config.clock_realtime_ns);
  p->set_clock_monotonic_ns(config.clock_monotonic_ns);
  auto* o = trace.mutable_options();
  o->set_strategy(a.strategy);
  o->set_seed(a.seed);
  if (a.strategy == "pct") o->set_pct_depth(a.pct_depth);
  o->set_max_steps(a.max_steps);
  o->set_model(a.model);
  o->set_monitor(a.monitor);
  o->set_hang_timeout_ms(uint32_t(a.hang_timeout * 1000));
  o->set_visible(visible);
  o->set_fail_on_exit(a.fail_on_exit);
  o->set_races_off(a.races == "off");
  o->set_races_all(a.races == "all");
  o->set_show_output(a.show_output);
  o->set_stdout_kind(a.show_output ? output_kind(1) : "null");
  o->set_stderr_kind(a.show_output ? output_kind(2) : "null");
  for (const auto& lib : a.instrument) o->add_instrument(resolve_library(lib));

  ExploreOptions options;
  options.strategy = a.strategy;
  options.seed = a.seed;
  options.max_executions = a.max_executions;
  options.time_limit = a.time_limit;
  options.trace_dir = a.trace_dir;
  options.keep_going = a.keep_going;
  options.preemption_bound = a.preemption_bound;
  options.pct_depth = a.pct_depth;
  options.sober = a.monitor == "sober";
  options.shrink = !a.no_shrink;
  // An execution continued from a live checkpoint does not write again
  // what its steps before the checkpoint wrote: with the output shown, it
  // would be missing (pixz's blocks written before the restored step).
  options.checkpoints = !a.no_checkpoints && !a.show_output;
  options.races = a.races != "off";
  options.races_all = a.races == "all";
  options.progress = isatty(2);
  options.progress_every = a.progress_every;
  // Helper sessions print nothing and read nothing: with the program's
  // output shown, the executions they ran would be missing from it.
  options.jobs = a.show_output || model_analysis(model).plans_choices() ? 1 : a.jobs;
  config.spread = options.jobs == 1;
#ifdef CTRL_HAVE_MPI
  options.remote = remote.get();
  if (remote) config.spread = false;
  // What the other ranks make their sessions with, as this exploration's.
  auto sync_remote = [&] {
    if (remote) remote->set_sites({sites_of(visible), a.instrument, a.fail_on_exit});
  };
#else
  auto sync_remote = [] {};
#endif

  if (a.interactive || !a.batch.empty() || !a.gdb_port.empty()) {
    if (!a.jobs_text.empty() && a.jobs > 1) fmt::print(stderr, "ctrl: -j is ignored when stepping: one session\n");
    Session session(config);
    fmt::print("ctrl: stepping through {} (memory model {}); help lists the commands\n", facts.path, a.model);
    fmt::print("{}", left_out);
    std::fflush(stdout);
    return step_through(session, std::nullopt, trace, a.batch, a.gdb_port);
  }
  options.stop_at_cut = automatic && visible != "atomics";
  options.state = state.get();
  options.visible_used = visible;
  options.resume = resumed;
  auto session = std::make_unique<Session>(config);
  auto explorer = std::make_unique<Explorer>(*session, options, trace);  // makes the trace directory
  std::string strategy_parameters = a.strategy == "random" || a.strategy == "pos" ? fmt::format(" (seed {})", a.seed)
                                    : a.strategy == "pct" ? fmt::format(" (seed {}, depth {})", a.seed, a.pct_depth)
                                                          : "";
  fmt::print("ctrl: {} under strategy {}{}, memory model {}\n", facts.path, a.strategy, strategy_parameters, a.model);
  fmt::print("{}", left_out);
  fmt::print("ctrl: {}\n", instrumentation->summary());
  if (a.visible == "atomics")
    fmt::print(
        "ctrl: --visible=atomics: plain memory accesses are not scheduling points; races made of them may be missed\n");
  std::fflush(stdout);
  sync_remote();
  ExplorationReport report = explorer->run();
  options.resume.reset();  // the explorations after this one start from plan 0
  // Own memory shared between threads (SharedSet.h): explored again from
  // the start with it in the shared set, until an exploration finds no new
  // sharing (the set only grows and is finite), a bug ends the run, or a
  // cut sends --visible auto to atomics below.
  constexpr uint64_t kMaxSharingRestarts = 32;
  uint64_t sharing_restarts = 0, executions_before_sharing = 0;
  std::vector<FoundBug> earlier_bugs;  // --keep-going: found before a restart
  while (report.stopped_at_sharing && !report.stopped_at_cut && !report.interrupted &&
         (report.bugs.empty() || options.keep_going)) {
    std::vector<SharedRange> shared = session->config().shared;
    add_shared(shared, report.discovered);
    ++sharing_restarts;
    executions_before_sharing += report.total;
    for (auto& b : report.bugs) earlier_bugs.push_back(std::move(b));
    fmt::print(stderr,
               "ctrl: execution {} found another thread touching a thread's own stack or TLS ({} bytes shared now): "
               "exploring again from the start with them as steps\n",
               report.total, shared_bytes(shared));
    // Past a bound (or past what the region holds), every access is a step
    // again, as under --visible all: the rounds end.
    if (sharing_restarts > kMaxSharingRestarts || shared.size() > shm::kMaxShared) {
      visible = "all";
      shared.clear();
    }
    session->set_shared(shared, visible == "shared");
    o->set_visible(visible);
    set_trace_shared(*o, shared);
    // Numbered from 1 again, as the reported exploration's executions are
    // (the earlier ones are not in its counts).
    options.session_started = true;
    if (options.time_limit > 0) options.time_limit = std::max(options.time_limit - report.elapsed, 1e-3);
    double before = report.elapsed;
    explorer.reset();
    options.visible_used = visible;
    explorer = std::make_unique<Explorer>(*session, options, trace);
    sync_remote();
    report = explorer->run();
    report.elapsed += before;
  }
  for (auto& b : earlier_bugs) report.bugs.insert(report.bugs.begin(), std::move(b));
  if (sharing_restarts)
    report.restarts_note = fmt::format(
        "explored again {} time{} after stack or TLS memory was found shared ({} "
        "executions before, not counted)",
        sharing_restarts, sharing_restarts == 1 ? "" : "s", executions_before_sharing);
  std::string fallback;
  uint64_t executions_under_all = 0;  // before the fallback: not in the report
  if (report.stopped_at_cut) {
    executions_under_all = report.total;
    fallback =
        fmt::format("execution {} under --visible {} was cut by --max-steps {}", report.total, visible, a.max_steps);
    fmt::print(stderr,
               "ctrl: --visible auto: {}: exploring again from the start with --visible atomics (plain memory "
               "accesses are not scheduling points: lost updates and races made of them are not checked)\n",
               fallback);
    // The session patched the program with the old table: a new one.
    explorer.reset();
    session.reset();
    visible = "atomics";
    instrumentation = std::make_unique<Instrumentation>(facts.path, InstrumentationOptions{visible, a.instrument});
    config.sites_fd = instrumentation->fd();
    config.own_memory = false;
    config.shared.clear();
    o->set_visible(visible);
    o->clear_shared();
    options.session_started = false;
    options.first_execution = 0;
    options.stop_at_cut = false;
    if (options.time_limit > 0) options.time_limit = std::max(options.time_limit - report.elapsed, 1e-3);
    double before = report.elapsed;
    session = std::make_unique<Session>(config);
    options.visible_used = visible;
    explorer = std::make_unique<Explorer>(*session, options, trace);
    // On stderr: with --show-output, stdout holds the executions' output.
    fmt::print(stderr, "ctrl: {}\n", instrumentation->summary());
    sync_remote();
    report = explorer->run();
    report.elapsed += before;
    // Every schedule of the synchronisation is not every schedule of the
    // program: never "exhaustive" about what was not looked at.
    report.scope_note = "plain accesses not checked (--visible auto chose atomics)";
    report.exhaustive = report.exhaustive_fair = false;
  }
  report.visible = visible;
  // What the files are left as (issue 22, item 12): never half-written.
  Session::FilesLeft files = session->files_left();
  if (files.checkpoint) {
    report.files_left_as = "checkpoint";
    report.files_why = files.why;
  } else if (!files.started && !report.no_thread) {
    report.files_left_as = "start-up";
    report.files_why = "stopped before the program created its first thread";
  }
  int n = 0;
  for (const auto& bug : report.bugs) print_bug(stdout, bug, ++n, session->symbolizer());
  print_summary(stdout, report);
  // Said when a stop from outside (the time limit, a signal) cut the last
  // execution short; after a bug, or a last execution cut by --max-steps
  // or abandoned, the report's `files` says it (the README states the rule).
  // A run that exits 2 says it in its one line.
  bool say_files = files.checkpoint && report.bugs.empty() && files.touched && files.stopped;
  if (say_files && !unchecked_by_limits(report))
    fmt::print(stderr,
               "ctrl: execution {} {}: the files are put back as they were at the checkpoint (when the program "
               "created its first thread), not left half-written\n",
               files.execution + 1, files.half_way);
  nlohmann::json j = report_json(report, facts.path, a.model);
  j["visible"] = {{"asked", a.visible}, {"used", visible}};
  if (session->config().own_memory || sharing_restarts) {
    // Own memory (agent/OwnMemory.h): the explorations before the reported
    // one, and the shared set the reported one ran with.
    j["visible"]["own_memory"] = {{"restarts", sharing_restarts},
                                  {"executions_before", executions_before_sharing},
                                  {"shared_ranges", session->config().shared.size()},
                                  {"shared_bytes", shared_bytes(session->config().shared)}};
  }
  if (!fallback.empty()) {
    j["visible"]["fallback"] = fallback;
    j["visible"]["executions_under_all"] = executions_under_all;
    j["visible"]["not_checked"] = "lost updates and data races made of plain (non-atomic) memory accesses";
  }
  if (json.wanted()) add_report_fields(j, report, session->symbolizer());
  // A report file that cannot be written (--json /dev/full) is said in one
  // line, but a found bug keeps exit status 1: the status must not hide the
  // verdict. Without a bug, exit 2: the run did not deliver what was asked.
  bool report_lost = !write_report_file([&] { json.write(j); });
  report_lost |= !write_report_file([&] { write_ci_reports(sarif, junit, report, facts.path, session->symbolizer()); });
  if (unchecked_by_limits(report)) {
    // Not a clean run: nothing is known about the program, because the
    // limits did not fit it (Verdict.h): a time limit too short for one
    // execution, Ctrl-C, or a --max-steps that cut every execution.
    std::fflush(stdout);
    if (unchecked(report) == Unchecked::EveryCut)
      throw UsageError(fmt::format("every execution was cut by --max-steps {}: nothing was checked", a.max_steps));
    if (!report.interrupted) throw InternalError("no execution completed: nothing was checked");
    throw UsageError(fmt::format("no execution completed before {}: nothing was checked{}", report.stopped_by,
                                 say_files ? "; the files are put back as they were at the checkpoint" : ""));
  }
  // --limit-exit N: a run without a bug that a limit stopped (StopReason.h)
  // is told from a complete one by its exit status.
  if (report.bugs.empty() && report_lost) return kExitBadInput;
  if (report.bugs.empty() && a.limit_exit >= 0 && !limit_keyword(report).empty()) return a.limit_exit;
  return report.bugs.empty() ? kExitNoBug : kExitBugFound;
}

int replay_command(const std::string& trace_path, const std::string& json_path, bool show_output, bool interactive,
                   const std::string& batch, const std::string& gdb_port, bool checkpoints,
                   const std::string& program_path) {
  JsonReport json(json_path);
  proto::Trace trace = load_trace(trace_path);
  if (!program_path.empty()) {
    // --program: the binary moved (copied with its trace to another
    // machine or directory). It must be the same file: the trace's steps
    // are its code addresses.
    ProgramFacts moved = inspect_program(program_path);
    const proto::Program& then = trace.program();
    if (!then.content_hash().empty() && (moved.content_hash != then.content_hash() || moved.size != then.size()))
      throw UsageError(
          fmt::format("--program {}: not the program the trace was recorded with (content hash {} then, "
                      "{} now)",
                      program_path, then.content_hash(), moved.content_hash));
    trace.mutable_program()->set_path(moved.path);
  }
  // The recording's descriptors (OutputKind.h): its output is shown when it
  // was, and a difference in their kinds is said, since the program may
  // start differently (ffmpeg's heap).
  show_output = show_output || trace.options().show_output();
  if (!trace.options().stdout_kind().empty())
    for (int fd : {1, 2}) {
      const std::string& then = fd == 1 ? trace.options().stdout_kind() : trace.options().stderr_kind();
      std::string now = show_output ? output_kind(fd) : "null";
      if (now != then)
        fmt::print(stderr,
                   "ctrl: warning: the program's {} is {} in this replay but was {} when the trace was recorded: a "
                   "program that starts differently for each may diverge (replay where the recording ran)\n",
                   fd == 1 ? "stdout" : "stderr", describe_output_kind(now), describe_output_kind(then));
    }
  SessionConfig config = replay_config(trace, find_agent(), show_output);
  // A trace runs its program as a script would: say what before it does.
  {
    std::string command = shell_quoted(config.program);
    for (const auto& arg : config.args) command += " " + shell_quoted(arg);
    fmt::print("ctrl: replay runs: {} in {}\n", command, shell_quoted(config.cwd.empty() ? current_dir() : config.cwd));
    if (trace.program().omitted_env_size() > 0)
      fmt::print("ctrl: without the {} variable{} the trace leaves out\n", trace.program().omitted_env_size(),
                 trace.program().omitted_env_size() == 1 ? "" : "s");
    std::fflush(stdout);
  }
  InstrumentationOptions iopts;
  iopts.visible = trace.options().visible().empty() ? "all" : trace.options().visible();
  if (iopts.visible == "shared") iopts.visible = "all";  // the same sites; own memory from the trace (replay_config)
  iopts.libraries.assign(trace.options().instrument().begin(), trace.options().instrument().end());
  Instrumentation instrumentation(config.program, iopts);
  config.sites_fd = instrumentation.fd();
  Session session(config);
  std::string what = trace.bug().kind().empty()
                         ? "a schedule without a bug"
                         : fmt::format("{} bug in execution {}", trace.bug().kind(), trace.execution() + 1);
  if (interactive || !batch.empty() || !gdb_port.empty()) {
    // The stepping session does not carry the decisions' Choices.
    if (model_analysis(config.model).plans_choices())
      throw UsageError(fmt::format("stepping (--interactive, --batch, --gdb) is not available with --model {} yet",
                                   trace.options().model()));
    fmt::print("ctrl: stepping through {} ({} steps, {}); help lists the commands\n", trace_path,
               trace.decisions_size(), what);
    std::fflush(stdout);
    proto::Trace tmpl = trace;
    tmpl.clear_decisions();
    tmpl.clear_signatures();
    tmpl.clear_bug();
    return step_through(session, trace, tmpl, batch, gdb_port, checkpoints);
  }
  fmt::print("ctrl: replaying {} ({} steps, {})\n", trace_path, trace.decisions_size(), what);
  std::fflush(stdout);
  auto start = std::chrono::steady_clock::now();
  ReplayOutcome out = replay(session, trace);
  ExplorationReport report;
  report.strategy = "replay";
  report.total = 1;
  report.complete = out.result.end == ExecutionResult::End::Bug || out.result.end == ExecutionResult::End::Complete;
  report.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The numbers of the execution replayed, counted as attach counts them.
  report.steps = out.result.events.size();
  report.handoffs = count_handoffs(out.result.events);
  bool bug = out.reproduced && out.result.end == ExecutionResult::End::Bug;
  if (bug) {
    report.bugs.push_back(FoundBug{out.result, trace_path});
    report.bugs.back().preemptions = report.bugs.back().preemptions_found = count_preemptions(out.result.events);
    print_bug(stdout, report.bugs.back(), 1, session.symbolizer());
    if (trace.bug().kind().empty())
      fmt::print("\nthe schedule's {} steps ran, then the execution found a {} bug\n", trace.decisions_size(),
                 out.result.kind_name());
    else
      fmt::print("\nreplay reproduced the {} bug\n", out.result.kind_name());
  } else if (out.reproduced) {
    fmt::print("replay followed the schedule's {} steps; the execution ended after {} steps with status {}: no bug\n",
               trace.decisions_size(), out.result.events.size(), out.result.exit_status);
  }
  nlohmann::json j = report_json(report, config.program, trace.options().model());
  if (json.wanted()) add_report_fields(j, report, session.symbolizer());
  bool report_lost = !write_report_file([&] { json.write(j); });  // as attach: the verdict's status wins
  if (!out.reproduced && session.interrupted())                   // the user's stop, not a divergence
    throw UsageError(fmt::format("replay interrupted by {} before the end of the trace: nothing was checked",
                                 session.stop_reason()));
  if (!out.reproduced) {
    fmt::print(stderr, "ctrl: {}\n", out.divergence);
    return kExitBadInput;
  }
  if (!bug && report_lost) return kExitBadInput;
  return bug ? kExitBugFound : kExitNoBug;
}

// `ctrl report TRACE --html FILE --dot FILE` (issue 25, item 4): replays the
// trace, as `ctrl replay` does, for its execution's events, and draws them
// (reports/ExecutionPicture.h). The exit status is replay's.
int report_command(const std::string& trace_path, const std::string& html_path, const std::string& dot_path) {
  if (html_path.empty() && dot_path.empty())
    throw UsageError("report: nothing to write (give --html FILE or --dot FILE)");
  ReportFile html("--html", html_path), dot("--dot", dot_path);
  proto::Trace trace = load_trace(trace_path);
  SessionConfig config = replay_config(trace, find_agent(), false);
  InstrumentationOptions iopts;
  iopts.visible = trace.options().visible().empty() ? "all" : trace.options().visible();
  if (iopts.visible == "shared") iopts.visible = "all";  // as replay_command
  iopts.libraries.assign(trace.options().instrument().begin(), trace.options().instrument().end());
  Instrumentation instrumentation(config.program, iopts);
  config.sites_fd = instrumentation.fd();
  Session session(config);
  ReplayOutcome out = replay(session, trace);
  if (!out.reproduced && session.interrupted())
    throw UsageError(
        fmt::format("report interrupted by {} before the end of the trace: nothing drawn", session.stop_reason()));
  if (!out.reproduced) {
    fmt::print(stderr, "ctrl: {}\n", out.divergence);
    return kExitBadInput;
  }
  PictureSource source{&out.result, trace_choices(trace),
                       trace.options().model().empty() ? "sc" : trace.options().model(), config.program, trace_path};
  nlohmann::json picture = execution_picture(source, session.symbolizer());
  html.write(html_page(picture));
  dot.write(dot_graph(picture));
  fmt::print(
      "ctrl: drew {} ({} steps, {} threads{}){}{}\n", trace_path, out.result.events.size(), picture["lanes"].size(),
      out.result.end == ExecutionResult::End::Bug ? fmt::format(", {} bug", out.result.kind_name()) : "",
      html_path.empty() ? "" : ": " + html_path, dot_path.empty() ? "" : (html_path.empty() ? ": " : ", ") + dot_path);
  return out.result.end == ExecutionResult::End::Bug ? kExitBugFound : kExitNoBug;
}

}  // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"ctrl: systematic concurrency testing of unmodified x86-64 Linux programs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(CTRL_VERSION));

  AttachArgs a;
  auto* attach_cmd = app.add_subcommand("attach", "run PROGRAM under ctrl and explore its interleavings");
  attach_cmd->footer(
      "ctrl attach [OPTIONS] [--] PROGRAM [ARGS...]: options of ctrl go before PROGRAM; everything from PROGRAM on "
      "is passed to it unchanged (as with gdb --args).");
  attach_cmd
      ->add_option("--strategy", a.strategy,
                   "exploration strategy. dpor+probes (the default): dpor alone for its first 256 executions, "
                   "1000000 steps or 8 executions cut by --max-steps, then, while it has not finished, every "
                   "other execution a probe sampled by pos or pct (depth 2 or 3, in turn), 1024 of them, then "
                   "one per 32 dpor executions, so that shallow "
                   "bugs DPOR's depth-first order would reach late are found early; exhaustive when dpor "
                   "finishes, probes counted apart "
                   "(with --preemption-bound, --equivalence rf or --model c11/rc11: dpor alone); "
                   "dpor: systematic, exhaustive when it finishes; random: a uniform "
                   "choice among the enabled threads at every step; pct: probabilistic concurrency testing "
                   "(Burckhardt et al., ASPLOS 2010): random thread priorities, the highest-priority enabled "
                   "thread runs, and at D-1 random change points the thread about to run drops below all "
                   "others. Every other execution draws them over its steps and finds a bug of depth D (D "
                   "ordering constraints) among n threads in k steps with probability at least 1/(n*k^(D-1)), "
                   "k the longest execution seen so far; the others draw them over the write steps (stores, "
                   "read-modify-writes, locks and unlocks, thread creation and exit, w the most seen) taken "
                   "where another thread could run, let a thread that yields run again once a thread that "
                   "never yielded has run, and find a bug whose D-1 preemptions each come just before a "
                   "write with probability at least 1/(n*w^(D-1)); "
                   "pos: partial order sampling (Yuan et al., CAV 2018): every thread's next operation has a "
                   "random priority, the highest runs, and operations that race with the one that ran get new "
                   "ones, so racing operations meet in either order about equally often however long the "
                   "execution; round-robin: the next enabled thread in turn; sat (experimental, --model sc): "
                   "SAT-directed search for behaviours, not interleavings (SATCheck): each execution is one a "
                   "SAT solver found in which some read gets a value never seen there; behaviour-complete when "
                   "none is left")
      ->check(CLI::IsMember({"dpor+probes", "dpor", "random", "pct", "pos", "round-robin", "sat"}))
      ->capture_default_str();
  attach_cmd->add_option("--seed", a.seed_text, "seed of random, pct, pos and the default's probes")
      ->type_name("N")
      ->capture_default_str();
  attach_cmd
      ->add_option(
          "--pct-depth", a.pct_depth_text,
          fmt::format("with --strategy pct: the bug depth D it aims at, from 1 to {} (default: 3)", shm::kMaxPctDepth))
      ->type_name("D");
  // Optimal-DPOR is not offered (issue 23 item 4): it still misses classes
  // or diverges on mutual-exclusion programs, so --dpor has one value for
  // users; developers reach it with CTRL_EXPERIMENTAL=1 (the cross-checks).
  const char* experimental = getenv("CTRL_EXPERIMENTAL");
  bool optimal_dpor = experimental && std::string_view(experimental) == "1";
  attach_cmd
      ->add_option("--dpor", a.dpor, "source: source sets and sleep sets (may run some redundant, blocked executions)")
      ->check(optimal_dpor ? CLI::IsMember({"source", "optimal"}) : CLI::IsMember({"source"}))
      ->capture_default_str();
  attach_cmd
      ->add_option("--equivalence", a.equivalence,
                   "which executions count as the same under --model sc and tso. mazurkiewicz (the default): "
                   "the same order of every two conflicting operations (a write and an access of the same "
                   "bytes, two operations on one mutex); rf: every read reads from the same write (stores "
                   "nobody reads between are not run in both orders), so fewer executions; systematic "
                   "(dpor) only; the program may use memory accesses, mutexes and thread creation, exit "
                   "and join (other synchronisation stops it, saying so); refused with pso, and with c11, "
                   "rc11 and ra, which explore by reads-from already")
      ->check(CLI::IsMember({"mazurkiewicz", "rf"}))
      ->capture_default_str();
  attach_cmd
      ->add_option("--model", a.model,
                   "sc: sequential consistency; tso: x86-TSO, every thread's plain stores go through a "
                   "FIFO store buffer whose flushes are explored like thread steps; pso: one FIFO per "
                   "thread and 8-byte location, so stores to different locations may reach memory out "
                   "of order (sfence keeps them in order); c11, rc11: the C11 memory model (rc11: the "
                   "repaired RC11 of Lahav et al., PLDI 2017, which forbids load buffering; c11 allows it): "
                   "each atomic load may read any store its memory order allows, not only the latest; "
                   "only atomics that are libatomic calls are followed, so build the program with "
                   "-fno-inline-atomics -latomic; instruction-site atomics (lock-prefixed, xchg, mfence) and "
                   "pthread calls are treated as seq_cst (SC). With c11/rc11: --strategy dpor only, one "
                   "session (-j 1). "
                   // --model ra (issue 23): TRACER's release-acquire model, explored by weak trace.
                   "ra: release-acquire (TRACER, OOPSLA 2018): every atomic write is a release and every "
                   "atomic read an acquire, whatever order the program gave (relaxed is strengthened, "
                   "seq_cst weakened to acquire/release, fences order nothing more); read-modify-writes "
                   "are both and atomic; one execution per weak trace (program order plus which store "
                   "each load reads), never one per order of stores nobody reads; libatomic calls only, "
                   "as for c11; locked instructions and pthread calls as seq_cst. --strategy dpor only, "
                   "-j 1, no stepping, no live checkpoints")
      ->check(CLI::IsMember({"sc", "tso", "pso", "c11", "rc11", "ra"}))
      ->capture_default_str();
  attach_cmd
      ->add_option("--monitor", a.monitor,
                   "sober: check every SC execution for a load x86-TSO could make read a stale value "
                   "(bug kind tso-unsafe)")
      ->check(CLI::IsMember({"sober"}));
  attach_cmd
      ->add_option("--preemption-bound", a.preemption_bound_text,
                   "iterative context bounding: every schedule with at most 0, 1, ... N preemptions "
                   "(no partial-order reduction within the bound; N from 0 to 64)")
      ->type_name("N");
  attach_cmd->add_option("--max-executions", a.max_executions_text, "stop after N executions")
      ->type_name("N")
      ->capture_default_str();
  attach_cmd->add_option("--time-limit", a.time_limit_text, "stop after SECONDS (0: no limit)")
      ->type_name("SECONDS")
      ->capture_default_str();
  attach_cmd->add_option("--max-steps", a.max_steps_text, "visible operations per execution before it is cut")
      ->type_name("N")
      ->capture_default_str();
  attach_cmd
      ->add_option("--hang-timeout", a.hang_timeout_text,
                   "a thread that uses SECONDS of CPU time, or sleeps SECONDS in a system call, without a "
                   "visible operation is a hang")
      ->type_name("SECONDS")
      ->capture_default_str();
  attach_cmd
      ->add_option("--fail-on-exit", a.fail_on_exit,
                   "exit statuses of the program that are a bug (kind exit-status): nonzero, or a list such "
                   "as 1,3-5 (default: none; a Rust panic is a bug of kind panic anyway)")
      ->type_name("nonzero|LIST");
  attach_cmd->add_option("--json", a.json, "write a JSON report to FILE");
  attach_cmd->add_option("--sarif", a.sarif, "write the bugs as SARIF 2.1.0 to FILE (code scanning, editors)");
  attach_cmd->add_option("--junit", a.junit, "write the run as JUnit XML to FILE (CI test results)");
  attach_cmd->add_option("--limit-exit", a.limit_exit_text,
                         "exit with status N (4-125) instead of 0 when no bug was found and a limit stopped the "
                         "search (--max-executions, --time-limit, --max-steps, a signal)");
  attach_cmd
      ->add_option("--progress-every", a.progress_every_text,
                   "when stderr is not a terminal, a progress line every SECONDS (0: none)")
      ->capture_default_str();
  attach_cmd->add_option("--trace-dir", a.trace_dir, "where bug traces are saved")->capture_default_str();
  attach_cmd
      ->add_option("--omit-env", a.omit_env,
                   "leave environment variables whose names match PATTERN (a glob) out of traces, as known secret "
                   "names (*TOKEN*, *SECRET*, *PASSWORD*, AWS_*, ...) always are (repeatable)")
      ->type_name("PATTERN")
      ->allow_extra_args(false);
  attach_cmd->add_flag("--show-output", a.show_output, "let the program's stdout/stderr through (implies -j 1)");
  attach_cmd
      ->add_option("-j,--jobs", a.jobs_text,
                   "sessions exploring at once: random, pct and pos share ranges of seeds, dpor and the default "
                   "share work items; results are those of -j 1 (default: 1, as -j 2 is slower on runs of a "
                   "fraction of a second; always 1 with --model c11/rc11)")
      ->type_name("N");
  attach_cmd
      ->add_option("--state", a.state_dir,
                   "save the unexplored frontier of random, pct or pos to DIR, every second and when stopped")
      ->type_name("DIR");
  attach_cmd
      ->add_option("--resume", a.resume_dir,
                   "go on from the frontier saved in DIR (same program and options), saving on to it")
      ->type_name("DIR");
  attach_cmd->add_flag("--mpi", a.mpi,
                       "one rank of an MPI job (mpirun -np N ctrl attach --mpi ...): the ranks share the seeds of "
                       "random, pct and pos, or the work items of dpor and the default; rank 0 reports");
  attach_cmd->add_flag("--keep-going", a.keep_going,
                       "collect distinct bugs (same kind and place once) instead of stopping at the first");
  attach_cmd->add_flag("--no-shrink", a.no_shrink,
                       "report a bug's schedule as found, without looking for fewer preemptions");
  attach_cmd->add_flag(
      "--no-checkpoints", a.no_checkpoints,
      "run every execution from the start, not from a live checkpoint on its path (same results, slower)");
  attach_cmd->add_flag("--no-rollback", a.no_rollback,
                       "fork a new process for every execution instead of rolling one back in place (same results, "
                       "slower)");
  attach_cmd->add_flag("--kernel-handoffs", a.kernel_handoffs,
                       "wake the next thread's own kernel thread at every thread change, instead of switching to "
                       "it within the running kernel thread where the agent can (same results, slower)");
  attach_cmd
      ->add_option("--visible", a.visible,
                   "all: every non-stack memory access of instrumented code is a scheduling point; "
                   "atomics: only synchronisation calls and locked/xchg/fence instructions; shared: all, "
                   "except a thread's accesses to its own stack and static TLS while no other thread touches "
                   "them (an exploration that finds one touched starts again with it shared); auto: shared, "
                   "but atomics from the start again once an execution is cut by --max-steps (said in the "
                   "summary)")
      ->check(CLI::IsMember({"auto", "all", "shared", "atomics"}))
      ->capture_default_str();
  attach_cmd
      ->add_option("--races", a.races,
                   "on: under --model sc, tso and pso, a data race (two threads access the same bytes, one "
                   "writes, one access is not atomic, no happens-before between them) on the static data of "
                   "the program or its libraries is a bug (data-race); all: on any memory, the heap too (malloc "
                   "and free are not visible: a block malloc hands from one thread to another through its own "
                   "lock can look racy); off: not checked (c11/rc11 always check)")
      ->check(CLI::IsMember({"on", "all", "off"}))
      ->capture_default_str();
  attach_cmd->add_flag("--interactive", a.interactive,
                       "step through one execution at a prompt instead of exploring (help lists the commands)");
  attach_cmd->add_option("--batch", a.batch, "with --interactive: read the prompt's commands from FILE")
      ->type_name("FILE");
  attach_cmd
      ->add_option("--gdb", a.gdb_port,
                   "serve the stepping session to gdb on 127.0.0.1:PORT (0: any free port) instead of the prompt")
      ->type_name("PORT");
  attach_cmd->add_option("--instrument", a.instrument, "also make LIB's instructions visible (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);

  std::string trace_path, replay_json;
  bool replay_output = false;
  auto* replay_cmd = app.add_subcommand("replay", "re-run a saved trace and reproduce its bug");
  replay_cmd->add_option("trace", trace_path, "trace file")->required();
  replay_cmd->add_option("--json", replay_json, "write a JSON report to FILE");
  replay_cmd->add_flag("--show-output", replay_output, "let the program's stdout/stderr through");
  bool replay_interactive = false;
  std::string replay_batch;
  replay_cmd->add_flag("--interactive", replay_interactive,
                       "step through the trace's execution at a prompt (help lists the commands)");
  replay_cmd->add_option("--batch", replay_batch, "with --interactive: read the prompt's commands from FILE")
      ->type_name("FILE");
  bool replay_no_checkpoints = false;
  replay_cmd->add_flag(
      "--no-checkpoints", replay_no_checkpoints,
      "with --interactive/--batch/--gdb: going back always re-runs from the start (no live checkpoints)");
  std::string replay_program;
  replay_cmd
      ->add_option("--program", replay_program,
                   "run PATH instead of the program the trace recorded (a binary moved elsewhere); refused "
                   "unless it is the same file")
      ->type_name("PATH");
  std::string replay_gdb;
  replay_cmd
      ->add_option("--gdb", replay_gdb,
                   "serve the trace's execution to gdb on 127.0.0.1:PORT (0: any free port) instead of the prompt")
      ->type_name("PORT");

  std::string report_trace, report_html, report_dot;
  auto* report_cmd = app.add_subcommand(
      "report",
      "draw a saved trace's execution: an HTML page (lanes, deciding steps, reads-from, store buffers) or a "
      "Graphviz graph");
  report_cmd->add_option("trace", report_trace, "trace file")->required();
  report_cmd
      ->add_option("--html", report_html,
                   "write a self-contained HTML page (no network) to FILE: one lane per thread, every step with "
                   "its source line, the deciding pair and the preemptions highlighted, reads-from arrows under "
                   "c11/rc11/ra, buffered stores and their flushes under tso/pso")
      ->type_name("FILE");
  report_cmd
      ->add_option("--dot", report_dot,
                   "write the execution graph in Graphviz DOT to FILE (program order, reads-from, the deciding "
                   "pairs, flushes): `dot -Tsvg FILE`")
      ->type_name("FILE");
  report_cmd->footer(
      "exits as `ctrl replay` does: 1 when the trace's bug came back, 0 without a bug, 2 when the "
      "replay diverged (nothing written)");

  // `attach`'s own arguments end at PROGRAM (or at "--"): everything from
  // PROGRAM on is the program's, unchanged and in order, whatever it looks
  // like. CLI11 only sees ctrl's part, so it can neither reorder the
  // program's arguments nor take "--help" or "--seed 3" after PROGRAM for
  // its own.
  std::vector<std::string> args(argv, argv + argc);
  if (argc >= 2 && args[1] == "attach") {
    size_t j = 2;
    for (; j < args.size(); ++j) {
      const std::string& arg = args[j];
      if (arg == "--") {
        a.command.assign(args.begin() + long(j) + 1, args.end());
        break;
      }
      if (arg.size() < 2 || arg[0] != '-') {
        a.command.assign(args.begin() + long(j), args.end());
        break;
      }
      std::string name = arg.substr(0, arg.find('='));
      const CLI::Option* opt = attach_cmd->get_option_no_throw(name);
      if (!opt) throw UsageError(fmt::format("attach: unknown option {} (ctrl's options go before PROGRAM)", name));
      if (opt->get_items_expected_min() > 0 && arg.find('=') == std::string::npos) ++j;  // its value
    }
    args.resize(std::min(j, args.size()));
  }
  std::vector<char*> cli_argv;
  for (auto& arg : args) cli_argv.push_back(arg.data());
  try {
    app.parse(int(cli_argv.size()), cli_argv.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  if (attach_cmd->parsed()) {
    if (a.command.empty()) throw UsageError("attach: no PROGRAM given (ctrl attach [OPTIONS] [--] PROGRAM [ARGS...])");
    a.strategy_given = attach_cmd->count("--strategy") > 0;
    a.convert();
    return attach(a);
  }
  if (report_cmd->parsed()) return report_command(report_trace, report_html, report_dot);
  return replay_command(trace_path, replay_json, replay_output, replay_interactive, replay_batch, replay_gdb,
                        !replay_no_checkpoints, replay_program);
}

}  // namespace ctrl

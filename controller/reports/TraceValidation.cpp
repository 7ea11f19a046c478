#include "reports/TraceValidation.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "Bug.h"
#include "Operation.h"
#include "SharedRegion.h"
#include "cli/ExitStatus.h"
#include "cli/FailOnExit.h"

namespace ctrl {

namespace {

constexpr std::array<std::string_view, 10> kStrategies = {"",    "dpor", "dpor+probes", "dpor-optimal", "dpor-rf",
                                                          "pct", "pos",  "random",      "round-robin",  "sat"};
constexpr std::array<std::string_view, 7> kModels = {"", "sc", "tso", "pso", "c11", "rc11", "ra"};
constexpr std::array<std::string_view, 4> kVisible = {"", "all", "shared", "atomics"};
constexpr std::array<std::string_view, 2> kMonitors = {"", "sober"};
// session/OutputKind.h
constexpr std::array<std::string_view, 8> kOutputKinds = {"",     "null",   "terminal", "file",
                                                          "pipe", "socket", "device",   "closed"};
// No real environment variable or argument comes near this.
constexpr uint32_t kMaxVariableLength = 1u << 20;

template <size_t N>
bool known(const std::array<std::string_view, N>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool has_nul(const std::string& s) { return s.find('\0') != std::string::npos; }

// A thread number as decisions and signatures carry it: a thread, or a
// store buffer's flush actor (kFlushActorBase + thread).
bool thread_number(uint32_t t) { return t < shm::kMaxThreads; }

struct Invalid {
  const std::string& path;
  template <typename... Args>
  [[noreturn]] void operator()(fmt::format_string<Args...> what, Args&&... args) const {
    throw UsageError(
        fmt::format("'{}': trace file is invalid ({})", path, fmt::format(what, std::forward<Args>(args)...)));
  }
};

// Names from a file are shown cut short and without control characters.
std::string shown(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  return s.size() > 40 ? out + "..." : out;
}

void validate_program(const proto::Program& p, const Invalid& invalid) {
  // No path at all is said by the replay ("the trace's program cannot be run").
  if (!p.path().empty() && (p.path()[0] != '/' || has_nul(p.path())))
    invalid("the program's path '{}' is not an absolute path", shown(p.path()));
  if (!p.content_hash().empty() &&
      (p.content_hash().size() != 16 || !std::all_of(p.content_hash().begin(), p.content_hash().end(),
                                                     [](char c) { return std::isxdigit(uint8_t(c)); })))
    invalid("content hash '{}' is not 16 hex digits", shown(p.content_hash()));
  if (!p.cwd().empty() && (p.cwd()[0] != '/' || has_nul(p.cwd())))
    invalid("working directory '{}' is not an absolute path", shown(p.cwd()));
  for (int k = 0; k < p.args_size(); ++k)
    if (has_nul(p.args(k))) invalid("argument {} holds a NUL byte", k + 1);
  for (int k = 0; k < p.env_size(); ++k)
    if (has_nul(p.env(k))) invalid("environment variable {} holds a NUL byte", k + 1);
  const uint64_t whole = uint64_t(p.env_size()) + uint64_t(p.omitted_env_size());
  int64_t last = -1;
  for (const auto& o : p.omitted_env()) {
    if (o.index() >= whole || int64_t(o.index()) <= last)
      invalid("left-out variable '{}' at place {}: out of order or past the environment's {} variables",
              shown(o.name()), o.index(), whole);
    if (o.length() == 0 || o.length() > kMaxVariableLength)
      invalid("left-out variable '{}' of length {}", shown(o.name()), o.length());
    last = o.index();
  }
}

void validate_options(const proto::Options& o, const Invalid& invalid) {
  if (!known(kStrategies, o.strategy())) invalid("unknown strategy '{}'", shown(o.strategy()));
  if (!known(kModels, o.model())) invalid("unknown memory model '{}'", shown(o.model()));
  if (!known(kVisible, o.visible())) invalid("unknown visible setting '{}'", shown(o.visible()));
  if (!known(kMonitors, o.monitor())) invalid("unknown monitor '{}'", shown(o.monitor()));
  if (!known(kOutputKinds, o.stdout_kind())) invalid("unknown stdout kind '{}'", shown(o.stdout_kind()));
  if (!known(kOutputKinds, o.stderr_kind())) invalid("unknown stderr kind '{}'", shown(o.stderr_kind()));
  // The bounds `ctrl attach` puts on --max-steps and --hang-timeout.
  if (o.max_steps() > 50000000) invalid("max steps {} above 50000000", o.max_steps());
  if (o.hang_timeout_ms() > 1000000000u) invalid("hang timeout {} ms above 1000000 s", o.hang_timeout_ms());
  if (o.pct_depth() > shm::kMaxPctDepth) invalid("pct depth {} above {}", o.pct_depth(), shm::kMaxPctDepth);
  try {
    parse_fail_on_exit(o.fail_on_exit(), "--fail-on-exit");
  } catch (const UsageError&) {
    invalid("fail-on-exit '{}' is not a list of exit statuses", shown(o.fail_on_exit()));
  }
  for (const auto& lib : o.instrument())
    if (lib.empty() || has_nul(lib)) invalid("an empty library name to instrument");
  if (o.shared_size() % 2 != 0 || size_t(o.shared_size()) > 2 * size_t(shm::kMaxShared))
    invalid("{} numbers in the shared set (address, size pairs; at most {})", o.shared_size(),
            2 * size_t(shm::kMaxShared));
  for (int k = 0; k + 1 < o.shared_size(); k += 2)
    if (o.shared(k + 1) == 0 || o.shared(k) + o.shared(k + 1) < o.shared(k))
      invalid("shared range {} is empty or wraps round", k / 2 + 1);
}

void validate_steps(const proto::Trace& t, const Invalid& invalid) {
  // A kind this ctrl does not know (a trace of a newer one, or an edit)
  // could never be reproduced: said here rather than as a divergence.
  if (!bug_kind_from_name(t.bug().kind())) invalid("unknown bug kind '{}'", shown(t.bug().kind()));
  if (!t.bug().kind().empty() && !thread_number(t.bug().thread()))
    invalid("the bug's thread {} (ctrl runs at most {} threads)", t.bug().thread(), shm::kMaxThreads);
  if (t.signatures_size() != t.decisions_size())
    invalid("{} decisions but {} step signatures", t.decisions_size(), t.signatures_size());
  for (int k = 0; k < t.decisions_size(); ++k) {
    const auto& s = t.signatures(k);
    if (!thread_number(t.decisions(k)))
      invalid("step {} decides for thread {} (ctrl runs at most {} threads)", k + 1, t.decisions(k), shm::kMaxThreads);
    if (s.thread() != t.decisions(k))
      invalid("step {}: decision for thread {} but its signature is thread {}'s", k + 1, t.decisions(k), s.thread());
    if (s.kind() >= uint32_t(OpKind::Count)) invalid("step {}: unknown operation kind {}", k + 1, s.kind());
    if (s.flags() > 0xff) invalid("step {}: unknown event flags {:#x}", k + 1, s.flags());
  }
  if (t.choices_size() > t.decisions_size())
    invalid("{} choices for {} decisions", t.choices_size(), t.decisions_size());
  for (int k = 0; k < t.choices_size(); ++k) {
    const auto& c = t.choices(k);
    if (c.kind() > uint32_t(shm::ChoiceKind::Promise) || (c.flags() & ~uint32_t(shm::kNotMoLast)) != 0)
      invalid("choice {} of unknown kind {} or flags {:#x}", k + 1, c.kind(), c.flags());
    if (c.kind() == uint32_t(shm::ChoiceKind::ReadFrom) && c.from() != shm::kFromInit && c.from() >= uint32_t(k))
      invalid("choice {} reads from step {}, not an earlier one", k + 1, c.from() + 1);
    if (c.kind() == uint32_t(shm::ChoiceKind::Promise) && !thread_number(c.from()))
      invalid("choice {} is a promise by thread {}", k + 1, c.from());
  }
}

}  // namespace

void validate_trace(const std::string& path, const proto::Trace& trace) {
  Invalid invalid{path};
  validate_program(trace.program(), invalid);
  validate_options(trace.options(), invalid);
  validate_steps(trace, invalid);
}

}  // namespace ctrl

// What a bug is, as one typed value that crosses every layer: the agent's
// outcome turned into it by the session, the analyses' checks (races,
// uninitialised loads: analyses/Strategy.h; Sober's TSO safety) return it,
// and reports, the JSON, SARIF, JUnit, the prompt and the gdb server read it.
// The kinds, their names and properties are listed once, in BugKinds.def.
//
// Invariants: kind None means no bug (then every other field is empty);
// `accesses` name steps of the execution the bug was found in, in the order
// the kind gives them (data-race: the two racing accesses, first one first;
// uninitialized-load: the load; tso-unsafe: the load, the write it misses,
// and the delayed store when there is one); `waits` has one entry per thread
// of a deadlock that had not finished.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ctrl {

enum class BugKind : uint8_t {
#define CTRL_BUG(name, text, props, rule) name,
#include "BugKinds.def"
#undef CTRL_BUG
  Count
};

namespace bug_props {
enum : uint8_t {
  Stuck = 1 << 0,
  Verdict = 1 << 1,
  Model = 1 << 2,
  Signal = 1 << 3,
};

struct Row {
  std::string_view name;
  uint8_t props;
  std::string_view rule;
};

inline constexpr Row kTable[] = {
#define CTRL_BUG(name, text, props, rule) {text, uint8_t(props), rule},
#include "BugKinds.def"
#undef CTRL_BUG
};
static_assert(std::size(kTable) == size_t(BugKind::Count));

constexpr const Row& of(BugKind k) { return kTable[uint8_t(k) < uint8_t(BugKind::Count) ? uint8_t(k) : 0]; }
}  // namespace bug_props

// The kind's name as traces, the JSON and reports spell it ("" for None).
constexpr std::string_view bug_kind_name(BugKind k) { return bug_props::of(k).name; }
// One line saying what the kind means (SARIF's rule description).
constexpr std::string_view bug_kind_rule(BugKind k) { return bug_props::of(k).rule; }
// The kind a trace or a JSON names; nothing for a name no kind has (a trace
// from a newer ctrl). "" is None.
inline std::optional<BugKind> bug_kind_from_name(std::string_view name) {
  for (uint8_t k = 0; k < uint8_t(BugKind::Count); ++k)
    if (bug_props::kTable[k].name == name) return BugKind(k);
  return std::nullopt;
}
constexpr bool bug_is_stuck(BugKind k) { return bug_props::of(k).props & bug_props::Stuck; }
constexpr bool bug_is_verdict(BugKind k) { return bug_props::of(k).props & bug_props::Verdict; }
constexpr bool bug_is_model(BugKind k) { return bug_props::of(k).props & bug_props::Model; }
constexpr bool bug_has_signal(BugKind k) { return bug_props::of(k).props & bug_props::Signal; }

// One memory access a bug is about: a step of the execution.
struct BugAccess {
  uint64_t step = UINT64_MAX;  // index in the execution's events
  // Filled in from the step's event by whoever holds the events (the
  // analyses give the step only).
  uint32_t thread = UINT32_MAX;
  uint16_t op = 0;  // OpKind
  uint64_t site = 0, addr = 0;
};

// One thread of a deadlock: what it waits in, on what, and for whom.
struct BugWait {
  uint32_t thread = 0;
  uint16_t op = 0;                  // OpKind it is blocked in
  uint64_t object = 0;              // the address it waits on, 0 if none
  uint32_t waits_for = UINT32_MAX;  // the thread it waits for, when known
};

// The structured facts of a bug, beside its kind and message.
struct BugFacts {
  int signal = 0;           // the signal that ended the thread (crash, assertion), 0 none
  uint64_t fault_addr = 0;  // the faulting address (SIGSEGV, SIGBUS), 0 unknown
  uint64_t address = 0;     // the data a model bug is about (a byte of the racing accesses, the loaded location)
  // The bug's code address is the return address of the failing call (the
  // agent reports assert() and abort() so): its line is the call's.
  bool at_return_address = false;
  std::vector<BugAccess> accesses;
  std::vector<BugWait> waits;
};

struct Bug {
  BugKind kind = BugKind::None;
  std::string message;
  BugFacts facts;
};

}  // namespace ctrl

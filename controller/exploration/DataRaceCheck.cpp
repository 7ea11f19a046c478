#include "exploration/DataRaceCheck.h"

#include <fmt/format.h>

#include <string_view>

#include "sites/AtomicDeclarations.h"
#include "HbRaces.h"
#include "exploration/ModelBugs.h"
#include "session/Session.h"
#include "binary/Symbolizer.h"

namespace ctrl {

namespace {

// Libraries whose synchronisation is their own atomics and futexes, in code
// ctrl does not instrument: the happens-before they create is invisible.
constexpr std::string_view kOpaqueSync[][2] = {
    {"libgomp.", "OpenMP"}, {"libomp.", "OpenMP"},   {"libiomp5.", "OpenMP"},
    {"libtbb.", "oneTBB"},  {"libtbb12.", "oneTBB"}, {"libglib-2.0.", "GLib"},
};

}  // namespace

void DataRaceCheck::load() {
  Symbolizer& symbols = session_.symbolizer();
  for (const std::string& module : symbols.module_names())
    for (const auto& [prefix, what] : kOpaqueSync)
      if (module.starts_with(prefix) && summary_.unchecked.empty())
        summary_.unchecked = fmt::format(
            "the program synchronises through {} ({}, not instrumented), whose locks and barriers ctrl does not see: "
            "every access "
            "they order would be reported as a race",
            what, module);
  uint64_t bias = 0;
  Dwarf* dwarf = summary_.unchecked.empty() ? symbols.module_dwarf(session_.config().program, &bias) : nullptr;
  declared_ = read_declared_atomics(dwarf, bias);
  summary_.debug_info = declared_->had_debug_info;
  // Without debug information an inline atomic (a relaxed, acquire or
  // release load or store is a plain mov) cannot be told from a plain
  // access: a stripped program (every Debian tool) would get false races.
  if (summary_.unchecked.empty() && !declared_->had_debug_info)
    summary_.unchecked =
        "the program has no debug information: its inline atomics (plain moves) cannot be told from plain accesses";
}

std::optional<Bug> DataRaceCheck::examine(const ExecutionResult& r) {
  if (!may_have_model_bug(r) || r.events.empty()) return std::nullopt;
  if (!declared_) load();
  if (!summary_.unchecked.empty()) return std::nullopt;
  const DeclaredAtomics& known = *declared_;
  std::vector<std::pair<uint64_t, uint64_t>> static_data;
  if (!all_) static_data = session_.symbolizer().module_images();
  HbRaceCheck found = find_hb_races(r.events.data(), r.events.size(), known, [this] { return session_.should_stop(); },
                                    all_ ? nullptr : &static_data);
  if (found.stopped) return std::nullopt;
  ++summary_.executions;
  Symbolizer& symbols = session_.symbolizer();
  std::string treated;
  for (const auto& t : found.treated) {
    std::string what =
        fmt::format("{} ({})", t.name.empty() ? symbols.describe_data(t.address) : t.name, evidence_name(t.why));
    treated += (treated.empty() ? "" : ", ") + what;
    if (!seen_.insert(what).second) continue;
    if (summary_.treated.size() < kMaxTreated)
      summary_.treated.push_back(what);
    else
      ++summary_.treated_more;
  }
  if (found.races.empty()) return std::nullopt;
  std::optional<Bug> bug = first_model_bug(
      r, found.races, symbols, [](uint64_t) { return true; },
      [&](uint64_t addr) -> std::string {
        const auto* f = known.field_at(addr);
        return f ? f->name : "";
      });
  if (!bug) return std::nullopt;
  if (found.treated_more) treated += fmt::format(" and {} more", found.treated_more);
  if (treated.empty()) treated = "nothing (no atomic access in this execution)";
  bug->message += "\n  treated as atomic: " + treated;
  if (!known.had_debug_info)
    bug->message +=
        "\n  (the program has no debug information: plain accesses were taken for atomic only on bytes a "
        "libatomic call or a locked instruction touched)";
  return bug;
}

}  // namespace ctrl

#include "DataRaceCheck.h"

#include <fmt/format.h>

#include "AtomicDeclarations.h"
#include "HbRaces.h"
#include "ModelBugs.h"
#include "Session.h"
#include "Symbolizer.h"

namespace ctrl {

const DeclaredAtomics& DataRaceCheck::declared() {
  if (!declared_) {
    uint64_t bias = 0;
    Dwarf* dwarf = session_.symbolizer().module_dwarf(session_.config().program, &bias);
    declared_ = read_declared_atomics(dwarf, bias);
  }
  return *declared_;
}

void DataRaceCheck::check(ExecutionResult& r) {
  if (!may_have_model_bug(r) || r.events.empty()) return;
  const DeclaredAtomics& known = declared();
  HbRaceCheck found = find_hb_races(r.events.data(), r.events.size(), known, [this] { return session_.should_stop(); });
  if (found.races.empty()) return;
  Symbolizer& symbols = session_.symbolizer();
  adopt_model_bug(r, found.races, symbols, [](uint64_t) { return true; });
  std::string treated;
  for (const auto& t : found.treated) {
    if (!treated.empty()) treated += ", ";
    std::string what = t.name.empty() ? symbols.describe_data(t.address) : t.name;
    treated += fmt::format("{} ({})", what, evidence_name(t.why));
  }
  if (found.treated_more) treated += fmt::format(" and {} more", found.treated_more);
  if (treated.empty()) treated = "nothing (no atomic access in this execution)";
  r.message += "\n  treated as atomic: " + treated;
  if (!known.had_debug_info)
    r.message +=
        "\n  (the program has no debug information: plain accesses were taken for atomic only on bytes a "
        "libatomic call or a locked instruction touched)";
}

}  // namespace ctrl

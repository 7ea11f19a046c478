#include "reports/BugJson.h"

#include <fmt/format.h>

#include "Operation.h"
#include "binary/Backtracer.h"
#include "binary/Symbolizer.h"
#include "reports/Report.h"
#include "reports/StopReason.h"

namespace ctrl {

namespace {

nlohmann::json thread_json(uint32_t t) { return t == UINT32_MAX ? nlohmann::json(nullptr) : nlohmann::json(t); }

std::string op_text(uint16_t op) { return std::string(op_name(OpKind(op))); }

}  // namespace

uint64_t bug_code_address(const ExecutionResult& r) {
  if (!r.site) return 0;
  return r.facts.at_return_address ? r.site - 1 : r.site;
}

uint64_t event_code_address(const shm::Event& e) {
  auto kind = OpKind(e.kind);
  bool exact = (e.flags & shm::kInstruction) || kind == OpKind::ThreadStart || kind == OpKind::ThreadExit ||
               kind == OpKind::ProcessExit;
  if (!e.site) return 0;
  return exact ? e.site : e.site - 1;
}

nlohmann::json code_location_json(uint64_t addr, const Symbolizer& symbols) {
  if (!addr) return nullptr;
  Symbolizer::CodePlace p = symbols.code_place(addr);
  return {{"address", fmt::format("{:#x}", addr)},
          {"function", p.function},
          {"file", p.path},
          {"line", p.line},
          {"module", p.module}};
}

nlohmann::json bug_details_json(const FoundBug& bug, Symbolizer& symbols) {
  const ExecutionResult& r = bug.result;
  nlohmann::json accesses = nlohmann::json::array();
  for (const BugAccess& a : r.facts.accesses)
    accesses.push_back({{"step", a.step == UINT64_MAX ? nlohmann::json(nullptr) : nlohmann::json(a.step + 1)},
                        {"thread", thread_json(a.thread)},
                        {"op", op_text(a.op)},
                        {"data_address", fmt::format("{:#x}", a.addr)},
                        {"data", a.addr ? symbols.describe_data(a.addr) : ""},
                        {"location", code_location_json(a.site, symbols)}});
  nlohmann::json waits = nlohmann::json::array();
  for (const BugWait& w : r.facts.waits)
    waits.push_back({{"thread", w.thread},
                     {"op", op_text(w.op)},
                     {"object", w.object ? nlohmann::json(symbols.describe_data(w.object)) : nlohmann::json(nullptr)},
                     {"waits_for", thread_json(w.waits_for)}});
  nlohmann::json stacks = nlohmann::json::array();
  for (const ThreadBacktrace& bt : r.backtraces) {
    nlohmann::json frames = nlohmann::json::array();
    for (uint64_t f : bt.frames) {
      uint64_t ip = f & ~Backtracer::kExactIp;
      // The agent's own frames are ctrl's, not the program's.
      if (symbols.in_module(ip, "libctrl-agent")) continue;
      // Return addresses point after the call; the call's line is wanted.
      frames.push_back(code_location_json((f & Backtracer::kExactIp) ? ip : ip - 1, symbols));
    }
    stacks.push_back({{"thread", thread_json(bt.thread)}, {"tid", bt.tid}, {"state", bt.state}, {"frames", frames}});
  }
  nlohmann::json steps = nlohmann::json::array();
  for (size_t i = 0; i < r.events.size(); ++i) {
    const shm::Event& e = r.events[i];
    uint32_t thread = OpKind(e.kind) == OpKind::Flush ? e.owner : e.thread;
    steps.push_back({{"step", i + 1},
                     {"thread", thread},
                     {"op", op_text(e.kind)},
                     {"text", describe_event(e, symbols)},
                     {"location", code_location_json(event_code_address(e), symbols)}});
  }
  return {{"location", code_location_json(bug_code_address(r), symbols)},
          {"signal", r.facts.signal ? nlohmann::json(r.facts.signal) : nlohmann::json(nullptr)},
          {"fault_address",
           r.facts.fault_addr ? nlohmann::json(fmt::format("{:#x}", r.facts.fault_addr)) : nlohmann::json(nullptr)},
          {"data_address",
           r.facts.address ? nlohmann::json(fmt::format("{:#x}", r.facts.address)) : nlohmann::json(nullptr)},
          {"accesses", accesses},
          {"waits", waits},
          {"stacks", stacks},
          {"steps", steps}};
}

void add_report_fields(nlohmann::json& report, const ExplorationReport& r, Symbolizer& symbols) {
  report["schema_version"] = kJsonSchemaVersion;
  report["ctrl_version"] = CTRL_VERSION;
  std::string limit = limit_keyword(r);
  report["stopped_by_limit"] = limit.empty() ? nlohmann::json(nullptr) : nlohmann::json(limit);
  nlohmann::json& bugs = report["bugs"];
  for (size_t i = 0; i < r.bugs.size() && i < bugs.size(); ++i) bugs[i].update(bug_details_json(r.bugs[i], symbols));
}

}  // namespace ctrl

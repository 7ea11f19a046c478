#include "reports/SarifReport.h"

#include <fmt/format.h>

#include <cctype>
#include <map>

#include "Bug.h"
#include "Operation.h"
#include "binary/Symbolizer.h"
#include "reports/BugJson.h"
#include "reports/Report.h"

namespace ctrl {

namespace {

constexpr const char* kRoot = "SRCROOT";

// RFC 3986: a path's characters outside the unreserved ones and '/' are
// percent-encoded.
std::string uri_path(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~')
      out += char(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

class Locator {
 public:
  Locator(std::string root, const Symbolizer& symbols) : root_(std::move(root)), symbols_(symbols) {
    if (!root_.empty() && root_.back() != '/') root_ += '/';
  }
  const std::string& root() const { return root_; }

  // A SARIF location object for a code address (empty when nothing is known).
  nlohmann::json location(uint64_t addr, const std::string& text = "") const {
    nlohmann::json loc = nlohmann::json::object();
    if (addr) {
      Symbolizer::CodePlace p = symbols_.code_place(addr);
      if (!p.path.empty() && p.line > 0) {
        nlohmann::json artifact;
        if (!root_.empty() && p.path.rfind(root_, 0) == 0)
          artifact = {{"uri", uri_path(p.path.substr(root_.size()))}, {"uriBaseId", kRoot}};
        else if (!p.path.empty() && p.path.front() == '/')
          artifact = {{"uri", "file://" + uri_path(p.path)}};
        else
          artifact = {{"uri", uri_path(p.path)}};
        loc["physicalLocation"] = {{"artifactLocation", artifact}, {"region", {{"startLine", p.line}}}};
      } else {
        loc["physicalLocation"] = {{"address", {{"absoluteAddress", addr}}}};
      }
      if (!p.function.empty())
        loc["logicalLocations"] = nlohmann::json::array({{{"name", p.function}, {"kind", "function"}}});
    }
    if (!text.empty()) loc["message"] = {{"text", text}};
    return loc;
  }

 private:
  std::string root_;
  const Symbolizer& symbols_;
};

nlohmann::json code_flow(const ExecutionResult& r, const Locator& where, Symbolizer& symbols) {
  std::map<uint32_t, nlohmann::json> per_thread;
  for (size_t i = 0; i < r.events.size(); ++i) {
    const shm::Event& e = r.events[i];
    uint32_t thread = OpKind(e.kind) == OpKind::Flush ? e.owner : e.thread;
    nlohmann::json step = {{"location", where.location(event_code_address(e), describe_event(e, symbols))},
                           {"executionOrder", i + 1}};
    if (i + 1 == r.events.size()) step["importance"] = "essential";
    per_thread[thread].push_back(std::move(step));
  }
  nlohmann::json flows = nlohmann::json::array();
  for (auto& [thread, steps] : per_thread)
    flows.push_back({{"id", fmt::format("T{}", thread)},
                     {"message", {{"text", fmt::format("thread T{}", thread)}}},
                     {"locations", std::move(steps)}});
  return {{"message", {{"text", fmt::format("the interleaving: {} steps", r.events.size())}}},
          {"threadFlows", std::move(flows)}};
}

}  // namespace

nlohmann::json sarif_log(const ExplorationReport& report, const std::string& program, const std::string& root,
                         Symbolizer& symbols) {
  Locator where(root, symbols);
  nlohmann::json rules = nlohmann::json::array();
  for (uint8_t k = 1; k < uint8_t(BugKind::Count); ++k)
    rules.push_back({{"id", std::string(bug_kind_name(BugKind(k)))},
                     {"shortDescription", {{"text", std::string(bug_kind_rule(BugKind(k)))}}},
                     {"defaultConfiguration", {{"level", "error"}}}});
  nlohmann::json results = nlohmann::json::array();
  for (const FoundBug& b : report.bugs) {
    const ExecutionResult& r = b.result;
    nlohmann::json result = {{"ruleId", std::string(r.kind_name())},
                             {"ruleIndex", int(r.kind) - 1},
                             {"level", "error"},
                             {"message", {{"text", r.message}}}};
    nlohmann::json here = where.location(bug_code_address(r));
    if (!here.empty()) result["locations"] = nlohmann::json::array({here});
    // The accesses the bug is about (the racing pair, the missed write).
    nlohmann::json related = nlohmann::json::array();
    for (size_t i = 0; i < r.facts.accesses.size(); ++i) {
      const BugAccess& a = r.facts.accesses[i];
      uint64_t code = a.step < r.events.size() ? event_code_address(r.events[a.step]) : a.site;
      nlohmann::json loc =
          where.location(code, fmt::format("T{} {} (step {})", a.thread, op_name(OpKind(a.op)), a.step + 1));
      loc["id"] = i;
      related.push_back(std::move(loc));
    }
    if (!related.empty()) result["relatedLocations"] = std::move(related);
    if (!r.events.empty()) result["codeFlows"] = nlohmann::json::array({code_flow(r, where, symbols)});
    result["properties"] = {{"execution", r.execution + 1},
                            {"thread", r.thread},
                            {"preemptions", b.preemptions},
                            {"occurrences", b.occurrences},
                            {"trace", b.trace_path}};
    results.push_back(std::move(result));
  }
  nlohmann::json run = {
      {"tool", {{"driver", {{"name", "ctrl"}, {"version", CTRL_VERSION}, {"rules", std::move(rules)}}}}},
      {"invocations", nlohmann::json::array({{{"executionSuccessful", true}}})},
      {"results", std::move(results)},
      {"properties",
       {{"program", program},
        {"strategy", report.strategy},
        {"executions", report.total},
        {"exhaustive", report.exhaustive},
        {"elapsed_seconds", report.elapsed}}}};
  if (!where.root().empty()) run["originalUriBaseIds"] = {{kRoot, {{"uri", "file://" + uri_path(where.root())}}}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", nlohmann::json::array({std::move(run)})}};
}

}  // namespace ctrl

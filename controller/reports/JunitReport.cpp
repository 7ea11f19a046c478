#include "reports/JunitReport.h"

#include <fmt/format.h>

#include <filesystem>

#include "binary/Symbolizer.h"
#include "reports/BugJson.h"
#include "reports/StopReason.h"
#include "reports/XmlText.h"

namespace ctrl {

std::string junit_xml(const ExplorationReport& report, const std::string& program, Symbolizer& symbols) {
  std::string name = std::filesystem::path(program).filename().string();
  std::string cases;
  for (const FoundBug& b : report.bugs) {
    const ExecutionResult& r = b.result;
    uint64_t at = bug_code_address(r);
    std::string line = at ? symbols.source_line(at) : "";
    std::string where = at ? symbols.describe_code(at) : "";
    std::string title = fmt::format("{}{}", r.kind_name(), line.empty() ? "" : " at " + line);
    std::string first = r.message.substr(0, r.message.find('\n'));
    std::string body = r.message;
    if (!where.empty()) body += fmt::format("\n  in T{} at {}", r.thread, where);
    body += fmt::format("\nexecution {}, {} steps, {} preemption{}", r.execution + 1, r.events.size(), b.preemptions,
                        b.preemptions == 1 ? "" : "s");
    if (!b.trace_path.empty())
      body += fmt::format("\ntrace saved to {}\n  replay it with: ctrl replay {}", b.trace_path, b.trace_path);
    cases += fmt::format(
        "    <testcase classname=\"ctrl.{}\" name=\"{}\" time=\"0\">\n"
        "      <failure type=\"{}\" message=\"{}\">{}</failure>\n"
        "    </testcase>\n",
        xml_escape(name), xml_escape(title), xml_escape(std::string(r.kind_name())), xml_escape(first),
        xml_escape(body));
  }
  if (report.bugs.empty()) {
    std::string covered = report.exhaustive ? "every interleaving ran (exhaustive)"
                                            : fmt::format("not exhaustive: {}", stop_reason_text(report));
    cases += fmt::format(
        "    <testcase classname=\"ctrl.{}\" name=\"interleavings\" time=\"{:.3f}\">\n"
        "      <system-out>{} executions, no bug; {}</system-out>\n"
        "    </testcase>\n",
        xml_escape(name), report.elapsed, report.total, xml_escape(covered));
  }
  size_t tests = report.bugs.empty() ? 1 : report.bugs.size();
  std::string properties = fmt::format(
      "      <property name=\"program\" value=\"{}\"/>\n"
      "      <property name=\"strategy\" value=\"{}\"/>\n"
      "      <property name=\"executions\" value=\"{}\"/>\n"
      "      <property name=\"exhaustive\" value=\"{}\"/>\n"
      "      <property name=\"stopped_by_limit\" value=\"{}\"/>\n"
      "      <property name=\"ctrl_version\" value=\"{}\"/>\n",
      xml_escape(program), xml_escape(report.strategy), report.total, report.exhaustive ? "true" : "false",
      xml_escape(limit_keyword(report)), CTRL_VERSION);
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"ctrl\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" time=\"{2:.3f}\">\n"
      "  <testsuite name=\"ctrl {3}\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" skipped=\"0\" time=\"{2:.3f}\">\n"
      "    <properties>\n{4}    </properties>\n"
      "{5}"
      "  </testsuite>\n"
      "</testsuites>\n",
      tests, report.bugs.size(), report.elapsed, xml_escape(name), properties, cases);
}

}  // namespace ctrl

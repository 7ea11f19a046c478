#include "reports/DotGraph.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace ctrl {

namespace {

// A DOT string literal's contents.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

std::string node(size_t i) { return fmt::format("s{}", i); }

}  // namespace

std::string dot_graph(const nlohmann::json& picture) {
  std::string out = "digraph execution {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  std::string title = picture["bug"].is_null()
                          ? std::string("an execution without a bug")
                          : fmt::format("{} bug (execution {})", picture["bug"]["kind"].get<std::string>(),
                                        picture["bug"]["execution"].get<uint64_t>());
  out += fmt::format("  label={};\n  labelloc=t;\n",
                     quoted(fmt::format("{}, --model {}: {}", picture["program"].get<std::string>(),
                                        picture["model"].get<std::string>(), title)));
  std::set<size_t> drawn;
  std::map<size_t, std::vector<size_t>> by_lane;
  for (const auto& s : picture["steps"]) {
    drawn.insert(s["i"].get<size_t>());
    by_lane[s["lane"].get<size_t>()].push_back(s["i"].get<size_t>());
  }
  std::map<size_t, const nlohmann::json*> step_at;
  for (const auto& s : picture["steps"]) step_at[s["i"].get<size_t>()] = &s;
  const auto& lanes = picture["lanes"];
  for (size_t lane = 0; lane < lanes.size(); ++lane) {
    out +=
        fmt::format("  subgraph cluster_{} {{\n    label={};\n", lane, quoted(lanes[lane]["name"].get<std::string>()));
    for (size_t i : by_lane[lane]) {
      const nlohmann::json& s = *step_at[i];
      std::string marks;
      for (const auto& m : s["marks"]) marks += " " + m.get<std::string>();
      std::string style;
      if (marks.find("decides") != std::string::npos) style += ", color=red, penwidth=2";
      if (marks.find("preempts") != std::string::npos) style += ", style=\"bold,filled\", fillcolor=\"#ffe8c0\"";
      if (marks.find("flush") != std::string::npos || marks.find("buffered") != std::string::npos)
        style += ", shape=note";
      out += fmt::format("    {} [label={}{}];\n", node(i),
                         quoted(fmt::format("{}: {}\n{}", s["step"].get<uint64_t>(), s["op"].get<std::string>(),
                                            s["source"].get<std::string>())),
                         style);
    }
    out += "  }\n";
  }
  for (const auto& [lane, steps] : by_lane)
    for (size_t k = 1; k < steps.size(); ++k)
      out += fmt::format("  {} -> {} [class=po];\n", node(steps[k - 1]), node(steps[k]));
  bool init = false;
  for (const auto& rf : picture["rf"]) {
    size_t read = rf["read"].get<size_t>();
    if (!drawn.count(read)) continue;
    if (rf["store"].is_null()) {
      if (!init) out += "  init [shape=ellipse, label=\"initial values\", color=\"#008800\"];\n";
      init = true;
      out += fmt::format("  init -> {} [class=rf, color=\"#008800\", label=rf];\n", node(read));
    } else if (drawn.count(rf["store"].get<size_t>())) {
      out += fmt::format("  {} -> {} [class=rf, color=\"#008800\", label=rf];\n", node(rf["store"].get<size_t>()),
                         node(read));
    }
  }
  for (const auto& p : picture["pairs"]) {
    size_t a = p["first"].get<size_t>(), b = p["second"].get<size_t>();
    if (drawn.count(a) && drawn.count(b))
      out += fmt::format("  {} -> {} [class=decides, color=red, penwidth=2, constraint=false];\n", node(a), node(b));
  }
  size_t n = 0;
  for (const auto& w : picture["waits"]) {
    size_t a = w["step"].get<size_t>();
    std::string pending = fmt::format("w{}", n++);
    out += fmt::format("  {} [label={}, style=dashed, color=red];\n", pending,
                       quoted(fmt::format("{} blocked in {} {}", w["thread"].get<std::string>(),
                                          w["pending"].get<std::string>(), w["object"].get<std::string>())));
    if (drawn.count(a))
      out += fmt::format("  {} -> {} [class=wait, color=red, style=dashed, constraint=false];\n", node(a), pending);
  }
  for (const auto& b : picture["buffers"]) {
    if (b["flush"].is_null()) continue;
    size_t s = b["store"].get<size_t>(), f = b["flush"].get<size_t>();
    if (drawn.count(s) && drawn.count(f))
      out += fmt::format("  {} -> {} [class=flush, color=\"#3366cc\", style=dashed, label=flush];\n", node(s), node(f));
  }
  out += "}\n";
  return out;
}

}  // namespace ctrl

// --sarif FILE: the bugs as a SARIF 2.1.0 log (OASIS Static Analysis Results
// Interchange Format), which code scanning services and editors read.
//
// One run (tool "ctrl", one rule per bug kind of BugKinds.def, ruleId = the
// kind's name) with one result per bug: its message, its location (the
// source file and line where the debug information gives them, else the
// function or address as a logical location), and the interleaving as a
// codeFlow with one threadFlow per thread, whose locations are that
// thread's steps with their executionOrder (the step number). A source path
// under the directory ctrl ran in is written relative to it, with uriBaseId
// SRCROOT (originalUriBaseIds gives SRCROOT's absolute URI), so that a CI
// service can map it onto its checkout.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "exploration/Explorer.h"

namespace ctrl {

class Symbolizer;

// `root`: the directory relative paths are taken from (absolute, no
// trailing slash needed); `program`: the executable's path.
nlohmann::json sarif_log(const ExplorationReport& report, const std::string& program, const std::string& root,
                         Symbolizer& symbols);

}  // namespace ctrl

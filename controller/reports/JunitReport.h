// --junit FILE: the run as JUnit XML, which CI services show as test results.
//
// One <testsuite> per ctrl run, named after the program. Each bug is a
// <testcase> (name: its kind and source line) with a <failure> whose
// message is the bug's first line and whose text is the whole message, the
// location, the trace and how to replay it. A run without a bug is one
// passing <testcase> "interleavings", whose <system-out> says what was
// covered (exhaustive, or the limit that stopped the search). The suite's
// <properties> carry the counts.
#pragma once

#include <string>

#include "exploration/Explorer.h"

namespace ctrl {

class Symbolizer;

std::string junit_xml(const ExplorationReport& report, const std::string& program, Symbolizer& symbols);

}  // namespace ctrl

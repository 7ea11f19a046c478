// The structured part of each bug in the JSON report (and the facts SARIF
// and JUnit are made of): where it happened as fields, every thread's stack,
// every step of the interleaving, and the kind's facts (protocol/Bug.h).
// Report.cpp's report_json() writes the counts and one short entry per bug;
// add_bug_details() completes each entry, so that the two stay one report.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "exploration/Explorer.h"

namespace ctrl {

class Symbolizer;

// The JSON report's layout version: bumped when a field changes meaning or
// goes away (adding fields does not). README "JSON report" lists them.
inline constexpr int kJsonSchemaVersion = 2;

// The code address a bug is reported at: agent-reported failures (assert,
// abort) carry the return address of the failing call, whose line is the
// call's. 0 when unknown.
uint64_t bug_code_address(const ExecutionResult& r);
// The code address of an event: instruction sites and thread starts and
// exits record it exactly, other events the return address of their call.
uint64_t event_code_address(const shm::Event& e);

// {"address", "function", "file", "line", "module"}: file is the source path
// as the debug information names it ("" and line 0 without it); null for 0.
nlohmann::json code_location_json(uint64_t addr, const Symbolizer& symbols);

// The bug's structured fields: location, signal, fault_address,
// data_address, accesses, waits, stacks, steps.
nlohmann::json bug_details_json(const FoundBug& bug, Symbolizer& symbols);

// Adds schema_version, ctrl_version and stopped_by_limit (StopReason.h:
// null when complete) to `report` (report_json's), and bug_details_json to
// each of its bugs, in order.
void add_report_fields(nlohmann::json& report, const ExplorationReport& r, Symbolizer& symbols);

}  // namespace ctrl

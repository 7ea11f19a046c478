// What ctrl tells people: the bug, the numbered interleaving that led to it,
// every thread's backtrace, and a summary; and the same as JSON.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "Explorer.h"

namespace ctrl {

class Symbolizer;

// One line for an event: "T1 mutex_lock m2 at worker+0x1c (x.c:12)".
std::string describe_event(const shm::Event& e, Symbolizer& symbols);
void print_bug(std::FILE* out, const FoundBug& bug, int number, Symbolizer& symbols);
void print_summary(std::FILE* out, const ExplorationReport& report);
nlohmann::json report_json(const ExplorationReport& report, const std::string& program, const std::string& model);
void write_json(const std::string& path, const nlohmann::json& j);

}  // namespace ctrl

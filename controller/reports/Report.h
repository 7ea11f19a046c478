// What ctrl tells people: the bug, the numbered interleaving that led to it,
// every thread's backtrace, and a summary; and the same as JSON.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "exploration/Explorer.h"

namespace ctrl {

class Symbolizer;

// One line for an event: "T1 mutex_lock m2 at worker+0x1c (x.c:12)".
std::string describe_event(const shm::Event& e, Symbolizer& symbols);
// Its parts: the operation ("mutex_lock m2") and the program thread it
// belongs to (a flush: the thread whose buffer it is); its place is
// event_code_address's (BugJson.h).
std::string describe_operation(const shm::Event& e, Symbolizer& symbols);
uint32_t event_thread(const shm::Event& e);
void print_bug(std::FILE* out, const FoundBug& bug, int number, Symbolizer& symbols);
void print_summary(std::FILE* out, const ExplorationReport& report);
nlohmann::json report_json(const ExplorationReport& report, const std::string& program, const std::string& model);

// The --json file, opened before anything runs, so that a path that cannot
// be written is refused at once (exit 2) rather than after the exploration,
// where it would hide the verdict. If nothing gets written, a file it
// created is removed again.
class JsonReport {
 public:
  JsonReport() = default;
  explicit JsonReport(const std::string& path);  // throws UsageError
  ~JsonReport();
  JsonReport(const JsonReport&) = delete;
  JsonReport& operator=(const JsonReport&) = delete;
  // No file asked for: does nothing.
  void write(const nlohmann::json& j);
  // Whether a file was asked for: the per-bug details (every step
  // described) are built only then (seconds for a long bug, after a stop).
  bool wanted() const { return fd_ >= 0; }

 private:
  std::string path_;
  int fd_ = -1;
  bool created_ = false;
  bool written_ = false;
};

}  // namespace ctrl

#include "reports/ExecutionPicture.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "Operation.h"
#include "binary/PointerNames.h"
#include "binary/Symbolizer.h"
#include "reports/BugJson.h"
#include "reports/CalledNames.h"
#include "reports/CauseMarks.h"
#include "reports/ReadsFrom.h"
#include "reports/Report.h"

namespace ctrl {

namespace {

bool draws_reads_from(const std::string& model) { return model == "c11" || model == "rc11" || model == "ra"; }

std::string thread_label(uint32_t t) { return "T" + std::to_string(t); }

}  // namespace

nlohmann::json execution_picture(const PictureSource& source, Symbolizer& symbols) {
  const ExecutionResult& r = *source.result;
  const std::vector<shm::Event>& events = r.events;
  learn_pointer_names(events, symbols);
  CauseMarks marks = find_cause(events, r.blocked);

  nlohmann::json j;
  j["program"] = source.program;
  j["model"] = source.model;
  j["trace"] = source.trace_path;
  j["total_steps"] = events.size();
  j["preemptions"] = marks.preemptions.size();
  if (r.end == ExecutionResult::End::Bug)
    j["bug"] = {{"kind", std::string(r.kind_name())},
                {"message", r.message},
                {"execution", r.execution + 1},
                {"thread", thread_label(r.thread)}};
  else
    j["bug"] = nullptr;

  std::set<uint32_t> threads;
  for (const shm::Event& e : events) threads.insert(event_thread(e));
  for (const shm::Event& p : r.blocked) threads.insert(p.thread);
  std::map<uint32_t, size_t> lane_of;
  j["lanes"] = nlohmann::json::array();
  for (uint32_t t : threads) {
    lane_of[t] = lane_of.size();
    j["lanes"].push_back({{"thread", t}, {"name", thread_label(t)}});
  }

  // Each buffer drains in FIFO order (TSO: one per thread; PSO: one per
  // thread and location), so a flush takes the oldest buffered store of its
  // thread to its location.
  std::map<std::pair<uint32_t, uint64_t>, std::deque<size_t>> waiting;
  std::vector<std::pair<size_t, long>> buffered;  // store, flush (-1: none)
  for (size_t i = 0; i < events.size(); ++i) {
    const shm::Event& e = events[i];
    if (e.flags & shm::kBuffered) {
      waiting[{e.thread, e.addr}].push_back(buffered.size());
      buffered.push_back({i, -1});
    } else if (OpKind(e.kind) == OpKind::Flush) {
      auto& q = waiting[{e.owner, e.addr}];
      if (!q.empty()) {
        buffered[q.front()].second = long(i);
        q.pop_front();
      }
    }
  }
  std::map<size_t, size_t> store_of_flush;
  for (auto [store, flush] : buffered)
    if (flush >= 0) store_of_flush[size_t(flush)] = store;

  std::vector<bool> shown =
      events.size() <= kAllStepsUpTo ? std::vector<bool>(events.size(), true) : steps_to_show(events, marks);
  j["steps"] = nlohmann::json::array();
  size_t hidden = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    if (!shown[i]) {
      ++hidden;
      continue;
    }
    const shm::Event& e = events[i];
    // A flush has no code of its own: it is placed at its store's.
    auto flushed = store_of_flush.find(i);
    uint64_t code = event_code_address(flushed == store_of_flush.end() ? e : events[flushed->second]);
    Symbolizer::CodePlace place = code ? symbols.code_place(code) : Symbolizer::CodePlace{};
    nlohmann::json m = nlohmann::json::array();
    if (marks.preempts(i)) m.push_back("preempts");
    if (marks.decides(i)) m.push_back("decides");
    if (e.flags & shm::kBuffered) m.push_back("buffered");
    if (e.flags & shm::kForwarded) m.push_back("forwarded");
    if (OpKind(e.kind) == OpKind::Flush) m.push_back("flush");
    std::string note = step_note(events, marks, i);
    if (auto at = note.find("<<"); at != std::string::npos) note = note.substr(at + 3);
    j["steps"].push_back({{"i", i},
                          {"step", e.step + 1},
                          {"lane", lane_of[event_thread(e)]},
                          {"thread", thread_label(event_thread(e))},
                          {"kind", op_name(OpKind(e.kind))},
                          {"op", describe_operation(e, symbols)},
                          {"source", code ? symbols.source_line(code) : std::string()},
                          {"function", place.function},
                          {"where", code ? symbols.describe_code(code) : std::string()},
                          {"marks", m},
                          {"note", note},
                          {"hidden_before", hidden}});
    hidden = 0;
  }
  j["hidden_after"] = hidden;

  j["pairs"] = nlohmann::json::array();
  for (const auto& p : marks.pairs) j["pairs"].push_back({{"first", p.first}, {"second", p.second}});
  j["waits"] = nlohmann::json::array();
  for (const auto& p : marks.pending_pairs)
    j["waits"].push_back({{"step", p.step},
                          {"thread", thread_label(p.thread)},
                          {"lane", lane_of[p.thread]},
                          {"pending", called_name(p.pending)},
                          {"object", p.addr ? symbols.describe_data(p.addr) : std::string()}});

  j["rf"] = nlohmann::json::array();
  if (draws_reads_from(source.model))
    for (const ReadFrom& rf : reads_from(events, source.choices))
      j["rf"].push_back(
          {{"read", rf.read},
           {"store", rf.store == ReadFrom::kInitialValue ? nlohmann::json(nullptr) : nlohmann::json(rf.store)}});

  j["buffers"] = nlohmann::json::array();
  for (auto [store, flush] : buffered)
    j["buffers"].push_back({{"store", store}, {"flush", flush < 0 ? nlohmann::json(nullptr) : nlohmann::json(flush)}});
  return j;
}

}  // namespace ctrl

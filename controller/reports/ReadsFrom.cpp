#include "reports/ReadsFrom.h"

#include <unordered_map>

#include "Operation.h"

namespace ctrl {

namespace {

bool reads(const shm::Event& e) { return e.addr && op_reads_memory(OpKind(e.kind)); }

// Whether the event's write reached memory (a failed compare-exchange
// writes nothing; a store placed before a newer one in mo leaves memory).
bool writes_memory(const shm::Event& e, const shm::Choice* c) {
  if (!e.addr || !op_writes_memory(OpKind(e.kind))) return false;
  if (e.flags & shm::kFailed) return false;
  return !(c && (c->flags & shm::kNotMoLast));
}

}  // namespace

std::vector<ReadFrom> reads_from(const std::vector<shm::Event>& events, const std::vector<shm::Choice>& choices) {
  std::vector<ReadFrom> out;
  std::unordered_map<uint64_t, size_t> index_of_step;  // a Choice names steps
  for (size_t i = 0; i < events.size(); ++i) index_of_step.emplace(events[i].step, i);
  std::unordered_map<uint64_t, size_t> in_memory;  // location -> latest store that wrote memory
  auto choice_of = [&](size_t i) -> const shm::Choice* {
    uint32_t step = events[i].step;
    return step < choices.size() ? &choices[step] : nullptr;
  };
  for (size_t i = 0; i < events.size(); ++i) {
    const shm::Event& e = events[i];
    const shm::Choice* c = choice_of(i);
    if (reads(e)) {
      ReadFrom rf{i, ReadFrom::kInitialValue};
      if (c && c->kind == shm::ChoiceKind::ReadFrom) {
        auto it = index_of_step.find(c->from);
        if (c->from != shm::kFromInit && it != index_of_step.end()) rf.store = it->second;
      } else if (c && c->kind == shm::ChoiceKind::Promise) {
        for (size_t j = i + 1; j < events.size(); ++j)
          if (events[j].thread == c->from && events[j].addr == e.addr && op_writes_memory(OpKind(events[j].kind)) &&
              !(events[j].flags & shm::kFailed) && events[j].value_written == c->value) {
            rf.store = j;
            break;
          }
      } else if (auto it = in_memory.find(e.addr); it != in_memory.end()) {
        rf.store = it->second;
      }
      out.push_back(rf);
    }
    if (writes_memory(e, c)) in_memory[e.addr] = i;
  }
  return out;
}

}  // namespace ctrl

#include "exploration/TsoSafety.h"

#include <fmt/format.h>

#include "SoberMonitor.h"
#include "binary/Symbolizer.h"

namespace ctrl {

std::optional<Bug> TsoSafetyMonitor::examine(const ExecutionResult& r) {
  auto b = find_borderline(r.events.data(), r.events.size());
  if (!b) return std::nullopt;
  return explain_borderline(r, *b, symbols_);
}

void TsoSafetyMonitor::adopt(ExecutionResult& r, Bug bug) const {
  uint64_t load = bug.facts.accesses.front().step;
  adopt_bug(r, std::move(bug));
  // The interleaving up to the load is the witness.
  r.events.resize(load + 1);
}

Bug explain_borderline(const ExecutionResult& r, const Borderline& found, Symbolizer& symbols) {
  const Borderline* b = &found;
  const shm::Event& load = r.events[b->load];
  const shm::Event& write = r.events[b->missed_write];
  std::string message = fmt::format("T{} loads {} at {}; under x86-TSO it may not see T{}'s write of it at {} yet",
                                    load.thread, symbols.describe_data(load.addr), symbols.describe_code(load.site),
                                    write.thread, symbols.describe_code(write.site));
  if (b->delayed_store != UINT64_MAX) {
    const shm::Event& store = r.events[b->delayed_store];
    message += fmt::format(
        ", because T{}'s earlier store to {} at {} can still sit in its store buffer: an outcome sequential "
        "consistency forbids. A full fence (mfence, atomic_thread_fence(memory_order_seq_cst)) between {} and {} "
        "forbids it",
        load.thread, symbols.describe_data(store.addr), symbols.describe_code(store.site),
        symbols.source_line(store.site).empty() ? symbols.describe_code(store.site) : symbols.source_line(store.site),
        symbols.source_line(load.site).empty() ? symbols.describe_code(load.site) : symbols.source_line(load.site));
  } else {
    message += ": an outcome sequential consistency forbids; a full fence before the load forbids it";
  }
  Bug bug = borderline_bug(found);
  bug.message = message;
  return bug;
}

}  // namespace ctrl

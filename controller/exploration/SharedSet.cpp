#include "exploration/SharedSet.h"

#include <algorithm>

namespace ctrl {

uint64_t shared_bytes(const std::vector<SharedRange>& set) {
  uint64_t n = 0;
  for (const auto& r : set) n += r.size;
  return n;
}

uint64_t add_shared(std::vector<SharedRange>& set, const std::vector<SharedRange>& more) {
  uint64_t before = shared_bytes(set);
  std::vector<SharedRange> all = set;
  for (const auto& r : more)
    if (r.size) all.push_back(r);
  std::sort(all.begin(), all.end(), [](const SharedRange& a, const SharedRange& b) { return a.addr < b.addr; });
  std::vector<SharedRange> merged;
  for (const auto& r : all) {
    if (!merged.empty() && r.addr <= merged.back().addr + merged.back().size) {
      uint64_t end = std::max(merged.back().addr + merged.back().size, r.addr + r.size);
      merged.back().size = end - merged.back().addr;
    } else {
      merged.push_back(r);
    }
  }
  set = std::move(merged);
  return shared_bytes(set) - before;
}

void write_shared(shm::Header& h, bool own_memory, const std::vector<SharedRange>& set) {
  bool fits = set.size() <= shm::kMaxShared;
  h.own_memory = own_memory && fits ? 1 : 0;
  h.nshared = fits ? uint32_t(set.size()) : 0;
  if (fits) std::copy(set.begin(), set.end(), h.shared);
}

void set_trace_shared(proto::Options& o, const std::vector<SharedRange>& set) {
  o.clear_shared();
  for (const auto& r : set) {
    o.add_shared(r.addr);
    o.add_shared(r.size);
  }
}

std::vector<SharedRange> trace_shared(const proto::Options& o) {
  std::vector<SharedRange> set;
  for (int k = 0; k + 1 < o.shared_size(); k += 2) set.push_back({o.shared(k), o.shared(k + 1)});
  return set;
}

}  // namespace ctrl

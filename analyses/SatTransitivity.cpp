#include "SatTransitivity.h"

#include <algorithm>

#include "SatEncoder.h"

namespace ctrl {

void SatTransitivity::refresh() {
  const auto& nodes = g_.nodes();
  const size_t instances = g_.instances().size();
  with_.assign(nodes.size(), {});
  auto note = [&](uint32_t n, uint32_t i) {
    auto& w = with_[n];
    if (std::find(w.begin(), w.end(), i) == w.end()) w.push_back(i);
  };
  for (const auto& [pair, var] : e_.o_) {
    uint32_t a = uint32_t(pair >> 32), b = uint32_t(pair);
    note(a, nodes[b].instance);
    note(b, nodes[a].instance);
  }
  lists_.assign(instances, std::vector<std::vector<uint32_t>>(instances));
  for (uint32_t j = 0; j < instances; ++j)
    for (uint32_t n : g_.instances()[j].nodes)
      if (nodes[n].known)
        for (uint32_t i : with_[n]) lists_[j][i].push_back(n);
}

bool SatTransitivity::ordered_with(uint32_t n, uint32_t instance) const {
  if (n >= with_.size()) return false;
  const auto& w = with_[n];
  return std::find(w.begin(), w.end(), instance) != w.end();
}

const std::vector<uint32_t>& SatTransitivity::ordered(uint32_t j, uint32_t i) const {
  static const std::vector<uint32_t> none;
  return j < lists_.size() && i < lists_[j].size() ? lists_[j][i] : none;
}

void SatTransitivity::next_ordered(uint32_t b, uint32_t i, std::vector<uint32_t>& out) {
  const auto& nodes = g_.nodes();
  if (seen_.size() < nodes.size()) seen_.resize(nodes.size(), 0);
  if (++stamp_ == 0) {
    std::fill(seen_.begin(), seen_.end(), 0);
    stamp_ = 1;
  }
  out.clear();
  std::vector<uint32_t> todo{b};
  while (!todo.empty()) {
    uint32_t d = todo.back();
    todo.pop_back();
    for (const SatEdge& e : nodes[d].edges) {
      uint32_t c = e.child;
      if (c >= nodes.size() || !nodes[c].known || seen_[c] == stamp_) continue;
      seen_[c] = stamp_;
      if (ordered_with(c, i))
        out.push_back(c);
      else
        todo.push_back(c);
    }
  }
}

bool SatTransitivity::encode(const std::function<bool()>& stop) {
  const uint32_t instances = uint32_t(g_.instances().size());
  if (edges_done_.size() < instances) edges_done_.resize(instances);
  std::vector<std::pair<uint32_t, uint32_t>> all, fresh;
  std::vector<uint32_t> next;
  for (uint32_t j = 0; j < instances; ++j)
    for (uint32_t i = 0; i < instances; ++i) {
      if (i == j || ordered(i, j).empty()) continue;
      if (stop && stop()) return false;
      // j's chains as seen from i: its nodes ordered against i, each
      // followed by the next such nodes below it.
      all.clear();
      fresh.clear();
      for (uint32_t b : ordered(j, i)) {
        next_ordered(b, i, next);
        for (uint32_t c : next) {
          all.emplace_back(b, c);
          if (edges_done_[i].insert(uint64_t(b) << 32 | c).second) fresh.emplace_back(b, c);
        }
      }
      for (uint32_t a : ordered(i, j)) {
        bool rowed = !rowed_.insert(uint64_t(a) << 32 | j).second;
        for (auto [b, c] : rowed ? fresh : all) e_.clause({-e_.order(a, b), e_.order(a, c)});
      }
    }
  return true;
}

}  // namespace ctrl

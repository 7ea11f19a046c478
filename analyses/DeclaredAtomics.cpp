#include "DeclaredAtomics.h"

#include <algorithm>

namespace ctrl {

const char* evidence_name(AtomicEvidence e) {
  switch (e) {
    case AtomicEvidence::DwarfAtomic:
      return "DWARF atomic type";
    case AtomicEvidence::DwarfVolatile:
      return "DWARF volatile";
    case AtomicEvidence::InlineScope:
      return "inlined atomic member function";
    case AtomicEvidence::AtomicEvent:
      return "locked instruction or libatomic call";
    case AtomicEvidence::None:
      break;
  }
  return "plain";
}

void DeclaredAtomics::add_variable(uint64_t start, uint64_t end, std::string name, AtomicEvidence why) {
  if (start < end) variables_.push_back({start, end, std::move(name), why});
}

void DeclaredAtomics::add_code(uint64_t start, uint64_t end, std::string name) {
  if (start < end) code_.push_back({start, end, std::move(name), AtomicEvidence::InlineScope});
}

void DeclaredAtomics::add_field(uint64_t start, uint64_t end, std::string name) {
  if (start < end) fields_.push_back({start, end, std::move(name), AtomicEvidence::None});
}

void DeclaredAtomics::normalise(std::vector<Range>& list) {
  std::stable_sort(list.begin(), list.end(), [](const Range& a, const Range& b) { return a.start < b.start; });
  std::vector<Range> kept;
  kept.reserve(list.size());
  for (Range& r : list) {
    if (!kept.empty() && r.start < kept.back().end) {
      if (r.end <= kept.back().end) continue;
      r.start = kept.back().end;  // the part the earlier range does not cover
    }
    kept.push_back(std::move(r));
  }
  list = std::move(kept);
}

void DeclaredAtomics::finish() {
  normalise(variables_);
  normalise(code_);
  normalise(fields_);
}

const DeclaredAtomics::Range* DeclaredAtomics::find(const std::vector<Range>& list, uint64_t addr) {
  auto it = std::upper_bound(list.begin(), list.end(), addr, [](uint64_t a, const Range& r) { return a < r.start; });
  if (it == list.begin()) return nullptr;
  --it;
  return addr < it->end ? &*it : nullptr;
}

const DeclaredAtomics::Range* DeclaredAtomics::variable_in(uint64_t addr, uint64_t size) const {
  // The first range ending after addr.
  auto it = std::upper_bound(variables_.begin(), variables_.end(), addr,
                             [](uint64_t a, const Range& r) { return a < r.end; });
  return it != variables_.end() && it->start < addr + size ? &*it : nullptr;
}

}  // namespace ctrl

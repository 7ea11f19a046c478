#include "debug/BreakpointSet.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "cli/ExitStatus.h"
#include "debug/NumberText.h"
#include "sites/OperationSite.h"
#include "session/Session.h"
#include "binary/Symbolizer.h"

namespace ctrl {

const Breakpoint& BreakpointSet::added(Breakpoint b) {
  b.number = next_number_++;
  breakpoints_.push_back(std::move(b));
  return breakpoints_.back();
}

const Breakpoint& BreakpointSet::add(const std::string& location) {
  Symbolizer& symbols = session_.symbolizer();
  Breakpoint b;
  b.spec = location;
  // gdb's `break *ADDRESS` is an address too.
  std::string number = location.starts_with("*") ? location.substr(1) : location;
  if (auto addr = parse_number(number)) {
    return add_address(*addr);
  } else if (size_t colon = location.rfind(':'); colon != std::string::npos) {
    auto line = parse_number(location.substr(colon + 1));
    std::string file = location.substr(0, colon);
    if (!line || file.empty()) throw UsageError(fmt::format("break: '{}' is not FILE:LINE", location));
    if (symbols.line_addresses(file, int(*line)).empty())
      throw UsageError(fmt::format("break: no code at {} in the program", location));
    size_t slash = file.rfind('/');
    b.file = slash == std::string::npos ? file : file.substr(slash + 1);
    b.line = int(*line);
  } else {
    auto range = symbols.find_symbol(location, true);
    if (!range) throw UsageError(fmt::format("break: no function \"{}\" in the program", location));
    b.function_start = range->first;
    b.function_end = range->second;
  }
  return added(std::move(b));
}

const Breakpoint& BreakpointSet::add_address(uint64_t address) {
  Symbolizer& symbols = session_.symbolizer();
  Breakpoint b;
  b.spec = fmt::format("{:#x}", address);
  b.address = address;
  // An operation on the same line of the same function matches too: a
  // breakpoint address is where a line's code starts, an operation's site
  // is somewhere in it.
  b.lines = symbols.lines_at(address);
  std::string line = symbols.source_line(address);
  if (b.lines.empty() && !line.empty()) b.lines.push_back(line);
  if (size_t colon = line.rfind(':'); colon != std::string::npos) {
    b.file = line.substr(0, colon);
    b.line = std::atoi(line.c_str() + colon + 1);
    std::string fn = symbols.function_name(address);
    if (!fn.empty())
      if (auto range = symbols.find_symbol(fn, true); range && address >= range->first && address < range->second) {
        b.function_start = range->first;
        b.function_end = range->second;
      }
  }
  return added(std::move(b));
}

const Breakpoint& BreakpointSet::add_watch(const std::string& target) {
  Breakpoint b;
  b.kind = Breakpoint::Kind::Watch;
  b.spec = target;
  std::string name = target.starts_with("&") ? target.substr(1) : target;
  if (auto addr = parse_number(name)) {
    b.address = *addr;
    b.size = 1;
  } else if (auto range = session_.symbolizer().find_symbol(name, false)) {
    b.address = range->first;
    b.size = range->second - range->first;
  } else {
    throw UsageError(fmt::format("watch: no variable \"{}\" in the program (give an address: watch 0x...)", name));
  }
  return added(std::move(b));
}

const Breakpoint& BreakpointSet::add_watch(uint64_t address, uint64_t size, Breakpoint::Access access,
                                           std::string spec) {
  if (size == 0) throw UsageError(fmt::format("watch: {} has no bytes to watch", spec));
  Breakpoint b;
  b.kind = Breakpoint::Kind::Watch;
  b.spec = std::move(spec);
  b.address = address;
  b.size = size;
  b.access = access;
  return added(std::move(b));
}

bool BreakpointSet::remove(int number) {
  auto it =
      std::find_if(breakpoints_.begin(), breakpoints_.end(), [&](const Breakpoint& b) { return b.number == number; });
  if (it == breakpoints_.end()) return false;
  breakpoints_.erase(it);
  return true;
}

void BreakpointSet::remove_address(uint64_t address) {
  breakpoints_.erase(std::remove_if(breakpoints_.begin(), breakpoints_.end(),
                                    [&](const Breakpoint& b) {
                                      return b.kind == Breakpoint::Kind::Code && b.address == address &&
                                             b.spec.starts_with("0x");
                                    }),
                     breakpoints_.end());
}

Breakpoint* BreakpointSet::hit(const shm::ThreadSlot& slot) {
  auto kind = OpKind(slot.pending_kind);
  uint64_t site = slot.pending_site;
  for (Breakpoint& b : breakpoints_) {
    if (b.kind == Breakpoint::Kind::Watch || !site) continue;
    // A call's site is its return address, which may start the next
    // line: only an exact site (an instruction) matches by address.
    bool instruction = kind == OpKind::Load || kind == OpKind::Store || kind == OpKind::Rmw;
    if (instruction && site == b.address) return &b;
    // A thread's start is at its function's entry, before any of its
    // lines: only a function breakpoint (below) stops it.
    if (kind == OpKind::ThreadStart && b.line > 0) continue;
    uint64_t at = exact_site(kind) ? site : site - 1;
    if (b.function_end && (at < b.function_start || at >= b.function_end)) continue;
    if (!b.lines.empty()) {
      std::string line = session_.symbolizer().source_line(at);
      if (std::find(b.lines.begin(), b.lines.end(), line) != b.lines.end()) return &b;
    } else if (b.line > 0) {
      std::string line = session_.symbolizer().source_line(at);
      if (line == fmt::format("{}:{}", b.file, b.line)) return &b;
    } else if (b.function_end) {
      return &b;
    }
  }
  return nullptr;
}

bool BreakpointSet::triggers(const Breakpoint& b, const shm::Event& e) {
  auto kind = OpKind(e.kind);
  if (b.kind != Breakpoint::Kind::Watch || !e.addr) return false;
  // A flush writes its owner's buffered store to memory; a buffered store
  // itself writes nothing yet, nor does a failed compare-exchange.
  bool writes = kind == OpKind::Flush || (op_writes_memory(kind) && !(e.flags & shm::kBuffered) &&
                                          !(op_is_rmw(kind) && (e.flags & shm::kFailed)));
  bool reads = op_reads_memory(kind);
  bool access = b.access == Breakpoint::Access::Write  ? writes
                : b.access == Breakpoint::Access::Read ? reads
                                                       : writes || reads;
  uint64_t size = e.size ? e.size : 1;
  return access && e.addr < b.address + b.size && b.address < e.addr + size;
}

Breakpoint* BreakpointSet::watch_hit(const shm::Event& e) {
  for (Breakpoint& b : breakpoints_)
    if (triggers(b, e)) return &b;
  return nullptr;
}

}  // namespace ctrl

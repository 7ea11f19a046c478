// What gdb sees of a paused execution: its threads (as gdb numbers and
// names them), a thread's registers (its innermost program frame), its TLS
// block, and memory (read-only). Part of GdbServer (GdbServer.h).
#include <algorithm>
#include <cstdlib>

#include "cli/ExitStatus.h"
#include "gdb/GdbPackets.h"
#include "gdb/GdbServer.h"
#include "Operation.h"
#include "sites/OperationSite.h"
#include "binary/Symbolizer.h"

namespace ctrl {

namespace {

constexpr uint64_t kPage = 4096;

}  // namespace

uint32_t GdbServer::thread_of_step(uint64_t step) {
  uint32_t t = session_.schedule()[step];
  // Under tso/pso a flush actor stands for the thread whose buffer it drains.
  return t >= shm::kFlushActorBase ? t - shm::kFlushActorBase : t;
}

uint32_t GdbServer::next_thread() {
  uint64_t position = session_.position();
  if (position < session_.schedule().size()) return thread_of_step(position);
  if (auto recorded = session_.recorded_next())
    return *recorded >= shm::kFlushActorBase ? *recorded - shm::kFlushActorBase : *recorded;
  if (position > 0) return thread_of_step(position - 1);
  uint64_t enabled = session_.enabled();
  for (uint32_t t = 0; t < 64; ++t)
    if (enabled >> t & 1) return t >= shm::kFlushActorBase ? t - shm::kFlushActorBase : t;
  return 0;
}

std::string GdbServer::tls_address(const std::string& packet) {
  // "qGetTLSAddr:THREAD,OFFSET,LM": the address of OFFSET in the TLS block
  // of the module whose link_map is LM, for THREAD.
  auto arguments = gdb::split(std::string_view(packet).substr(12), ',');
  if (arguments.size() != 3) return "E01";
  auto thread = gdb::parse_thread_id(arguments[0]);
  auto offset = gdb::parse_hex(arguments[1]);
  auto link_map = gdb::parse_hex(arguments[2]);
  if (!thread || !offset || !link_map) return "E01";
  uint32_t index = thread->kind == gdb::ThreadId::Kind::One ? thread->index : general_thread();
  // Only the executable's block is found without glibc's private link_map
  // fields: it is TLS module 1 whenever it has TLS, and its link_map is the
  // one with an empty l_name (the third word of the public struct link_map).
  uint64_t name = 0;
  char first = 1;
  if (!session_.read_memory(*link_map + 8, &name, sizeof name) || !session_.read_memory(name, &first, 1)) return "E01";
  if (first != '\0') return "E02";
  // x86-64: the thread pointer points at tcbhead_t, whose second word is
  // the dtv; dtv[1] (16-byte entries) holds module 1's block.
  uint64_t tp = session_.thread_pointer(index), dtv = 0, block = 0;
  if (tp == 0 || !session_.read_memory(tp + 8, &dtv, sizeof dtv) ||
      !session_.read_memory(dtv + 16, &block, sizeof block) || block == 0 || block == UINT64_MAX)
    return "E03";
  return gdb::hex_number(block + *offset);
}

uint32_t GdbServer::with_pc(uint32_t thread) {
  constexpr int kRipField = 16;
  auto has_pc = [&](uint32_t t) {
    auto registers = registers_of(t);
    return registers && (registers->known >> kRipField & 1);
  };
  if (has_pc(thread)) return thread;
  for (const auto& t : thread_list())
    if (has_pc(t.index)) return t.index;
  return thread;
}

std::vector<ThreadView> GdbServer::thread_list() {
  std::vector<ThreadView> threads = session_.threads();
  if (!threads.empty()) {
    last_threads_ = threads;
    return threads;
  }
  // No process (the execution ended): gdb keeps the threads it knew, as
  // they were last seen, so that it can stand at the end and go back.
  threads = last_threads_;
  // Threads gdb was not shown yet (created since the last stop) are known
  // from the steps they performed.
  std::set<uint32_t> listed;
  for (const auto& t : threads) listed.insert(t.index);
  auto add = [&](uint32_t index) {
    if (index >= shm::kFlushActorBase || !listed.insert(index).second) return;
    ThreadView v;
    v.index = index;
    threads.push_back(v);
  };
  for (const auto& e : session_.events()) add(e.thread);
  if (const ExecutionResult* bug = session_.bug()) add(bug->thread);
  if (threads.empty()) add(0);
  std::sort(threads.begin(), threads.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  for (auto& t : threads) {
    t.state = ThreadView::State::Finished;
    t.description = "the execution has ended, its process is gone" +
                    (t.description.empty() ? "" : "; last seen: " + t.description) +
                    (t.where.empty() ? "" : " at " + t.where);
    t.where.clear();
  }
  return threads;
}

bool GdbServer::known_thread(uint32_t index) {
  for (const auto& t : thread_list())
    if (t.index == index) return true;
  return false;
}

std::optional<ThreadRegisters> GdbServer::registers_of(uint32_t thread) {
  std::optional<ThreadRegisters> registers;
  try {
    registers = session_.registers(thread);
  } catch (const UsageError&) {
    // No process: the execution ended in a crash or an exit. gdb gets the
    // registers the thread had when gdb last saw it, so that it can show
    // where the thread was and go back from there (memory is unreadable).
    // The thread that crashed is shown at the faulting instruction (its
    // other registers are not known).
    const ExecutionResult* bug = session_.bug();
    constexpr int kRipField = 16;
    if (bug && bug->thread == thread && bug->site) {
      ThreadRegisters at_bug;
      at_bug.regs.rip = bug->site;
      at_bug.known = uint64_t{1} << kRipField;
      return at_bug;
    }
    auto it = last_registers_.find(thread);
    if (it != last_registers_.end()) return it->second;
    return std::nullopt;
  }
  if (!registers) return registers;
  constexpr int kRipField = 16;
  // Parked in an interposed call, the program frame's pc is the call's
  // return address: gdb is shown the call itself, which the thread is about
  // to perform (the other registers are the same before and after a call).
  if (registers->known >> kRipField & 1) {
    for (const auto& t : session_.threads()) {
      if (t.index != thread || t.pending_site != registers->regs.rip || exact_site(t.pending)) continue;
      char code[16];
      uint64_t from = registers->regs.rip > sizeof code ? registers->regs.rip - sizeof code : 0;
      if (session_.read_memory(from, code, registers->regs.rip - from))
        if (auto call = gdb::call_before(std::string_view(code, registers->regs.rip - from), registers->regs.rip))
          registers->regs.rip = *call;
    }
  }
  // Stopped at a breakpoint: shown at its address (GdbServer.h).
  if (at_breakpoint_ && at_breakpoint_->first == thread && (registers->known >> kRipField & 1))
    registers->regs.rip = at_breakpoint_->second;
  last_registers_[thread] = *registers;
  return registers;
}

uint32_t GdbServer::general_thread() { return general_thread_ ? *general_thread_ : last_stop_thread_; }

std::string GdbServer::read_registers(const std::string& packet) {
  uint32_t thread = general_thread();
  auto registers = registers_of(thread);
  if (packet[0] == 'g') return gdb::encode_registers(registers);
  auto number = gdb::parse_hex(std::string_view(packet).substr(1));
  if (!number) return "E01";
  auto value = gdb::encode_register(registers, *number);
  return value ? *value : "E45";
}

std::string GdbServer::read_memory(const std::string& packet) {
  auto range = gdb::parse_memory_range(std::string_view(packet).substr(1));
  if (!range) return "E01";
  uint64_t length = std::min<uint64_t>(range->length, (kPacketSize - 16) / 2);
  std::string bytes(length, '\0');
  if (length == 0 || session_.read_memory(range->address, bytes.data(), length)) return gdb::to_hex(bytes);
  // Part of the range may be readable: gdb takes a shorter reply as that.
  uint64_t done = 0;
  while (done < length) {
    uint64_t address = range->address + done;
    uint64_t chunk = std::min(length - done, kPage - address % kPage);
    if (!session_.read_memory(address, bytes.data() + done, chunk)) break;
    done += chunk;
  }
  if (done == 0) return "E14";
  bytes.resize(done);
  return gdb::to_hex(bytes);
}

}  // namespace ctrl

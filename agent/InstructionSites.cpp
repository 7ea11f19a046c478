#include "InstructionSites.h"

#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "HookStack.h"
#include "KernelWaits.h"
#include "LoopState.h"
#include "MemoryModel.h"
#include "OwnMemory.h"
#include "ReadOnlyMemory.h"
#include "Rollback.h"
#include "Runtime.h"
#include "SiteMath.h"
#include "VirtualTsc.h"

namespace ctrl::agent {

InstructionSites sites;

namespace {

constexpr size_t kJumpBack = 14;  // jmp qword [rip+0]; .quad target

struct ModuleLookup {
  const SiteTableHeader* table;
  uint64_t* bases;
  uint64_t* ends;
  bool found[kMaxSiteModules];
};

bool same_file(const char* a, const char* b) {
  char ra[PATH_MAX], rb[PATH_MAX];
  if (!realpath(a, ra) || !realpath(b, rb)) return false;
  return strcmp(ra, rb) == 0;
}

int find_module(dl_phdr_info* info, size_t, void* data) {
  auto* look = static_cast<ModuleLookup*>(data);
  const char* name = info->dlpi_name;
  bool main_program = !name || !*name;
  for (uint32_t m = 0; m < look->table->module_count; ++m) {
    if (look->found[m]) continue;
    bool match = m == 0 ? main_program : (!main_program && same_file(name, look->table->modules[m].path));
    if (!match) continue;
    uint64_t end = 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
      const auto& ph = info->dlpi_phdr[i];
      if (ph.p_type == PT_LOAD) end = std::max<uint64_t>(end, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
    }
    look->bases[m] = info->dlpi_addr;
    look->ends[m] = end;
    look->found[m] = true;
  }
  return 0;
}

// Upper bound of emit_hook_call's output.
constexpr size_t kHookCode = 320;

struct Emitter {
  uint8_t* p;
  void bytes(std::initializer_list<uint8_t> b) {
    for (uint8_t x : b) *p++ = x;
  }
  void u32(uint32_t v) {
    memcpy(p, &v, 4);
    p += 4;
  }
  void u64(uint64_t v) {
    memcpy(p, &v, 8);
    p += 8;
  }
};

// The part of a jump site's trampoline before the relocated instruction:
// step over the red zone, save flags and every general register, save the
// extended state (ExtendedState.h: the hook's C++ and libc may use any
// vector register), call ctrl_site_hook(entry, saved, xsave) on an aligned
// stack (the thread's hook stack, HookStack.h, when it has one and is not on
// it already), and restore it all.
uint8_t* emit_hook_call(uint8_t* out, const InstructionSites::Entry* entry, const ExtendedState& xs) {
  Emitter e{out};
  e.bytes({0x48, 0x8d, 0xa4, 0x24, 0x80, 0xff, 0xff, 0xff});  // lea rsp, [rsp-128]
  e.bytes({0x9c, 0xfc});                                      // pushfq; cld
  e.bytes({0x50, 0x51, 0x52, 0x53, 0x55, 0x56, 0x57});        // push rax rcx rdx rbx rbp rsi rdi
  for (uint8_t r = 0; r < 8; ++r) e.bytes({0x41, uint8_t(0x50 + r)});  // push r8..r15
  e.bytes({0x48, 0x89, 0xe6});                                // mov rsi, rsp
  e.bytes({0x48, 0xbf});                                      // movabs rdi, entry
  e.u64(reinterpret_cast<uint64_t>(entry));
  e.bytes({0x48, 0x89, 0xe3});                                // mov rbx, rsp
  e.bytes({0x64, 0x48, 0x8b, 0x04, 0x25});                    // mov rax, fs:[t_hook_stack_top]
  e.u32(uint32_t(hook_stack_tls_offset()));
  e.bytes({0x48, 0x85, 0xc0});                                // test rax, rax
  e.bytes({0x74, 18});                                        // jz keep
  e.bytes({0x48, 0x89, 0xc1});                                // mov rcx, rax
  e.bytes({0x48, 0x29, 0xe1});                                // sub rcx, rsp
  e.bytes({0x48, 0x81, 0xf9});                                // cmp rcx, kHookStackSize
  e.u32(uint32_t(kHookStackSize));
  e.bytes({0x72, 3});                                         // jb keep (on it already)
  e.bytes({0x48, 0x89, 0xc4});                                // mov rsp, rax
  // keep:
  e.bytes({0x48, 0x83, 0xe4, 0xc0});                          // and rsp, -64
  e.bytes({0x48, 0x81, 0xec});                                // sub rsp, xs.size
  e.u32(xs.size);
  for (uint32_t off = 512; off < 576; off += 8) {             // XSAVE header must start zeroed
    e.bytes({0x48, 0xc7, 0x84, 0x24});                        // mov qword [rsp+off], 0
    e.u32(off);
    e.u32(0);
  }
  e.bytes({0xb8}), e.u32(uint32_t(xs.mask));                  // mov eax, mask (low half)
  e.bytes({0xba}), e.u32(uint32_t(xs.mask >> 32));            // mov edx, mask (high half)
  e.bytes({0x48, 0x0f, uint8_t(xs.compacted ? 0xc7 : 0xae), 0x24, 0x24});  // xsavec64 [rsp], or xsave64
  e.bytes({0x48, 0x89, 0xe2});                                // mov rdx, rsp
  e.bytes({0x48, 0xb8});                                      // movabs rax, ctrl_site_hook
  e.u64(reinterpret_cast<uint64_t>(&ctrl_site_hook));
  e.bytes({0xff, 0xd0});                                      // call rax
  e.bytes({0xb8}), e.u32(uint32_t(xs.mask));                  // mov eax, mask (low half)
  e.bytes({0xba}), e.u32(uint32_t(xs.mask >> 32));            // mov edx, mask (high half)
  e.bytes({0x48, 0x0f, 0xae, 0x2c, 0x24});                    // xrstor64 [rsp] (either format)
  e.bytes({0x48, 0x89, 0xdc});                                // mov rsp, rbx
  for (int r = 7; r >= 0; --r) e.bytes({0x41, uint8_t(0x58 + r)});  // pop r15..r8
  e.bytes({0x5f, 0x5e, 0x5d, 0x5b, 0x5a, 0x59, 0x58});        // pop rdi rsi rbp rbx rdx rcx rax
  e.bytes({0x9d});                                            // popfq
  e.bytes({0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00});  // lea rsp, [rsp+128]
  return e.p;
}

uint64_t page_down(uint64_t a) { return a & ~uint64_t(4095); }
uint64_t page_up(uint64_t a) { return (a + 4095) & ~uint64_t(4095); }

}  // namespace

const char* InstructionSites::load(int fd) {
  SiteTableHeader probe;
  if (pread(fd, &probe, sizeof probe, 0) != ssize_t(sizeof probe) || probe.magic != kSiteTableMagic ||
      probe.version != kSiteTableVersion || probe.module_count == 0 || probe.module_count > kMaxSiteModules)
    return "the site table is not ctrl's";
  size_t size = site_table_size(probe.count);
  void* base = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (base == MAP_FAILED) return "cannot map the site table";
  table_ = static_cast<const SiteTableHeader*>(base);
  sites_ = reinterpret_cast<const Site*>(static_cast<const char*>(base) + sizeof(SiteTableHeader));
  count_ = table_->count;
  patches_ = reinterpret_cast<const SitePatch*>(sites_ + count_);
  if (count_ == 0) return nullptr;
  if (const char* err = resolve_modules()) return err;

  void* mem = mmap(nullptr, count_ * sizeof(Entry), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return "cannot allocate the site index";
  entries_ = static_cast<Entry*>(mem);
  // Sites of modules that are not loaded are left out.
  uint64_t kept = 0;
  for (uint64_t i = 0; i < count_; ++i)
    if (ends_[sites_[i].module])
      entries_[kept++] = Entry{bases_[sites_[i].module] + sites_[i].offset, 0, &sites_[i], &patches_[i], false, 0, 0, 0, 0};
  count_ = kept;
  // The table is sorted by (module, offset): build each module's trampolines.
  uint64_t i = 0;
  while (i < count_) {
    uint64_t j = i;
    while (j < count_ && entries_[j].site->module == entries_[i].site->module) ++j;
    if (const char* err = build_trampolines(entries_[i].site->module, entries_ + i, entries_ + j)) return err;
    i = j;
  }
  std::sort(entries_, entries_ + count_, [](const Entry& a, const Entry& b) { return a.address < b.address; });
  return nullptr;
}

const char* InstructionSites::resolve_modules() {
  ModuleLookup look{table_, bases_, ends_, {}};
  dl_iterate_phdr(find_module, &look);
  for (uint32_t m = 0; m < table_->module_count; ++m) {
    // A library decoded only for its system calls that the loader did not
    // load (another one was found by the same name): its sites are dropped.
    if (!look.found[m] && (table_->modules[m].flags & kModuleSyscallsOnly)) continue;
    if (!look.found[m]) return "an instrumented library is not loaded in the program";
    struct stat st;
    const char* path = m == 0 ? "/proc/self/exe" : table_->modules[m].path;
    if (stat(path, &st) != 0 || uint64_t(st.st_size) != table_->modules[m].file_size)
      return "an instrumented file changed since its sites were decoded";
  }
  return nullptr;
}

const char* InstructionSites::build_trampolines(uint32_t module, Entry* first, Entry* last) {
  if (xstate_.size == 0) xstate_ = ExtendedState::of_this_cpu();
  size_t bytes = 0;
  for (Entry* e = first; e != last; ++e) bytes += e->site->length + e->patch->extra_len + kJumpBack + kHookCode;
  bytes = page_up(bytes);
  // Find free space right after the module (then before it): rip-relative
  // displacements of the copies must stay within +-2 GiB of their targets.
  void* area = MAP_FAILED;
  uint64_t step = 1 << 20;
  for (uint64_t k = 0; k < 1024 && area == MAP_FAILED; ++k) {
    for (int side = 0; side < 2 && area == MAP_FAILED; ++side) {
      uint64_t hint = side == 0 ? page_up(ends_[module]) + k * step : page_down(bases_[module]) - bytes - k * step;
      void* p = mmap(reinterpret_cast<void*>(hint), bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                     -1, 0);
      if (p != MAP_FAILED) area = p;
    }
  }
  if (area == MAP_FAILED) return "no room for trampolines near an instrumented module";
  auto* out = static_cast<uint8_t*>(area);
  for (Entry* e = first; e != last; ++e) {
    const Site& s = *e->site;
    const SitePatch& p = *e->patch;
    e->jump = takes_jump(p);
    if (!e->jump && s.kind != SiteKind::Tsc) trapped_ = true;
    uint64_t start = reinterpret_cast<uint64_t>(out);
    // Each copy moves by its own distance: every rip-relative displacement
    // in it shrinks by that.
    auto relocate = [&](uint8_t* at, int64_t moved) {
      int32_t d32;
      memcpy(&d32, at, 4);
      int64_t disp = int64_t(d32) - moved;
      if (disp < INT32_MIN || disp > INT32_MAX) return false;
      d32 = int32_t(disp);
      memcpy(at, &d32, 4);
      return true;
    };
    // (Jump sites) the instructions the jmp covers before the site run
    // first, then the hook.
    uint8_t pre = e->jump ? p.pre_len : 0;
    if (pre) {
      memcpy(out, p.extra, pre);
      int64_t moved = int64_t(start) - int64_t(e->address - pre);
      for (uint8_t f = 0; f < p.fixup_count; ++f)
        if (p.fixups[f] < pre && !relocate(out + p.fixups[f], moved))
          return "a trampoline is out of reach of its site's data";
      out += pre;
    }
    e->pre_relocated = start;
    if (e->jump) out = emit_hook_call(out, e, xstate_);
    uint64_t tramp = reinterpret_cast<uint64_t>(out);
    // The site, then (jump sites shorter than 5 bytes) the instructions the
    // jmp covers after it, all moved by the same distance.
    int64_t moved = int64_t(tramp) - int64_t(e->address);
    memcpy(out, s.bytes, s.length);
    if ((s.flags & kSiteRipRelative) && !relocate(out + s.disp_offset, moved))
      return "a trampoline is out of reach of its site's data";
    size_t covered = s.length;
    if (e->jump) {
      memcpy(out + s.length, p.extra + pre, p.extra_len - pre);
      for (uint8_t f = 0; f < p.fixup_count; ++f)
        if (p.fixups[f] >= pre && !relocate(out + s.length + (p.fixups[f] - pre), moved))
          return "a trampoline is out of reach of its site's data";
      covered = p.length;
    }
    e->relocated = tramp;
    e->covered = uint32_t(covered);
    e->pre = pre;
    out += covered;
    static const uint8_t kJmp[6] = {0xff, 0x25, 0, 0, 0, 0};
    memcpy(out, kJmp, 6);
    uint64_t back = e->address + covered;
    memcpy(out + 6, &back, 8);
    out += 8 + 6;
    e->trampoline = e->jump ? start : tramp;
  }
  if (mprotect(area, bytes, PROT_READ | PROT_EXEC) != 0) return "cannot make the trampolines executable";
  return nullptr;
}

const char* InstructionSites::patch() {
  if (patched_ || count_ == 0) return nullptr;
  if (const char* err = write_patches(false)) return err;
  patched_ = true;
  return nullptr;
}

const char* InstructionSites::patch_tsc_reads() {
  if (count_ == 0) return nullptr;
  return write_patches(true);
}

uint64_t InstructionSites::tsc_reads() const {
  uint64_t n = 0;
  for (uint64_t i = 0; i < count_; ++i) n += entries_[i].site->kind == SiteKind::Tsc;
  return n;
}

const char* InstructionSites::write_patches(bool tsc) {
  auto chosen = [&](const Entry& e) { return (e.site->kind == SiteKind::Tsc) == tsc; };
  // Group the writes by page: unprotect, write the int3s, restore.
  uint64_t i = 0;
  while (i < count_) {
    uint64_t page = page_down(entries_[i].address - entries_[i].pre);
    uint64_t j = i;
    bool any = false;
    for (; j < count_ && page_down(entries_[j].address) < page + 2 * 4096; ++j) any |= chosen(entries_[j]);
    if (!any) {
      i = j;
      continue;
    }
    uint64_t end = page_up(entries_[j - 1].address + std::max<uint64_t>(entries_[j - 1].patch->length, 1));
    if (mprotect(reinterpret_cast<void*>(page), end - page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
      return "cannot unprotect the program's code";
    for (uint64_t k = i; k < j; ++k) {
      const Entry& e = entries_[k];
      if (!chosen(e)) continue;
      auto* code = reinterpret_cast<uint8_t*>(e.address);
      if (e.jump) {
        code -= e.pre;
        int64_t rel = int64_t(e.trampoline) - int64_t(e.address - e.pre + 5);
        int32_t r32 = int32_t(rel);
        uint8_t jmp[5] = {0xe9};
        memcpy(jmp + 1, &r32, 4);
        memcpy(code, jmp, 5);
        // The rest of what the jmp covers keeps its bytes: code may read
        // them as data (V8's builtins load constants from the immediates
        // of earlier instructions, rip-relative), and a jump into them runs
        // the original instructions (unseen by ctrl, but as the program
        // would).
      } else {
        code[0] = 0xcc;
      }
    }
    if (mprotect(reinterpret_cast<void*>(page), end - page, PROT_READ | PROT_EXEC) != 0)
      return "cannot protect the program's code again";
    i = j;
  }
  return nullptr;
}

uint64_t InstructionSites::original_address(uint64_t rip) const {
  // Only on the way to a crash report: a scan is fine.
  for (uint64_t i = 0; i < count_; ++i) {
    const Entry& e = entries_[i];
    if (rip >= e.relocated && rip < e.relocated + e.covered) return e.address + (rip - e.relocated);
    if (rip >= e.pre_relocated && rip < e.pre_relocated + e.pre) return e.address - e.pre + (rip - e.pre_relocated);
  }
  return rip;
}

bool InstructionSites::copied_site(uint64_t at) const {
  for (uint32_t m = 0; m < kMaxSiteModules; ++m)
    if (ends_[m] && bases_[m] <= at && at < ends_[m]) return false;
  // (Read through the kernel: the copy may end anywhere.)
  constexpr size_t kCompared = 16;
  uint8_t copy[kCompared];
  iovec local{copy, kCompared}, remote{reinterpret_cast<void*>(at), kCompared};
  if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != ssize_t(kCompared) || copy[0] != 0xcc) return false;
  for (uint64_t i = 0; i < count_; ++i) {
    const Entry& e = entries_[i];
    if (e.jump || e.address + kCompared > ends_[e.site->module]) continue;
    if (memcmp(reinterpret_cast<const void*>(e.address), copy, kCompared) == 0) return true;
  }
  return false;
}

const InstructionSites::Entry* InstructionSites::find(uint64_t address) const {
  if (count_ == 0) return nullptr;
  const Entry* e = std::lower_bound(entries_, entries_ + count_, address,
                                    [](const Entry& x, uint64_t a) { return x.address < a; });
  return e != entries_ + count_ && e->address == address ? e : nullptr;
}

namespace {

RmwOp rmw_of(SiteOp op) {
  switch (op) {
    case SiteOp::Add:
    case SiteOp::Xadd:
    case SiteOp::Inc:
    case SiteOp::Adc:
      return RmwOp::Add;
    case SiteOp::Sub:
    case SiteOp::Dec:
    case SiteOp::Sbb:
      return RmwOp::Sub;
    case SiteOp::And:
    case SiteOp::Btr:
      return RmwOp::And;
    case SiteOp::Or:
    case SiteOp::Bts:
      return RmwOp::Or;
    case SiteOp::Xor:
    case SiteOp::Btc:
    case SiteOp::Not:
      return RmwOp::Xor;
    case SiteOp::Xchg:
      return RmwOp::Xchg;
    default:
      return RmwOp::None;
  }
}

uint64_t gs_base() {
  uint64_t base = 0;
  syscall(SYS_arch_prctl, 0x1004 /* ARCH_GET_GS */, &base);
  return base;
}

// `xsave`: the thread's extended state when the trampoline saved it.
// While a thread is parked at a site, its slot says where the site's exact
// registers are (the ucontext this hook was given): a paused execution's
// controller reads them there (no unwinder sees through a trampoline).
struct SiteContextShown {
  uint64_t* word = nullptr;
  SiteContextShown(uint32_t me, ucontext_t* uc) {
    if (me >= shm::kMaxThreads || !rt.region.header) return;
    word = &rt.region.header->threads[me].site_context;
    *word = reinterpret_cast<uint64_t>(uc);
  }
  ~SiteContextShown() {
    if (word) *word = 0;
  }
};

void visible_site(const InstructionSites::Entry& e, ucontext_t* uc, const void* xsave) {
  const Site& s = *e.site;
  uint32_t me = t_me;
  SiteContextShown shown(me, uc);
  // The program may still read its red zone, below its stack pointer.
  const uint64_t live_stack = uint64_t(uc->uc_mcontext.gregs[REG_RSP]) - 128;
  t_program_sp = live_stack;
  OpKind kind = OpKind::Load;
  uint64_t ea = 0, aux = 0;
  uint32_t size = s.size;
  switch (s.kind) {
    case SiteKind::Load: kind = OpKind::Load; break;
    case SiteKind::Store: kind = OpKind::Store; break;
    case SiteKind::Rmw: kind = OpKind::Rmw; break;
    case SiteKind::Fence: kind = OpKind::Fence; break;
    case SiteKind::StringOp: break;
    case SiteKind::Syscall:  // performed by handle_site_trap
    case SiteKind::Tsc:      // answered by handle_site_trap
      return;
  }
  if (s.kind == SiteKind::StringOp) {
    StringAccess a = string_access(s, *uc);
    size = uint32_t(a.bytes);
    switch (s.op) {
      case SiteOp::Movs: kind = OpKind::Store; ea = a.dst; aux = a.src; break;
      case SiteOp::Stos: kind = OpKind::Store; ea = a.dst; break;
      case SiteOp::Scas: kind = OpKind::Load; ea = a.dst; break;
      default: kind = OpKind::Load; ea = a.src; aux = a.dst; break;
    }
  } else if (s.kind != SiteKind::Fence) {
    uint64_t fs = s.segment == SiteSegment::Fs ? uint64_t(pthread_self()) : 0;
    uint64_t gs = s.segment == SiteSegment::Gs ? gs_base() : 0;
    ea = effective_address(s, *uc, e.address + s.length, fs, gs);
    // A load of memory nobody can write races with nothing: not a step
    // (ReadOnlyMemory.h).
    if (s.kind == SiteKind::Load && read_only_memory::contains(ea, size)) return;
  }
  // An access to the thread's own stack or static TLS that no other thread
  // has touched is not a step either (OwnMemory.h), but for the periodic
  // burst of loads a long quiet run ends with.
  if (s.kind != SiteKind::Fence && rt.region.header) {
    const shm::Header& h = *rt.region.header;
    if (h.own_memory && own_memory::hidden(h, ea, size) &&
        (s.kind != SiteKind::StringOp || !aux || own_memory::hidden(h, aux, size)) &&
        own_memory::stays_hidden(rt.model.thread(me), s.kind == SiteKind::Load)) {
      if (op_writes_memory(kind)) rt.model.own_memory_written(me);
      return;
    }
  }
  bool locked = s.flags & kSiteLocked;
  // A plain store (the store half of an unlocked read-modify-write too) is
  // the memory model's to place (MemoryModel.h: under TSO/PSO a store
  // buffer holds it); locked instructions and mfence drain; string
  // operations run directly, drained.
  bool writes = op_writes_memory(kind);
  MemoryModel& memory = *rt.memory;
  MemoryModel::StorePlan store;
  if (writes && !locked && s.kind != SiteKind::StringOp && ea >= 4096) store = memory.plan_store(me, ea, size);
  // An unlocked read-modify-write is a load, then a store: another thread's
  // store may come between them (a lost update). Under TSO/PSO the store
  // half is buffered and others read memory without it: that is the
  // window. Without a buffer (sc, c11, rc11, a store too big to buffer)
  // the instruction takes two steps: a load, then a store that writes what
  // the instruction computes from the value the load read (put back in
  // memory just before it runs, over whatever another thread stored
  // meanwhile).
  const bool split = kind == OpKind::Rmw && !locked && !store.buffered && ea >= 4096 && size <= 8;
  uint64_t loaded = 0;
  if (split) {
    PendingOp load = memory_op(OpKind::Load, ea, size, e.address);
    load.state = loop_state(*uc, xsave, s.dead);
    rt.begin(me, load);
    memcpy(&loaded, reinterpret_cast<const void*>(ea), size);
    uint8_t flags = shm::kInstruction;
    if (rt.model.same_state_repeat(me)) flags |= shm::kSameState;
    if (memory.forwarded(me, ea, size)) flags |= shm::kForwarded;
    rt.log(me, OpKind::Load, ea, e.address, loaded, rt.read_states ? load.state : 0, 0, size, MemOrder::NotAtomic,
           RmwOp::None, flags);
    kind = OpKind::Store;
    if (writes) store = memory.plan_store(me, ea, size);
    t_program_sp = live_stack;
  }
  PendingOp op = memory_op(kind, ea, size, e.address, aux);
  // What a read repeats is judged on the thread's state (spin detection).
  if (op_reads_memory(kind)) op.state = loop_state(*uc, xsave, s.dead);
  op.drains = locked || s.op == SiteOp::Mfence || (writes && store.drains);
  rt.begin(me, op);
  if (s.op == SiteOp::Sfence) memory.store_fence(me);
  // Memory as this instruction will find it, now that it is this thread's turn.
  uint64_t old = 0;
  if (split) {
    // Only when it changed: the page may be read-only to the agent's write
    // (the instruction then faults, as it would have).
    if (memcmp(reinterpret_cast<const void*>(ea), &loaded, size) != 0)
      memcpy(reinterpret_cast<void*>(ea), &loaded, size);
    old = loaded;
  } else if (kind != OpKind::Fence && ea >= 4096 && s.kind != SiteKind::StringOp)
    memcpy(&old, reinterpret_cast<const void*>(ea), size < 8 ? size : 8);
  bool failed = false;
  uint64_t written = 0;
  if (writes) written = value_to_write(s, *uc, old, failed);
  uint8_t flags = shm::kInstruction | (locked ? shm::kLocked : 0) | (failed ? shm::kFailed : 0);
  if (op.state && rt.model.same_state_repeat(me)) flags |= shm::kSameState;
  // A plain store of what its bytes already hold (as this thread sees them)
  // changes nothing: for spin detection it is no progress.
  // (Only plain moves from a general register or an immediate: the value
  // of other stores is not known here.)
  if (kind == OpKind::Store && s.kind == SiteKind::Store && s.op == SiteOp::Mov && !(s.flags & kSiteVector) &&
      size <= 8 && ea >= 4096 && memcmp(&old, &written, size) == 0)
    flags |= shm::kUnchanged;
  if (op_reads_memory(kind) && memory.forwarded(me, ea, size)) flags |= shm::kForwarded;
  if (store.buffered && !failed) {
    if (!memory.buffer_store(me, ea, size, rt.step()))
      rt.end_execution(shm::Outcome::Unsupported, me, e.address, memory.no_buffer_left());
    flags |= shm::kBuffered;
  }
  // sfence orders stores (a release fence for the analyses), lfence loads.
  MemOrder order = locked || s.op == SiteOp::Mfence ? MemOrder::SeqCst
                   : s.op == SiteOp::Sfence        ? MemOrder::Release
                   : s.op == SiteOp::Lfence        ? MemOrder::Acquire
                                                   : MemOrder::NotAtomic;
  // A plain load's value_written: its state, when the controller asks (sat).
  if (kind == OpKind::Load && rt.read_states) written = op.state;
  rt.log(me, kind, ea, e.address, kind == OpKind::Store ? 0 : old, failed ? 0 : written, aux, size, order,
         split ? RmwOp::None : rmw_of(s.op), flags);
}

}  // namespace

extern "C" void ctrl_site_hook(const InstructionSites::Entry* entry, const uint64_t* saved, void* xsave) {
  if (!rt.controlled() || !rt.active) return;
  // In use from here: a site in a signal handler that interrupts this hook
  // (a deferred signal delivered at the thread's turn, DeferredSignals.h)
  // runs its own hook where the handler runs, on the alternate signal stack.
  uint64_t top = t_hook_stack_top;
  t_hook_stack_top = 0;
  // A signal context's view of the registers, for SiteMath.
  ucontext_t uc;
  auto& g = uc.uc_mcontext.gregs;
  static const int kOrder[] = {REG_R15, REG_R14, REG_R13, REG_R12, REG_R11, REG_R10, REG_R9, REG_R8,
                               REG_RDI, REG_RSI, REG_RBP, REG_RBX, REG_RDX, REG_RCX, REG_RAX, REG_EFL};
  for (int i = 0; i < 16; ++i) g[kOrder[i]] = greg_t(saved[i]);
  g[REG_RSP] = greg_t(reinterpret_cast<uint64_t>(saved + 16) + 128);
  g[REG_RIP] = greg_t(entry->address);
  // XSAVE leaves out a component in its initial state (XSTATE_BV bit clear):
  // for SSE that means xmm0-15 are zero, and the image holds stale bytes.
  auto* image = static_cast<uint8_t*>(xsave);
  uint64_t xstate_bv;
  memcpy(&xstate_bv, image + 512, 8);
  if (!(xstate_bv & 2)) memset(image + 160, 0, 256);
  uc.uc_mcontext.fpregs = static_cast<fpregset_t>(xsave);
  visible_site(*entry, &uc, xsave);
  t_hook_stack_top = top;
}

bool handle_site_trap(ucontext_t* uc) {
  uint64_t at = uint64_t(uc->uc_mcontext.gregs[REG_RIP]) - 1;
  const InstructionSites::Entry* e = sites.find(at);
  if (!e) return false;
  if (e->site->kind == SiteKind::Tsc) {
    // Not a step: the virtual TSC (VirtualTsc.h), in every thread, whoever
    // controls it; the real one, from the original instruction, in a
    // process that reads the real TSC.
    uc->uc_mcontext.gregs[REG_RIP] = greg_t(e->address);
    if (!virtual_tsc::answer_site(uc, e->site->length, e->site->length == 3))
      uc->uc_mcontext.gregs[REG_RIP] = greg_t(e->trampoline);
    return true;
  }
  if (e->site->kind == SiteKind::Syscall) {
    t_program_sp = uint64_t(uc->uc_mcontext.gregs[REG_RSP]) - 128;
    // A new image (a Go program's os/exec, in the child of its raw clone)
    // must find the TSC readable (VirtualTsc.h); a failed exec keeps it so.
    long nr = long(uc->uc_mcontext.gregs[REG_RAX]);
    if (nr == SYS_execve || nr == SYS_execveat) virtual_tsc::readable_in_this_thread();
    rollback::note_syscall(nr);
    if (rt.controlled() && rt.active && perform_syscall_site(uc, e->address)) return true;
    uc->uc_mcontext.gregs[REG_RIP] = greg_t(e->trampoline);  // the call runs itself, from the copy
    return true;
  }
  if (rt.controlled() && rt.active) visible_site(*e, uc, nullptr);
  uc->uc_mcontext.gregs[REG_RIP] = greg_t(e->trampoline);
  return true;
}

}  // namespace ctrl::agent

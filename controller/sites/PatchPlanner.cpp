#include "sites/PatchPlanner.h"

#include <algorithm>
#include <cstring>

#include "sites/ControlFlow.h"

namespace ctrl::decoding {
namespace {

// The jump planner: a site of 5 bytes or more takes a jmp alone; a shorter
// one only with the instructions right after it, and only when every one of
// those is in step, movable, not a site, not a branch target or function
// start, and the function has no indirect jump (a jump table could land on
// any of them).
void plan_patches(DecodedModule& result, const std::vector<InsnInfo>& insns, std::vector<uint64_t>& targets,
                  const std::vector<uint64_t>& starts, const std::vector<uint64_t>& indirect_jumps,
                  std::vector<std::pair<uint64_t, uint64_t>>& data_reads) {
  // The bytes read as data, merged into disjoint ranges sorted by start (so
  // by end too).
  std::sort(data_reads.begin(), data_reads.end());
  std::vector<std::pair<uint64_t, uint64_t>> data;
  for (const auto& r : data_reads) {
    if (!data.empty() && r.first <= data.back().second)
      data.back().second = std::max(data.back().second, r.second);
    else
      data.push_back(r);
  }
  auto is_data = [&](uint64_t from, uint64_t to) {  // any byte of [from, to)
    auto it = std::upper_bound(data.begin(), data.end(), from,
                               [](uint64_t a, const std::pair<uint64_t, uint64_t>& r) { return a < r.second; });
    return it != data.end() && it->first < to;
  };
  std::sort(targets.begin(), targets.end());
  auto is_target = [&](uint64_t a) { return std::binary_search(targets.begin(), targets.end(), a); };
  auto function_of = [&](uint64_t a) -> uint64_t {
    auto it = std::upper_bound(starts.begin(), starts.end(), a);
    return it == starts.begin() ? 0 : *(it - 1);
  };
  std::vector<uint64_t> dangerous;  // functions with an indirect jump
  for (uint64_t a : indirect_jumps) dangerous.push_back(function_of(a));
  std::sort(dangerous.begin(), dangerous.end());
  std::vector<uint64_t> site_addrs;
  for (const Site& st : result.sites) site_addrs.push_back(st.offset);

  result.patches.assign(result.sites.size(), SitePatch{});
  uint64_t covered_until = 0;  // the end of the last jmp's bytes (sites are sorted)
  for (size_t i = 0; i < result.sites.size(); ++i) {
    const Site& site = result.sites[i];
    SitePatch& patch = result.patches[i];
    // The agent performs a system call site's call itself, and answers an
    // rdtsc site's read, in its SIGTRAP handler: neither runs from a
    // trampoline's hook.
    if (site.kind == SiteKind::Syscall || site.kind == SiteKind::Tsc) continue;
    // (Left out below when even its first byte is read as data.)
    if (is_data(site.offset, site.offset + 5)) continue;
    if (site.length >= 5) {
      patch.length = site.length;
      covered_until = site.offset + site.length;
      ++result.jump_sites;
      continue;
    }
    if (std::binary_search(dangerous.begin(), dangerous.end(), function_of(site.offset))) continue;
    auto it = std::lower_bound(insns.begin(), insns.end(), site.offset,
                               [](const InsnInfo& x, uint64_t a) { return x.addr < a; });
    if (it == insns.end() || it->addr != site.offset) continue;
    uint64_t end = site.offset + site.length;
    auto can_move = [&](const InsnInfo& n) {
      return n.in_step && n.movable && !std::binary_search(site_addrs.begin(), site_addrs.end(), n.addr);
    };
    auto take = [](SitePatch& p, const InsnInfo& n) {
      if (p.extra_len + n.size > sizeof p.extra) return false;
      if (n.rip_disp >= 0) {
        if (p.fixup_count == sizeof p.fixups) return false;
        p.fixups[p.fixup_count++] = uint8_t(p.extra_len + n.rip_disp);
      }
      std::memcpy(p.extra + p.extra_len, n.bytes, n.size);
      p.extra_len = uint8_t(p.extra_len + n.size);
      return true;
    };
    // First the instructions after the site: the jmp starts at the site.
    SitePatch p{};
    bool ok = false;
    for (auto n = it + 1; n != insns.end(); ++n) {
      if (n->addr != end || !can_move(*n) || is_target(n->addr) ||
          std::binary_search(starts.begin(), starts.end(), n->addr) || !take(p, *n))
        break;
      end += n->size;
      if (end - site.offset >= 5) {
        ok = true;
        break;
      }
    }
    // Else those right before it, not covered by the previous site's jmp:
    // the jmp starts at the first of them (a branch may land there: it
    // runs them from the trampoline), so the site itself must be no target.
    if (!ok && !is_target(site.offset) && !std::binary_search(starts.begin(), starts.end(), site.offset)) {
      p = SitePatch{};
      uint64_t begin = site.offset;
      std::vector<const InsnInfo*> before;
      for (auto n = it; n != insns.begin() && site.offset + site.length - begin < 5;) {
        --n;
        if (n->addr + n->size != begin || n->addr < covered_until || !can_move(*n) || is_data(n->addr, begin) ||
            (!before.empty() && is_target(begin)) || std::binary_search(starts.begin(), starts.end(), begin))
          break;
        before.push_back(&*n);
        begin = n->addr;
      }
      if (site.offset + site.length - begin >= 5) {
        ok = true;
        for (auto b = before.rbegin(); b != before.rend() && ok; ++b) ok = take(p, **b);
        p.pre_len = p.extra_len;
        end = site.offset + site.length;
      }
    }
    if (!ok) continue;
    p.length = uint8_t(end - site.offset);
    patch = p;
    covered_until = end;
    ++result.jump_sites;
  }
  // An int3 over data would change what the program reads.
  size_t kept = 0;
  for (size_t i = 0; i < result.sites.size(); ++i) {
    if (is_data(result.sites[i].offset, result.sites[i].offset + 1)) {
      ++result.sites_read_as_data;
      continue;
    }
    result.sites[kept] = result.sites[i];
    result.patches[kept] = result.patches[i];
    ++kept;
  }
  result.sites.resize(kept);
  result.patches.resize(kept);
}

}  // namespace

void PatchPlanner::add(uint64_t addr, const uint8_t* code, const cs_insn& insn, bool in_step) {
  const cs_x86& x = insn.detail->x86;
  bool flow = is_control_flow(insn.id);
  int8_t rip_disp = -1;
  bool movable = !flow;
  for (uint8_t k = 0; k < x.op_count; ++k) {
    const cs_x86_op& op = x.operands[k];
    if (flow && op.type == X86_OP_IMM) targets_.push_back(uint64_t(op.imm));
    if (op.type == X86_OP_MEM && op.mem.base == X86_REG_RIP) {
      if (x.encoding.disp_offset == 0 || x.encoding.disp_size != 4) movable = false;
      rip_disp = int8_t(x.encoding.disp_offset);
      if (insn.id != X86_INS_LEA && op.size > 0) {
        uint64_t at = addr + insn.size + uint64_t(op.mem.disp);
        data_reads_.emplace_back(at, at + op.size);
      }
    }
  }
  if ((insn.id == X86_INS_JMP || insn.id == X86_INS_LJMP) && x.op_count == 1 && x.operands[0].type != X86_OP_IMM)
    indirect_jumps_.push_back(addr);
  insns_.push_back(InsnInfo{addr, code, uint8_t(insn.size), in_step, movable, rip_disp});
}

void PatchPlanner::plan(DecodedModule& result, const std::vector<uint64_t>& starts) {
  std::sort(insns_.begin(), insns_.end(), [](const InsnInfo& a, const InsnInfo& b) { return a.addr < b.addr; });
  plan_patches(result, insns_, targets_, starts, indirect_jumps_, data_reads_);
}

}  // namespace ctrl::decoding

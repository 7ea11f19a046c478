#include "gdb/ProgramLibraries.h"

#include <elf.h>
#include <link.h>

#include <cstring>
#include <map>
#include <set>

namespace ctrl {

namespace {

constexpr size_t kMaxLibraries = 4096;  // a cycle in a corrupt chain ends here
constexpr size_t kMaxName = 4096;

std::string read_string(const ProgramMemoryRead& read, uint64_t addr) {
  std::string out;
  char chunk[64];
  while (addr && out.size() < kMaxName) {
    // Byte by byte near the end of a mapping would be slow; a chunk that
    // fails is retried bytewise.
    if (!read(addr, chunk, sizeof chunk)) {
      char c = 0;
      if (!read(addr, &c, 1) || c == '\0') break;
      out += c;
      ++addr;
      continue;
    }
    size_t n = strnlen(chunk, sizeof chunk);
    out.append(chunk, n);
    if (n < sizeof chunk) break;
    addr += sizeof chunk;
  }
  return out;
}

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

struct Entry {
  LoadedLibrary library;
  std::string soname;
  std::vector<std::string> needed;
};

// DT_NEEDED and DT_SONAME from a loaded object's dynamic section. The
// dynamic linker relocates the section's addresses in place, except where
// it is read-only (the vDSO): an address below the load bias is relative.
void read_dynamic(const ProgramMemoryRead& read, Entry& entry) {
  uint64_t strtab = 0;
  std::vector<uint64_t> needed;
  uint64_t soname = UINT64_MAX;
  for (uint64_t at = entry.library.l_ld, n = 0; at && n < 4096; at += sizeof(Elf64_Dyn), ++n) {
    Elf64_Dyn dyn;
    if (!read(at, &dyn, sizeof dyn) || dyn.d_tag == DT_NULL) break;
    if (dyn.d_tag == DT_STRTAB) strtab = dyn.d_un.d_ptr;
    if (dyn.d_tag == DT_NEEDED) needed.push_back(dyn.d_un.d_val);
    if (dyn.d_tag == DT_SONAME) soname = dyn.d_un.d_val;
  }
  if (!strtab) return;
  if (strtab < entry.library.l_addr) strtab += entry.library.l_addr;
  for (uint64_t offset : needed) entry.needed.push_back(read_string(read, strtab + offset));
  if (soname != UINT64_MAX) entry.soname = read_string(read, strtab + soname);
}

// r_debug's address: DT_DEBUG in the executable's dynamic section, found
// through its program headers (AT_PHDR, AT_PHNUM).
uint64_t r_debug_address(const std::string& auxv, const ProgramMemoryRead& read) {
  uint64_t phdr = 0, phnum = 0;
  for (size_t at = 0; at + sizeof(Elf64_auxv_t) <= auxv.size(); at += sizeof(Elf64_auxv_t)) {
    Elf64_auxv_t a;
    std::memcpy(&a, auxv.data() + at, sizeof a);
    if (a.a_type == AT_PHDR) phdr = a.a_un.a_val;
    if (a.a_type == AT_PHNUM) phnum = a.a_un.a_val;
  }
  if (!phdr || !phnum || phnum > 256) return 0;
  std::vector<Elf64_Phdr> headers(phnum);
  if (!read(phdr, headers.data(), phnum * sizeof(Elf64_Phdr))) return 0;
  uint64_t bias = 0, dynamic = 0;
  for (const auto& h : headers)
    if (h.p_type == PT_PHDR) bias = phdr - h.p_vaddr;
  for (const auto& h : headers)
    if (h.p_type == PT_DYNAMIC) dynamic = bias + h.p_vaddr;
  for (uint64_t at = dynamic, n = 0; at && n < 4096; at += sizeof(Elf64_Dyn), ++n) {
    Elf64_Dyn dyn;
    if (!read(at, &dyn, sizeof dyn) || dyn.d_tag == DT_NULL) break;
    if (dyn.d_tag == DT_DEBUG) return dyn.d_un.d_ptr;
  }
  return 0;
}

}  // namespace

bool is_agent_library(const std::string& path) { return basename_of(path) == "libctrl-agent.so"; }

std::optional<LibraryList> program_libraries(const std::string& auxv, const ProgramMemoryRead& read) {
  uint64_t r_debug = r_debug_address(auxv, read);
  if (!r_debug) return std::nullopt;
  uint64_t lm = 0;
  if (!read(r_debug + offsetof(struct r_debug, r_map), &lm, sizeof lm) || !lm) return std::nullopt;
  std::vector<Entry> entries;
  for (; lm && entries.size() < kMaxLibraries;) {
    struct link_map map;
    if (!read(lm, &map, sizeof map)) break;
    Entry e;
    e.library.lm = lm;
    e.library.l_addr = map.l_addr;
    e.library.l_ld = reinterpret_cast<uint64_t>(map.l_ld);
    e.library.name = read_string(read, reinterpret_cast<uint64_t>(map.l_name));
    read_dynamic(read, e);
    entries.push_back(std::move(e));
    lm = reinterpret_cast<uint64_t>(map.l_next);
  }
  if (entries.empty()) return std::nullopt;

  // Which entry a needed name is: by file name, else by DT_SONAME.
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i].soname.empty()) by_name.emplace(entries[i].soname, i);
    by_name.emplace(basename_of(entries[i].library.name), i);
  }
  auto closure = [&](const std::vector<size_t>& roots) {
    std::set<size_t> seen(roots.begin(), roots.end());
    std::vector<size_t> work(roots);
    while (!work.empty()) {
      size_t i = work.back();
      work.pop_back();
      for (const auto& n : entries[i].needed)
        if (auto it = by_name.find(basename_of(n)); it != by_name.end() && seen.insert(it->second).second)
          work.push_back(it->second);
    }
    return seen;
  };
  std::vector<size_t> agents;
  for (size_t i = 1; i < entries.size(); ++i)
    if (is_agent_library(entries[i].library.name)) agents.push_back(i);
  std::set<size_t> agent_side = closure(agents);
  // The program's side: the executable (entry 0), and whatever the agent
  // does not explain (the vDSO, the dynamic linker, dlopen'ed libraries).
  std::vector<size_t> roots{0};
  for (size_t i = 1; i < entries.size(); ++i)
    if (!agent_side.count(i)) roots.push_back(i);
  std::set<size_t> program_side = closure(roots);

  LibraryList list;
  list.main_lm = entries[0].library.lm;
  for (size_t i = 1; i < entries.size(); ++i)
    if (program_side.count(i) && !is_agent_library(entries[i].library.name) && !entries[i].library.name.empty())
      list.libraries.push_back(entries[i].library);
  return list;
}

}  // namespace ctrl

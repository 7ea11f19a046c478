// Turns addresses of a target process into names for reports, using libdw's
// dwfl: symbol tables for function and variable names, DWARF for lines.
//
// Invariants:
//  - The module list is taken once, from /proc/<pid>/maps at construction,
//    and every module's ELF is opened right away, so the Symbolizer keeps
//    answering after the process is gone (the files stay on disk; the vdso
//    has been copied out of the live process). DWARF is loaded lazily.
//  - Region names for describe_data come from a separate maps snapshot,
//    refreshed only by snapshot_regions().
//  - If the process cannot be inspected (gone, no permission), nothing
//    fails: every address is then described numerically.
//  - Not thread-safe (dwfl is not, and the caches are mutable).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <memory>
#include <vector>

#include "binary/AddressNames.h"
#include "binary/InlineScopes.h"

struct Dwfl;
struct Dwfl_Module;
struct Dwarf;

namespace ctrl {

class Symbolizer {
 public:
  // Throws InternalError only if libdw cannot start a session at all.
  explicit Symbolizer(pid_t pid);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // "func+0x1f at file.c:12" with line info, "func+0x1f in libfoo.so"
  // without, "0x... in libfoo.so" without a symbol, "0x..." when unmapped.
  // In inlined code the inlined function comes first, then where it was
  // inlined: "pool_stop at pool.c:50, inlined in main+0x6b at pool.c:59".
  // The "+0x.." part is left out at offset 0. For return addresses taken
  // from a backtrace pass ip - 1, or the line may be the one after the call.
  std::string describe_code(uint64_t addr) const;

  // "file.c:12" (basename of the file) or "" without line info.
  std::string source_line(uint64_t addr) const;

  // Where addr is, as fields (the JSON's and SARIF's locations): the source
  // file as DWARF names it (often absolute), its line, the function and the
  // module's basename; empty fields and line 0 where unknown.
  struct CodePlace {
    std::string path;
    int line = 0;
    std::string function;
    std::string module;
  };
  CodePlace code_place(uint64_t addr) const;

  // Name of the symbol containing addr, demangled and without its symbol
  // version ("@GLIBC_2.34"), or "".
  std::string function_name(uint64_t addr) const;

  // Whether addr lies in a module whose file basename contains the given
  // substring, e.g. in_module(ip, "libctrl-agent").
  bool in_module(uint64_t addr, std::string_view module_basename_substring) const;
  // Every module's whole memory image ([start, end), sorted): its code and
  // static data, .bss included.
  std::vector<std::pair<uint64_t, uint64_t>> module_images() const;

  // Basename of the module containing addr, or "".
  std::string module_name(uint64_t addr) const;

  // A variable of the program (not of its libraries) as its DWARF names it,
  // "q.count", "slots[2]" (AddressNames),
  // else "counter" / "counter+8" (decimal offset) inside a symbol, including
  // variables in .data/.bss; "0x... in libfoo.so" elsewhere in a module;
  // otherwise by the region in the last maps snapshot: "heap+0x10",
  // "stack", "anon 0x7fff...", "name+0x.." for other mappings, or "0x...".
  std::string describe_data(uint64_t addr) const;

  // By name, for breakpoints and watchpoints: [start, end) of the symbol
  // `name` (as reports show it: demangled, no version), a function or else a
  // data object, looked up in the program first, then in its libraries.
  std::optional<std::pair<uint64_t, uint64_t>> find_symbol(const std::string& name, bool function) const;
  // Addresses of the code of `line` in a source file whose path ends with
  // `file`, in every module with line information (ctrl's agent left out).
  std::vector<uint64_t> line_addresses(const std::string& file, int line) const;
  // Every "file.c:12" (basename) whose line table row starts exactly at
  // `addr`: optimised code often starts several lines at one address.
  std::vector<std::string> lines_at(uint64_t addr) const;
  // Re-reads /proc/<pid>/maps for describe_data's region names. Silently
  // keeps the previous snapshot if the process is gone.
  void snapshot_regions(pid_t pid);
  // The DWARF of the module loaded from `path` (the program) and its load
  // bias, or null without debug information (or no such module).
  Dwarf* module_dwarf(const std::string& path, uint64_t* bias) const;
  // Heap blocks named by the pointer the code reached them through
  // (PointerNames.h): describe_data then says "p->stop" for a byte of
  // [start, end), from the type at DIE offset `type` of `dwarf`. The first
  // name given to a byte stays.
  void name_block(uint64_t start, uint64_t end, std::string pointer, Dwarf* dwarf, uint64_t type);
  bool block_named(uint64_t addr) const { return named_block(addr) != nullptr; }
  // Another execution's heap: the blocks named for one report are dropped.
  void forget_blocks() { blocks_.clear(); }
  // Whether addr is in a module's image (code or static data).
  bool in_any_module(uint64_t addr) const { return module_at(addr) != nullptr; }
  Dwfl_Module* module_of(uint64_t addr) const { return module_at(addr); }
  // Basenames of the modules mapped when the Symbolizer was made.
  std::vector<std::string> module_names() const;

 private:
  struct CodeInfo {
    bool mapped = false;
    std::string module;    // basename
    std::string function;  // demangled, "" without a symbol
    uint64_t offset = 0;   // from the symbol's start
    std::string file;      // basename, "" without line info
    std::string path;      // the file as DWARF names it
    int line = 0;
    std::vector<InlinedCall> inlined;  // innermost first
  };
  // A module's whole memory image, from its PT_LOAD headers. Wider than the
  // module's extent in the maps, which misses the anonymous tail of .bss.
  struct ModuleSpan {
    uint64_t start;
    uint64_t end;
    Dwfl_Module* module;
  };
  struct Region {
    uint64_t start;
    uint64_t end;
    std::string name;  // maps pathname column: "", "[heap]", "/usr/lib/..."
  };

  struct NamedBlock {
    uint64_t start, end;
    std::string pointer;
    Dwarf* dwarf;
    uint64_t type;
  };
  const NamedBlock* named_block(uint64_t addr) const;
  const CodeInfo& code_info(uint64_t addr) const;
  Dwfl_Module* module_at(uint64_t addr) const;

  Dwfl* dwfl_ = nullptr;
  std::vector<ModuleSpan> spans_;
  std::vector<Region> regions_;  // sorted by start
  mutable std::unordered_map<uint64_t, CodeInfo> code_cache_;
  std::vector<NamedBlock> blocks_;  // few: searched in order
  // Per module, built on first use (its DWARF is read then).
  mutable std::unordered_map<Dwfl_Module*, std::unique_ptr<AddressNames>> names_;
};

}  // namespace ctrl

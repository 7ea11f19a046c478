// What VariablePrinter.cpp (the program's modules, its index of names and
// their static addresses) and VariableExpression.cpp (gdb's expressions
// over them) share: the printer's state. Internal to those two files.
//
// Invariants: as VariablePrinter.h states; modules[0] is the executable
// when it is known, and an Entry's die stays valid while dwfl is open.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "binary/DwarfValue.h"
#include "debug/VariablePrinter.h"

namespace ctrl {

struct VariablePrinter::Impl {
  struct Module {
    Dwfl_Module* mod = nullptr;
    std::string path;
    bool executable = false;
    Dwarf* dwarf = nullptr;
    Dwarf_Addr bias = 0;
    uint64_t tls_memsz = 0, tls_align = 1, tls_vaddr = 0;
    bool has_tls = false;
    uint64_t dynamic = 0;  // run-time address of PT_DYNAMIC (matches link_map.l_ld)
  };
  struct Entry {
    size_t module;
    Dwarf_Die die;
  };

  Dwfl* dwfl = nullptr;
  std::vector<Module> modules;  // the executable first
  bool indexed = false;
  std::unordered_map<std::string, std::vector<Entry>> globals;  // by qualified name
  // By the last part of a qualified name (function statics, namespace and
  // class members), for names given without their scope.
  std::unordered_map<std::string, std::vector<Entry>> by_leaf;
  // Qualified names of the declarations of the module being indexed.
  std::unordered_map<Dwarf_Off, std::string> declared;

  void index();
  void walk(size_t m, Dwarf_Die* parent, const std::string& prefix);
  std::string qualified(Dwarf_Die* die, const std::string& in_place) const;
  void add(const std::string& name, const std::string& leaf, const Entry& entry);
  const Entry* lookup(const std::string& name);
  std::optional<std::pair<uint64_t, uint64_t>> elf_symbol(const std::string& name) const;
  uint64_t elf_symbol_address(const char* name) const;
  uint64_t variable_address(const Entry& e, const std::string& name, uint64_t tp, const MemoryReader& read);
  uint64_t tls_modid(const Module& m, const MemoryReader& read);
  std::string symbol_at(uint64_t addr) const;
  // The 8-byte word at addr (UsageError when unreadable).
  static uint64_t read_word(const MemoryReader& read, uint64_t addr);
  ValueFormatter formatter(const MemoryReader& read) const {
    return ValueFormatter(read, [this](uint64_t addr) { return symbol_at(addr); });
  }
};

}  // namespace ctrl

#include "binary/Symbolizer.h"

#include <cxxabi.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fmt/format.h>
#include <gelf.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>

#include "binary/ProcessDwfl.h"

namespace ctrl {
namespace {

std::string basename_of(std::string_view path) {
  // dwfl names the vdso "[vdso: <pid>]"; the pid is noise in a report.
  if (path.starts_with("[vdso")) return "[vdso]";
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Symbol names as reports show them: without the symbol version that
// debuginfo symtabs append ("__libc_start_main@@GLIBC_2.34"), and demangled.
std::string display_name(const char* raw) {
  std::string name(raw);
  if (size_t at = name.find('@'); at != std::string::npos && at > 0) name.resize(at);
  if (name.starts_with("_Z")) {
    int status = 0;
    char* plain = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status == 0 && plain) name = plain;
    std::free(plain);
  }
  return name;
}

std::string module_basename(Dwfl_Module* mod) {
  const char* name = dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  return name ? basename_of(name) : std::string();
}

}  // namespace

Symbolizer::Symbolizer(pid_t pid) {
  // A process gone or unreadable leaves the module list empty and addresses
  // are described numerically: a report is still worth having.
  dwfl_ = begin_process_dwfl(pid);

  // Opening every module's ELF now, while the process exists, is what lets
  // the vdso (read from the process's memory) be symbolized later.
  auto collect = [](Dwfl_Module* mod, void**, const char*, Dwarf_Addr, void* arg) -> int {
    auto* spans = static_cast<std::vector<ModuleSpan>*>(arg);
    GElf_Addr bias = 0;
    Elf* elf = dwfl_module_getelf(mod, &bias);
    if (!elf) return DWARF_CB_OK;
    size_t phnum = 0;
    if (elf_getphdrnum(elf, &phnum) != 0) return DWARF_CB_OK;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (!gelf_getphdr(elf, static_cast<int>(i), &ph) || ph.p_type != PT_LOAD) continue;
      lo = std::min<uint64_t>(lo, ph.p_vaddr + bias);
      hi = std::max<uint64_t>(hi, ph.p_vaddr + ph.p_memsz + bias);
    }
    // No exception may unwind through libdw's C frames.
    try {
      if (lo < hi) spans->push_back({lo, hi, mod});
    } catch (const std::bad_alloc&) {
      return DWARF_CB_ABORT;
    }
    return DWARF_CB_OK;
  };
  dwfl_getmodules(dwfl_, collect, &spans_, 0);
  snapshot_regions(pid);
}

Symbolizer::~Symbolizer() { dwfl_end(dwfl_); }

std::vector<std::string> Symbolizer::module_names() const {
  std::vector<std::string> names;
  for (const ModuleSpan& span : spans_) names.push_back(module_basename(span.module));
  return names;
}

Dwarf* Symbolizer::module_dwarf(const std::string& path, uint64_t* bias) const {
  std::error_code ec;
  for (const ModuleSpan& span : spans_) {
    const char* file = nullptr;
    dwfl_module_info(span.module, nullptr, nullptr, nullptr, nullptr, nullptr, &file, nullptr);
    const char* name = dwfl_module_info(span.module, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    const char* which = file ? file : name;
    if (!which || !std::filesystem::equivalent(which, path, ec)) continue;
    Dwarf_Addr b = 0;
    Dwarf* dw = dwfl_module_getdwarf(span.module, &b);
    *bias = b;
    return dw;
  }
  return nullptr;
}

Dwfl_Module* Symbolizer::module_at(uint64_t addr) const {
  // dwfl_addrmodule answers the last module for any address above it (the
  // stack, for one), so its answer is only taken when it really covers addr.
  if (Dwfl_Module* mod = dwfl_addrmodule(dwfl_, addr)) {
    Dwarf_Addr start = 0, end = 0;
    dwfl_module_info(mod, nullptr, &start, &end, nullptr, nullptr, nullptr, nullptr);
    if (addr >= start && addr < end) return mod;
  }
  for (const ModuleSpan& span : spans_)
    if (addr >= span.start && addr < span.end) return span.module;
  return nullptr;
}

const Symbolizer::CodeInfo& Symbolizer::code_info(uint64_t addr) const {
  auto [it, inserted] = code_cache_.try_emplace(addr);
  CodeInfo& info = it->second;
  if (!inserted) return info;

  Dwfl_Module* mod = module_at(addr);
  if (!mod) return info;
  info.mapped = true;
  info.module = module_basename(mod);
  GElf_Off offset = 0;
  GElf_Sym sym{};
  if (const char* name = dwfl_module_addrinfo(mod, addr, &offset, &sym, nullptr, nullptr, nullptr)) {
    info.function = display_name(name);
    info.offset = offset;
  }
  if (Dwfl_Line* line = dwfl_module_getsrc(mod, addr)) {
    int lineno = 0;
    const char* file = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr);
    if (file && lineno > 0) {
      info.file = basename_of(file);
      info.path = file;
      info.line = lineno;
    }
  }
  info.inlined = inlined_calls(mod, addr);
  return info;
}

std::string Symbolizer::describe_code(uint64_t addr) const {
  const CodeInfo& info = code_info(addr);
  if (!info.mapped) return fmt::format("{:#x}", addr);
  std::string where = info.function.empty() ? fmt::format("{:#x}", addr)
                      : info.offset == 0    ? info.function
                                            : fmt::format("{}+{:#x}", info.function, info.offset);
  if (!info.function.empty() && !info.file.empty()) {
    if (info.inlined.empty()) return fmt::format("{} at {}:{}", where, info.file, info.line);
    // The line is the inlined function's; each call site is in the
    // function around it, the outermost one the symbol's.
    std::string text = fmt::format("{} at {}:{}", info.inlined.front().function, info.file, info.line);
    for (size_t k = 0; k < info.inlined.size(); ++k) {
      const InlinedCall& call = info.inlined[k];
      std::string caller = k + 1 < info.inlined.size() ? info.inlined[k + 1].function : where;
      text += call.line ? fmt::format(", inlined in {} at {}:{}", caller, call.file, call.line)
                        : fmt::format(", inlined in {}", caller);
    }
    return text;
  }
  return fmt::format("{} in {}", where, info.module);
}

std::string Symbolizer::source_line(uint64_t addr) const {
  const CodeInfo& info = code_info(addr);
  return info.file.empty() ? std::string() : fmt::format("{}:{}", info.file, info.line);
}

Symbolizer::CodePlace Symbolizer::code_place(uint64_t addr) const {
  const CodeInfo& info = code_info(addr);
  return CodePlace{info.path, info.line, info.function, info.module};
}

std::string Symbolizer::function_name(uint64_t addr) const { return code_info(addr).function; }

std::vector<std::pair<uint64_t, uint64_t>> Symbolizer::module_images() const {
  std::vector<std::pair<uint64_t, uint64_t>> images;
  for (const auto& span : spans_) images.emplace_back(span.start, span.end);
  std::sort(images.begin(), images.end());
  return images;
}

bool Symbolizer::in_module(uint64_t addr, std::string_view module_basename_substring) const {
  const CodeInfo& info = code_info(addr);
  return info.mapped && info.module.find(module_basename_substring) != std::string::npos;
}

std::string Symbolizer::module_name(uint64_t addr) const { return code_info(addr).module; }

std::string Symbolizer::describe_data(uint64_t addr) const {
  if (Dwfl_Module* mod = module_at(addr)) {
    GElf_Off offset = 0;
    GElf_Sym sym{};
    const char* name = dwfl_module_addrinfo(mod, addr, &offset, &sym, nullptr, nullptr, nullptr);
    // dwfl falls back to the nearest preceding symbol when none contains
    // addr; naming padding or an unlabelled table after some variable
    // would mislead, so only a symbol that really covers addr counts.
    bool covers = sym.st_size > 0 ? offset < sym.st_size : offset == 0;
    // Field paths for the program's own data: a library's whole DWARF
    // (libc's debug information) would take seconds to index.
    std::string base = module_basename(mod);
    bool library = base.starts_with("lib") || base.starts_with("ld-") || base.starts_with("[");
    auto& names = names_[mod];
    if (!names) {
      Dwarf_Addr bias = 0;
      names = std::make_unique<AddressNames>(library ? nullptr : dwfl_module_getdwarf(mod, &bias), bias);
    }
    if (std::string named = names->static_name(addr); !named.empty()) return named;
    if (name && covers) return offset == 0 ? display_name(name) : fmt::format("{}+{}", display_name(name), offset);
    return fmt::format("{:#x} in {}", addr, module_basename(mod));
  }

  if (const NamedBlock* block = named_block(addr)) {
    std::string path = AddressNames::path_in_type(block->dwarf, block->type, addr - block->start);
    if (path.starts_with(".")) return block->pointer + "->" + path.substr(1);
    if (path.empty()) return "*" + block->pointer;
    return "(*" + block->pointer + ")" + path;
  }
  auto it =
      std::upper_bound(regions_.begin(), regions_.end(), addr, [](uint64_t a, const Region& r) { return a < r.start; });
  if (it != regions_.begin() && addr < std::prev(it)->end) {
    const Region& region = *std::prev(it);
    if (region.name.empty()) return fmt::format("anon {:#x}", addr);
    if (region.name == "[heap]") return fmt::format("heap+{:#x}", addr - region.start);
    if (region.name.starts_with("[stack")) return "stack";
    bool bracketed = region.name.size() >= 2 && region.name.front() == '[' && region.name.back() == ']';
    std::string name = bracketed ? region.name.substr(1, region.name.size() - 2) : basename_of(region.name);
    return fmt::format("{}+{:#x}", name, addr - region.start);
  }
  return fmt::format("{:#x}", addr);
}

void Symbolizer::name_block(uint64_t start, uint64_t end, std::string pointer, Dwarf* dwarf, uint64_t type) {
  if (start >= end || named_block(start) || named_block(end - 1)) return;
  blocks_.push_back({start, end, std::move(pointer), dwarf, type});
}

const Symbolizer::NamedBlock* Symbolizer::named_block(uint64_t addr) const {
  for (const NamedBlock& b : blocks_)
    if (addr >= b.start && addr < b.end) return &b;
  return nullptr;
}

void Symbolizer::snapshot_regions(pid_t pid) {
  std::ifstream maps(fmt::format("/proc/{}/maps", pid));
  if (!maps) return;
  std::vector<Region> regions;
  std::string line;
  while (std::getline(maps, line)) {
    // start-end perms offset dev inode [pathname]
    unsigned long long start = 0, end = 0;
    int consumed = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %*s %*s %*s %*s%n", &start, &end, &consumed) < 2 || consumed == 0)
      continue;
    size_t name_at = line.find_first_not_of(' ', static_cast<size_t>(consumed));
    regions.push_back({start, end, name_at == std::string::npos ? std::string() : line.substr(name_at)});
  }
  if (regions.empty()) return;
  std::sort(regions.begin(), regions.end(), [](const Region& a, const Region& b) { return a.start < b.start; });
  regions_ = std::move(regions);
}

std::optional<std::pair<uint64_t, uint64_t>> Symbolizer::find_symbol(const std::string& name, bool function) const {
  // The program before its libraries: a name both define is the program's.
  for (int pass = 0; pass < 2; ++pass) {
    for (const ModuleSpan& span : spans_) {
      std::string base = module_basename(span.module);
      bool library = base.starts_with("lib") || base.starts_with("ld-") || base.starts_with("[");
      if (library != (pass == 1) || base.find("libctrl-agent") != std::string::npos) continue;
      int n = dwfl_module_getsymtab(span.module);
      for (int i = 1; i < n; ++i) {
        GElf_Sym sym;
        GElf_Addr addr = 0;
        const char* raw = dwfl_module_getsym_info(span.module, i, &sym, &addr, nullptr, nullptr, nullptr);
        if (!raw || sym.st_shndx == SHN_UNDEF) continue;
        int type = GELF_ST_TYPE(sym.st_info);
        bool wanted = function ? type == STT_FUNC || type == STT_GNU_IFUNC : type == STT_OBJECT || type == STT_TLS;
        if (!wanted || display_name(raw) != name) continue;
        return std::make_pair(uint64_t(addr), uint64_t(addr + std::max<GElf_Xword>(sym.st_size, 1)));
      }
    }
  }
  return std::nullopt;
}

std::vector<uint64_t> Symbolizer::line_addresses(const std::string& file, int line) const {
  std::vector<uint64_t> out;
  for (const ModuleSpan& span : spans_) {
    if (module_basename(span.module).find("libctrl-agent") != std::string::npos) continue;
    Dwfl_Line** lines = nullptr;
    size_t n = 0;
    if (dwfl_module_getsrc_file(span.module, file.c_str(), line, 0, &lines, &n) != 0) continue;
    for (size_t i = 0; i < n; ++i) {
      Dwarf_Addr addr = 0;
      if (dwfl_lineinfo(lines[i], &addr, nullptr, nullptr, nullptr, nullptr)) out.push_back(addr);
    }
    free(lines);
  }
  return out;
}

std::vector<std::string> Symbolizer::lines_at(uint64_t addr) const {
  std::vector<std::string> out;
  Dwfl_Module* mod = module_at(addr);
  if (!mod) return out;
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(mod, addr, &bias);
  Dwarf_Lines* lines = nullptr;
  size_t n = 0;
  if (!cu || dwarf_getsrclines(cu, &lines, &n) != 0) return out;
  for (size_t i = 0; i < n; ++i) {
    Dwarf_Line* line = dwarf_onesrcline(lines, i);
    Dwarf_Addr at = 0;
    int lineno = 0;
    if (!line || dwarf_lineaddr(line, &at) != 0 || at + bias != addr || dwarf_lineno(line, &lineno) != 0) continue;
    // A row that is no statement's start at this address is the previous
    // line's code running on (gcc ends an inlined call's last line with
    // one): that line's operations come before the address.
    bool statement = false;
    if (dwarf_linebeginstatement(line, &statement) != 0 || !statement) continue;
    const char* file = dwarf_linesrc(line, nullptr, nullptr);
    std::string text = fmt::format("{}:{}", basename_of(file ? file : ""), lineno);
    if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
  }
  return out;
}

}  // namespace ctrl

#include "VariablePrinter.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "DwarfValue.h"
#include "ExitStatus.h"
#include "FrameLocals.h"

namespace ctrl {
namespace {

char* g_debuginfo_path = nullptr;

const Dwfl_Callbacks kCallbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = nullptr,
    .debuginfo_path = &g_debuginfo_path,
};

// x86-64 glibc: tcbhead_t.dtv is the second word of the TCB, and a dtv_t
// (union of a counter and {void* val; void* to_free}) is 16 bytes.
constexpr uint64_t kDtvInTcb = 8;
constexpr uint64_t kDtvEntrySize = 16;

[[noreturn]] void fail(const std::string& message) { throw UsageError(message); }
std::string cannot_access(uint64_t addr) { return fmt::format("Cannot access memory at address {:#x}", addr); }

// As Symbolizer names symbols: demangled, without "@GLIBC_2.2.5".
std::string plain_symbol(const char* raw) {
  std::string name(raw);
  if (size_t at = name.find('@'); at != std::string::npos && at > 0) name.resize(at);
  if (name.starts_with("_Z")) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status == 0 && demangled) name = demangled;
    std::free(demangled);
  }
  return name;
}

}  // namespace

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
  ValueFormatter formatter(const MemoryReader& read) const {
    return ValueFormatter(read, [this](uint64_t addr) { return symbol_at(addr); });
  }
};

namespace {

uint64_t read_u64(const MemoryReader& read, uint64_t addr) {
  uint64_t v = 0;
  if (!read || !read(addr, &v, sizeof v)) fail(cannot_access(addr));
  return v;
}

// The value of an expression: an object in the target, (from '&') an
// address that lives nowhere, or a local's value held in registers or
// computed by its DWARF location (`held`), or one the frame lost.
struct Value {
  DwarfType type;
  bool lvalue = false;
  uint64_t address = 0;  // lvalue: where the object is
  uint64_t pointer = 0;  // not an lvalue: the address '&' produced
  bool function = false;
  std::optional<std::vector<uint8_t>> held;  // not an lvalue: the value's bytes
  std::vector<bool> missing;                 // of held: bytes its location did not give
  std::string unavailable;                   // not empty: what shows instead ("<optimized out>")
};

Value object_at(const DwarfType& type, uint64_t address) { return Value{type, true, address, 0, false, {}, {}, {}}; }

// Recursive descent over gdb's C subset: unary (& *), postfix ([] . ->),
// names and parentheses.
class Evaluator {
 public:
  Evaluator(VariablePrinter::Impl& impl, const std::string& text, uint64_t tp, const MemoryReader& read,
            const FrameContext* frame)
      : impl_(impl), s_(text), tp_(tp), read_(read), frame_(frame) {}

  Value parse() {
    Value v = unary();
    skip_space();
    if (pos_ != s_.size()) fail(fmt::format("A syntax error in expression, near `{}'.", s_.substr(pos_)));
    return v;
  }
  bool missing() const { return missing_; }

 private:
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(std::string_view token) {
    skip_space();
    if (s_.compare(pos_, token.size(), token) != 0) return false;
    pos_ += token.size();
    return true;
  }
  // NAME or SCOPE::NAME.
  std::string identifier() {
    skip_space();
    size_t start = pos_;
    auto word = [&](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (;;) {
      while (pos_ < s_.size() && word(s_[pos_])) ++pos_;
      if (pos_ + 2 < s_.size() && s_.compare(pos_, 2, "::") == 0 && word(s_[pos_ + 2])) {
        pos_ += 2;
        continue;
      }
      break;
    }
    if (start == pos_ || std::isdigit(static_cast<unsigned char>(s_[start])))
      fail(fmt::format("A syntax error in expression, near `{}'.", s_.substr(start)));
    return std::string(s_.substr(start, pos_ - start));
  }

  Value unary() {
    if (eat("&")) {
      Value v = unary();
      if (!v.unavailable.empty()) fail("Can't take address of a value that has been optimized out.");
      if (!v.lvalue) fail("Attempt to take address of value not located in memory.");
      DwarfType t = v.type;
      t.pointers++;
      return Value{t, false, 0, v.address, false, {}, {}, {}};
    }
    if (eat("*")) return deref(unary());
    return postfix();
  }

  Value postfix() {
    Value v = primary();
    for (;;) {
      if (eat("[")) {
        skip_space();
        size_t used = 0;
        long long index = 0;
        try {
          index = std::stoll(std::string(s_.substr(pos_)), &used, 0);
        } catch (const std::exception&) {
          fail(fmt::format("A syntax error in expression, near `{}'.", s_.substr(pos_)));
        }
        pos_ += used;
        if (!eat("]")) fail(fmt::format("A syntax error in expression, near `{}'.", s_.substr(pos_)));
        v = subscript(v, index);
      } else if (eat("->")) {
        v = member(deref(v), identifier());
      } else if (eat(".")) {
        v = member(v, identifier());
      } else {
        return v;
      }
    }
  }

  Value primary() {
    if (eat("(")) {
      Value v = unary();
      if (!eat(")")) fail(fmt::format("A syntax error in expression, near `{}'.", s_.substr(pos_)));
      return v;
    }
    std::string name = identifier();
    if (frame_ && name.find("::") == std::string::npos) {
      if (!locals_) locals_.emplace(impl_.dwfl, *frame_, read_);
      if (std::optional<Dwarf_Die> die = locals_->find(name)) return local(*die, name);
    }
    const VariablePrinter::Impl::Entry* e = impl_.lookup(name);
    if (!e) {
      if (impl_.elf_symbol(name)) fail(fmt::format("'{}' has unknown type; cast it to its declared type", name));
      missing_ = true;
      fail(fmt::format("no symbol \"{}\" in the program", name));
    }
    Dwarf_Die die = e->die;
    if (dwarf_tag(&die) == DW_TAG_subprogram) {
      Dwarf_Addr low = 0;
      dwarf_lowpc(&die, &low);
      return Value{DwarfType{die}, true, low + impl_.modules[e->module].bias, 0, true, {}, {}, {}};
    }
    Dwarf_Die type;
    DwarfType t = die_type(&die, &type) ? DwarfType{type} : DwarfType{};
    return object_at(t, impl_.variable_address(*e, name, tp_, read_));
  }

  // A local variable or parameter of the frame.
  Value local(Dwarf_Die die, const std::string& name) {
    Dwarf_Die type;
    DwarfType t = die_type(&die, &type) ? DwarfType{type} : DwarfType{};
    // A thread-local static of the function: the same as a global one.
    Dwarf_Attribute attr;
    Dwarf_Op* ops = nullptr;
    size_t n = 0;
    if (dwarf_attr(&die, DW_AT_location, &attr) && dwarf_getlocation(&attr, &ops, &n) == 0 && n > 0 &&
        (ops[n - 1].atom == DW_OP_form_tls_address || ops[n - 1].atom == DW_OP_GNU_push_tls_address)) {
      for (size_t m = 0; m < impl_.modules.size(); ++m)
        if (impl_.modules[m].mod == locals_->module())
          return object_at(t, impl_.variable_address({m, die}, name, tp_, read_));
    }
    Whereabouts w = locals_->locate(die, type_size(t));
    Value v = object_at(t, w.address);
    v.lvalue = w.kind == Whereabouts::Kind::kMemory;
    if (w.kind == Whereabouts::Kind::kBytes) v.held = std::move(w.bytes), v.missing = std::move(w.missing);
    if (w.kind == Whereabouts::Kind::kUnavailable) v.unavailable = w.unavailable;
    return lost_data(v) ? part(v, t, 0) : v;
  }

  // Whether a byte of v's data (not padding) is missing; gdb would show
  // such a member alone as optimized out, ctrl shows the whole value so.
  static bool lost_data(const Value& v) {
    for (size_t i = 0; i < v.missing.size(); ++i)
      if (v.missing[i] && holds_data(v.type, i, 1)) return true;
    return false;
  }

  static bool is_array(const Value& v) {
    Dwarf_Die d;
    return v.type.pointers == 0 && v.type.die && peel_type(*v.type.die, &d) && dwarf_tag(&d) == DW_TAG_array_type;
  }

  // Part of a value that is not in memory (a member, an element).
  static Value part(const Value& v, DwarfType type, uint64_t offset) {
    Value p{type, false, 0, 0, false, std::nullopt, {}, v.unavailable};
    if (!v.held) return p;
    uint64_t size = type_size(type);
    if (offset + size > v.held->size()) fail("value is not available (beyond its known bytes)");
    auto from = static_cast<ptrdiff_t>(offset), to = static_cast<ptrdiff_t>(offset + size);
    p.held.emplace(v.held->begin() + from, v.held->begin() + to);
    if (!v.missing.empty()) p.missing.assign(v.missing.begin() + from, v.missing.begin() + to);
    if (lost_data(p)) {
      p.held.reset();
      p.missing.clear();
      p.unavailable = "<optimized out>";
    }
    return p;
  }

  uint64_t pointer_value(const Value& v) {
    if (!v.unavailable.empty()) fail("value has been optimized out");
    if (v.held) {
      if (is_array(v)) fail("Attempt to take address of value not located in memory.");
      uint64_t p = 0;
      std::memcpy(&p, v.held->data(), std::min<size_t>(v.held->size(), 8));
      return p;
    }
    if (!v.lvalue) return v.pointer;
    if (is_array(v)) return v.address;  // an array decays to its first element's address
    return read_u64(read_, v.address);
  }

  Value deref(const Value& v) {
    std::optional<DwarfType> target = type_pointee(v.type);
    if (!target || v.function) fail("Attempt to take contents of a non-pointer value.");
    if (!target->die && target->pointers == 0) fail("Attempt to take contents of a non-pointer value.");
    return object_at(*target, pointer_value(v));
  }

  Value subscript(const Value& v, long long index) {
    std::optional<DwarfType> elem = type_pointee(v.type);
    if (!elem || v.function) fail("cannot subscript something of type `" + type_name(v.type) + "'");
    if (!v.lvalue && is_array(v)) {
      if (index < 0) fail(fmt::format("no such vector element"));
      return part(v, *elem, static_cast<uint64_t>(index) * type_size(*elem));
    }
    uint64_t base = pointer_value(v);
    return object_at(*elem, base + static_cast<uint64_t>(index) * type_size(*elem));
  }

  // Finds `field` in a struct, in its anonymous members and base classes.
  static bool find_member(Dwarf_Die agg, const std::string& field, uint64_t* offset, Dwarf_Die* type) {
    Dwarf_Die child;
    if (dwarf_child(&agg, &child) != 0) return false;
    do {
      int tag = dwarf_tag(&child);
      if (tag != DW_TAG_member && tag != DW_TAG_inheritance) continue;
      const char* name = dwarf_diename(&child);
      uint64_t at = die_udata(&child, DW_AT_data_member_location, 0);
      Dwarf_Die mtype, inner;
      if (!die_type(&child, &mtype)) continue;
      if (name && field == name && tag == DW_TAG_member) {
        if (dwarf_hasattr(&child, DW_AT_bit_size)) fail(fmt::format("cannot select bit-field '{}'", field));
        *offset = at;
        *type = mtype;
        return true;
      }
      if ((!name || tag == DW_TAG_inheritance) && peel_type(mtype, &inner) && find_member(inner, field, offset, type)) {
        *offset += at;
        return true;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
    return false;
  }

  Value member(const Value& v, const std::string& field) {
    Dwarf_Die d;
    int tag = v.type.pointers == 0 && v.type.dims == 0 && v.type.die && peel_type(*v.type.die, &d) ? dwarf_tag(&d) : 0;
    if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_class_type)
      fail(fmt::format("Attempt to extract a component of a value that is not a structure."));
    uint64_t offset = 0;
    Dwarf_Die type;
    if (!find_member(d, field, &offset, &type)) fail(fmt::format("There is no member named {}.", field));
    if (!v.lvalue) return part(v, DwarfType{type}, offset);
    return object_at(DwarfType{type}, v.address + offset);
  }

  VariablePrinter::Impl& impl_;
  std::string_view s_;
  size_t pos_ = 0;
  uint64_t tp_;
  const MemoryReader& read_;
  const FrameContext* frame_;
  std::optional<FrameLocals> locals_;  // opened on the first name looked up in the frame
  bool missing_ = false;
};

}  // namespace

// The qualified name of a definition: its declaration's, when it has one
// (C++ defines namespace and class members outside their scope).
std::string VariablePrinter::Impl::qualified(Dwarf_Die* die, const std::string& in_place) const {
  Dwarf_Attribute attr;
  Dwarf_Die spec;
  if (dwarf_attr(die, DW_AT_specification, &attr) && dwarf_formref_die(&attr, &spec))
    if (auto it = declared.find(dwarf_dieoffset(&spec)); it != declared.end()) return it->second;
  return in_place;
}

void VariablePrinter::Impl::add(const std::string& name, const std::string& leaf, const Entry& entry) {
  globals[name].push_back(entry);
  if (name != leaf) by_leaf[leaf].push_back(entry);
}

void VariablePrinter::Impl::walk(size_t m, Dwarf_Die* parent, const std::string& prefix) {
  Dwarf_Die c;
  if (dwarf_child(parent, &c) != 0) return;
  do {
    const char* raw = dwarf_diename(&c);
    if (!raw) {
      if (dwarf_tag(&c) == DW_TAG_namespace || dwarf_tag(&c) == DW_TAG_lexical_block) walk(m, &c, prefix);
      continue;
    }
    std::string name = raw;
    bool declaration = dwarf_hasattr(&c, DW_AT_declaration) || dwarf_hasattr(&c, DW_AT_external);
    switch (dwarf_tag(&c)) {
      case DW_TAG_variable:
      case DW_TAG_member:
        if (dwarf_hasattr(&c, DW_AT_location))
          add(qualified(&c, prefix + name), name, {m, c});
        else if (declaration)
          declared[dwarf_dieoffset(&c)] = prefix + name;
        break;
      case DW_TAG_subprogram: {
        Dwarf_Addr low = 0;
        std::string full = qualified(&c, prefix + name);
        if (dwarf_lowpc(&c, &low) == 0) add(full, name, {m, c});
        if (declaration) declared[dwarf_dieoffset(&c)] = full;
        walk(m, &c, full + "::");
        break;
      }
      case DW_TAG_namespace:
      case DW_TAG_structure_type:
      case DW_TAG_class_type:
      case DW_TAG_union_type:
        walk(m, &c, prefix + name + "::");
        break;
      case DW_TAG_lexical_block:
        walk(m, &c, prefix);
        break;
      default:
        break;
    }
  } while (dwarf_siblingof(&c, &c) == 0);
}

void VariablePrinter::Impl::index() {
  if (indexed) return;
  indexed = true;
  for (size_t m = 0; m < modules.size(); ++m) {
    Module& mod = modules[m];
    mod.dwarf = dwfl_module_getdwarf(mod.mod, &mod.bias);
    if (!mod.dwarf) continue;
    Dwarf_CU* cu = nullptr;
    Dwarf_Die cudie;
    uint8_t unit_type = 0;
    while (dwarf_get_units(mod.dwarf, cu, &cu, nullptr, &unit_type, &cudie, nullptr) == 0)
      if (unit_type == DW_UT_compile || unit_type == DW_UT_partial) walk(m, &cudie, "");
    declared.clear();
  }
}

const VariablePrinter::Impl::Entry* VariablePrinter::Impl::lookup(const std::string& name) {
  index();
  for (auto* table : {&globals, &by_leaf}) {
    auto it = table->find(name);
    if (it == table->end() || it->second.empty()) continue;
    // Modules are in order, the executable first.
    return &it->second.front();
  }
  return nullptr;
}

std::optional<std::pair<uint64_t, uint64_t>> VariablePrinter::Impl::elf_symbol(const std::string& name) const {
  for (const Module& m : modules) {
    int count = dwfl_module_getsymtab(m.mod);
    for (int i = 1; i < count; ++i) {
      GElf_Sym sym;
      GElf_Addr addr = 0;
      const char* raw = dwfl_module_getsym_info(m.mod, i, &sym, &addr, nullptr, nullptr, nullptr);
      int type = GELF_ST_TYPE(sym.st_info);
      if (!raw || sym.st_shndx == SHN_UNDEF || (type != STT_OBJECT && type != STT_FUNC)) continue;
      if (plain_symbol(raw) == name) return std::pair<uint64_t, uint64_t>(addr, sym.st_size);
    }
  }
  return std::nullopt;
}

uint64_t VariablePrinter::Impl::elf_symbol_address(const char* name) const {
  for (const Module& m : modules) {
    int count = dwfl_module_getsymtab(m.mod);
    for (int i = 1; i < count; ++i) {
      GElf_Sym sym;
      GElf_Addr addr = 0;
      const char* raw = dwfl_module_getsym_info(m.mod, i, &sym, &addr, nullptr, nullptr, nullptr);
      if (raw && sym.st_shndx != SHN_UNDEF && plain_symbol(raw) == name) return addr;
    }
  }
  return 0;
}

// The module's TLS module id, from glibc's link_map of that module.
uint64_t VariablePrinter::Impl::tls_modid(const Module& m, const MemoryReader& read) {
  uint64_t r_debug = elf_symbol_address("_r_debug");
  uint64_t desc_at = elf_symbol_address("_thread_db_link_map_l_tls_modid");
  uint32_t desc[3] = {};  // {size in bits, count, offset}
  if (!r_debug || !desc_at || !read(desc_at, desc, sizeof desc) || desc[0] != 64)
    fail(fmt::format("cannot find the TLS module id of {} (no glibc link_map)", m.path));
  uint64_t map = read_u64(read, r_debug + 8);  // r_debug.r_map
  for (int n = 0; map != 0 && n < 4096; ++n) {
    if (read_u64(read, map + 16) == m.dynamic) return read_u64(read, map + desc[2]);  // l_ld
    map = read_u64(read, map + 24);                                                   // l_next
  }
  fail(fmt::format("cannot find the TLS module id of {}", m.path));
}

uint64_t VariablePrinter::Impl::variable_address(const Entry& e, const std::string& name, uint64_t tp,
                                                 const MemoryReader& read) {
  const Module& m = modules[e.module];
  Dwarf_Die die = e.die;
  Dwarf_Attribute attr;
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  if (!dwarf_attr(&die, DW_AT_location, &attr) || dwarf_getlocation(&attr, &ops, &n) != 0 || n == 0)
    fail(fmt::format("'{}' has no static address (optimized out, or a local)", name));
  auto operand = [&](Dwarf_Op* op, bool* ok) -> uint64_t {
    *ok = true;
    switch (op->atom) {
      case DW_OP_addr:
      case DW_OP_const4u:
      case DW_OP_const8u:
      case DW_OP_constu:
        return op->number;
      case DW_OP_addrx:
      case DW_OP_GNU_addr_index:
      case DW_OP_constx:
      case DW_OP_GNU_const_index: {
        Dwarf_Attribute res;
        Dwarf_Addr a = 0;
        if (dwarf_getlocation_attr(&attr, op, &res) == 0 && dwarf_formaddr(&res, &a) == 0) return a;
        break;
      }
      default:
        break;
    }
    *ok = false;
    return 0;
  };
  bool ok = false;
  uint64_t value = operand(&ops[0], &ok);
  bool addr_op = ops[0].atom == DW_OP_addr || ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index;
  if (ok && n == 1 && addr_op) return value + m.bias;
  bool tls = n == 2 && (ops[1].atom == DW_OP_form_tls_address || ops[1].atom == DW_OP_GNU_push_tls_address);
  if (!ok || !tls) fail(fmt::format("'{}' has no static address (optimized out, or a local)", name));
  if (tp == 0) fail(fmt::format("Cannot access thread-local variable '{}' without a thread", name));
  if (m.executable) {
    // glibc's _dl_determine_tlsoffset for the first module (variant II).
    uint64_t align = std::max<uint64_t>(m.tls_align, 1);
    uint64_t firstbyte = (0 - m.tls_vaddr) & (align - 1);
    uint64_t offset = (m.tls_memsz - firstbyte + align - 1) / align * align + firstbyte;
    return tp - offset + value;
  }
  if (!read) fail(fmt::format("Cannot access thread-local variable '{}' without reading memory", name));
  uint64_t modid = tls_modid(m, read);
  uint64_t dtv = read_u64(read, tp + kDtvInTcb);
  uint64_t block = read_u64(read, dtv + kDtvEntrySize * modid);
  if (block == 0 || block == UINT64_MAX)
    fail(fmt::format("The thread-local storage of {} is not allocated in this thread yet", m.path));
  return block + value;
}

std::string VariablePrinter::Impl::symbol_at(uint64_t addr) const {
  Dwfl_Module* mod = dwfl_addrmodule(dwfl, addr);
  if (!mod) return "";
  GElf_Off offset = 0;
  GElf_Sym sym{};
  const char* name = dwfl_module_addrinfo(mod, addr, &offset, &sym, nullptr, nullptr, nullptr);
  bool covers = sym.st_size > 0 ? offset < sym.st_size : offset == 0;
  if (!name || !covers) return "";
  return offset == 0 ? plain_symbol(name) : fmt::format("{}+{}", plain_symbol(name), offset);
}

VariablePrinter::VariablePrinter(pid_t pid) : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  im.dwfl = dwfl_begin(&kCallbacks);
  if (!im.dwfl) throw InternalError(fmt::format("libdw: {}", dwfl_errmsg(-1)));
  dwfl_report_begin(im.dwfl);
  dwfl_linux_proc_report(im.dwfl, pid);  // on failure no module is known: every name is unknown
  dwfl_report_end(im.dwfl, nullptr, nullptr);

  char exe[PATH_MAX] = {};
  ssize_t len = ::readlink(fmt::format("/proc/{}/exe", pid).c_str(), exe, sizeof exe - 1);
  std::string exe_path = len > 0 ? std::string(exe, static_cast<size_t>(len)) : "";
  auto collect = [](Dwfl_Module* mod, void**, const char* name, Dwarf_Addr, void* arg) -> int {
    auto* modules = static_cast<std::vector<Impl::Module>*>(arg);
    Impl::Module m;
    m.mod = mod;
    m.path = name ? name : "";
    GElf_Addr bias = 0;
    if (Elf* elf = dwfl_module_getelf(mod, &bias)) {
      size_t phnum = 0;
      elf_getphdrnum(elf, &phnum);
      for (size_t i = 0; i < phnum; ++i) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, static_cast<int>(i), &ph)) continue;
        if (ph.p_type == PT_TLS) {
          m.has_tls = true;
          m.tls_memsz = ph.p_memsz;
          m.tls_align = ph.p_align;
          m.tls_vaddr = ph.p_vaddr;
        } else if (ph.p_type == PT_DYNAMIC) {
          m.dynamic = ph.p_vaddr + bias;
        }
      }
      GElf_Ehdr eh;
      if (gelf_getehdr(elf, &eh) && eh.e_type == ET_EXEC) m.executable = true;
    }
    // No exception may unwind through libdw's C frames.
    try {
      modules->push_back(std::move(m));
    } catch (const std::bad_alloc&) {
      return DWARF_CB_ABORT;
    }
    return DWARF_CB_OK;
  };
  dwfl_getmodules(im.dwfl, collect, &im.modules, 0);
  for (Impl::Module& m : im.modules)
    if (!exe_path.empty() && m.path == exe_path) m.executable = true;
  std::stable_partition(im.modules.begin(), im.modules.end(), [](const Impl::Module& m) { return m.executable; });
}

VariablePrinter::~VariablePrinter() { dwfl_end(impl_->dwfl); }

std::string VariablePrinter::print(const std::string& expression, const MemoryReader& read, uint64_t thread_pointer) {
  return print(expression, read, thread_pointer, nullptr);
}

std::string VariablePrinter::print(const std::string& expression, const MemoryReader& read, uint64_t thread_pointer,
                                   const FrameContext* frame) {
  std::string text = expression;
  text.erase(0, text.find_first_not_of(" \t"));
  text.erase(text.find_last_not_of(" \t") + 1);
  if (text.empty()) fail("print needs an expression");
  Evaluator evaluator(*impl_, text, thread_pointer, read, frame);
  Value v = evaluator.parse();
  std::string shown;
  Dwarf_Die peeled;
  bool code = v.function || (v.lvalue && v.type.pointers == 0 && v.type.die && peel_type(*v.type.die, &peeled) &&
                             dwarf_tag(&peeled) == DW_TAG_subroutine_type);
  if (!v.unavailable.empty()) {
    shown = v.unavailable;
  } else if (v.held) {
    shown = impl_->formatter(read).format(v.type, v.held->data(), v.held->size(), true);
  } else if (code) {
    std::string sym = impl_->symbol_at(v.address);
    shown = fmt::format("{{{}}} {:#x}{}", type_name(v.type), v.address, sym.empty() ? "" : " <" + sym + ">");
  } else if (!v.lvalue) {
    shown = impl_->formatter(read).format_pointer(v.type, v.pointer, true);
  } else {
    uint64_t size = type_size(v.type);
    std::vector<uint8_t> bytes(std::min(size, kMaxValueBytes));
    if (!read || !read(v.address, bytes.data(), bytes.size())) fail(cannot_access(v.address));
    shown = impl_->formatter(read).format(v.type, bytes.data(), bytes.size(), true);
  }
  return fmt::format("{} = {}", text, shown);
}

std::optional<std::pair<uint64_t, uint64_t>> VariablePrinter::address_of(const std::string& expression,
                                                                         uint64_t thread_pointer,
                                                                         const MemoryReader& read) {
  return address_of(expression, thread_pointer, read, nullptr);
}

std::optional<std::pair<uint64_t, uint64_t>> VariablePrinter::address_of(const std::string& expression,
                                                                         uint64_t thread_pointer,
                                                                         const MemoryReader& read,
                                                                         const FrameContext* frame) {
  Evaluator evaluator(*impl_, expression, thread_pointer, read, frame);
  try {
    Value v = evaluator.parse();
    if (v.function) {
      Dwarf_Die die = *v.type.die;
      Dwarf_Addr low = 0, high = 0;
      dwarf_lowpc(&die, &low);
      dwarf_highpc(&die, &high);
      return std::pair<uint64_t, uint64_t>(v.address, high > low ? high - low : 1);
    }
    if (!v.lvalue) fail(fmt::format("'{}' is not an object in memory", expression));
    return std::pair<uint64_t, uint64_t>(v.address, type_size(v.type));
  } catch (const UsageError&) {
    if (!evaluator.missing()) {
      // A name known only to the ELF symbol tables has an address and size.
      if (auto sym = impl_->elf_symbol(expression)) return sym;
      throw;
    }
    return std::nullopt;
  }
}

std::string VariablePrinter::symbol_at(uint64_t addr) const { return impl_->symbol_at(addr); }

}  // namespace ctrl

#include <dwarf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

#include "cli/ExitStatus.h"
#include "debug/FrameLocals.h"
#include "debug/VariablePrinter.h"
#include "debug/VariablePrinterImpl.h"

// gdb's expressions over the program's variables: parsing, evaluation to an
// object (or a value a frame holds), and printing (VariablePrinter.h).
namespace ctrl {
namespace {

[[noreturn]] void fail(const std::string& message) { throw UsageError(message); }
std::string cannot_access(uint64_t addr) { return fmt::format("Cannot access memory at address {:#x}", addr); }
uint64_t read_u64(const MemoryReader& read, uint64_t addr) { return VariablePrinter::Impl::read_word(read, addr); }

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

  // Whether a scalar lost some of its bytes (an aggregate shows which of
  // its members are lost when printed).
  static bool lost_data(const Value& v) {
    Dwarf_Die d;
    if (v.type.pointers == 0 && v.type.die && peel_type(*v.type.die, &d)) {
      int tag = dwarf_tag(&d);
      if (tag == DW_TAG_array_type || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
          tag == DW_TAG_union_type)
        return false;
    }
    return std::find(v.missing.begin(), v.missing.end(), true) != v.missing.end();
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
    ValueFormatter formatter = impl_->formatter(read);
    formatter.set_missing(v.held->data(), &v.missing);
    shown = formatter.format(v.type, v.held->data(), v.held->size(), true);
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

}  // namespace ctrl

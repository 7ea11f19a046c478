#include "debug/FrameLocals.h"

#include <dwarf.h>
#include <fmt/format.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "cli/ExitStatus.h"

namespace ctrl {
namespace {

[[noreturn]] void fail(const std::string& message) { throw UsageError(message); }

// A value that cannot be had in this frame; shown as `what` in its place.
struct Unavailable {
  std::string what;
};

constexpr unsigned kDwarfRegisters = 17;  // rax..r15 and the return address (x86-64 psABI)

// DWARF register number -> index of its 8-byte field in user_regs_struct.
size_t register_field(unsigned reg) {
  static constexpr size_t kOffsets[kDwarfRegisters] = {
      offsetof(user_regs_struct, rax), offsetof(user_regs_struct, rdx), offsetof(user_regs_struct, rcx),
      offsetof(user_regs_struct, rbx), offsetof(user_regs_struct, rsi), offsetof(user_regs_struct, rdi),
      offsetof(user_regs_struct, rbp), offsetof(user_regs_struct, rsp), offsetof(user_regs_struct, r8),
      offsetof(user_regs_struct, r9),  offsetof(user_regs_struct, r10), offsetof(user_regs_struct, r11),
      offsetof(user_regs_struct, r12), offsetof(user_regs_struct, r13), offsetof(user_regs_struct, r14),
      offsetof(user_regs_struct, r15), offsetof(user_regs_struct, rip)};
  return kOffsets[reg] / 8;
}

std::string register_name(uint64_t reg) {
  if (reg >= 17 && reg <= 32) return fmt::format("xmm{}", reg - 17);
  if (reg >= 33 && reg <= 40) return fmt::format("st{}", reg - 33);
  return fmt::format("DWARF register {}", reg);
}

// rax, rdx, rcx, rsi, rdi, r8-r11: a call may change them, so an outer
// frame's value is lost unless its function saved it.
bool caller_saved(unsigned reg) { return reg <= 2 || reg == 4 || reg == 5 || (reg >= 8 && reg <= 11); }

std::string op_name(unsigned atom) {
  switch (atom) {
    case DW_OP_implicit_pointer:
    case DW_OP_GNU_implicit_pointer:
      return "DW_OP_implicit_pointer";
    case DW_OP_bit_piece:
      return "DW_OP_bit_piece";
    case DW_OP_call2:
    case DW_OP_call4:
    case DW_OP_call_ref:
      return "DW_OP_call";
    case DW_OP_push_object_address:
      return "DW_OP_push_object_address";
    case DW_OP_form_tls_address:
    case DW_OP_GNU_push_tls_address:
      return "DW_OP_form_tls_address";
    case DW_OP_fbreg:
      return "DW_OP_fbreg";
    case DW_OP_call_frame_cfa:
      return "DW_OP_call_frame_cfa";
    default:
      return fmt::format("DW_OP_{:#x}", atom);
  }
}

std::vector<uint8_t> little_endian(uint64_t value, uint64_t size) {
  std::vector<uint8_t> bytes(size, 0);
  std::memcpy(bytes.data(), &value, std::min<uint64_t>(size, 8));
  return bytes;
}

}  // namespace

// A DWARF expression on a stack of 64-bit words, with the frame's registers.
class LocationEvaluator {
 public:
  LocationEvaluator(const FrameLocals& frame, const std::string& name, Dwarf_Attribute* attr)
      : f_(frame), name_(name), attr_(attr) {}

  // A location description: where the value of `size` bytes is.
  Whereabouts locate(const Dwarf_Op* ops, size_t n, uint64_t size) {
    std::vector<uint8_t> pieces;
    std::vector<bool> missing;
    bool pieced = false;
    for (size_t i = 0; i < n; ++i) {
      if (ops[i].atom != DW_OP_piece) {
        step(ops[i]);
        continue;
      }
      const uint64_t piece = ops[i].number;
      bool empty = kind_ == Part::kStack && stack_.empty();
      std::vector<uint8_t> part;
      if (!empty) try {
          part = part_bytes(piece);
        } catch (const Unavailable&) {
          empty = true;  // as an optimized-out piece: the value's other parts still show
        }
      if (empty) part.assign(piece, 0);
      pieces.insert(pieces.end(), part.begin(), part.end());
      missing.insert(missing.end(), piece, empty);
      pieced = true;
      stack_.clear();
      kind_ = Part::kStack;
    }
    Whereabouts w;
    if (pieced) {
      if (pieces.size() < size) missing.resize(size, true);
      pieces.resize(size, 0);
      missing.resize(size);
      w.kind = Whereabouts::Kind::kBytes;
      w.bytes = std::move(pieces);
      w.missing = std::move(missing);
    } else if (kind_ == Part::kStack) {
      if (stack_.empty()) throw Unavailable{"<optimized out>"};
      w.kind = Whereabouts::Kind::kMemory;
      w.address = stack_.back();
    } else {
      w.kind = Whereabouts::Kind::kBytes;
      w.bytes = part_bytes(size);
    }
    return w;
  }

  // A DWARF expression's value: the word it leaves on top of the stack.
  uint64_t value(const Dwarf_Op* ops, size_t n) {
    for (size_t i = 0; i < n; ++i) step(ops[i]);
    if (kind_ == Part::kRegister) return reg(register_);
    if (kind_ != Part::kStack && kind_ != Part::kValue) fail(fmt::format("'{}': unsupported frame base", name_));
    return top();
  }

 private:
  enum class Part { kStack, kRegister, kValue, kImplicit };

  uint64_t reg(uint64_t r) {
    if (r >= kDwarfRegisters) {
      // Vector and x87 registers: every call may change them.
      if (!f_.frame_.exact_pc) throw Unavailable{"<not saved>"};
      fail(fmt::format("'{}' is in register {}, which ctrl does not read", name_, register_name(r)));
    }
    size_t field = register_field(static_cast<unsigned>(r));
    if (!(f_.frame_.known >> field & 1))
      throw Unavailable{caller_saved(static_cast<unsigned>(r)) ? "<not saved>" : "<optimized out>"};
    uint64_t v = 0;
    std::memcpy(&v, reinterpret_cast<const char*>(&f_.frame_.regs) + field * 8, 8);
    return v;
  }
  uint64_t top() {
    if (stack_.empty()) fail(fmt::format("'{}': malformed DWARF expression (empty stack)", name_));
    return stack_.back();
  }
  uint64_t pop() {
    uint64_t v = top();
    stack_.pop_back();
    return v;
  }
  uint64_t read(uint64_t addr, uint64_t size) {
    uint64_t v = 0;
    if (size > 8 || !f_.read_ || !f_.read_(addr, &v, size))
      fail(fmt::format("Cannot access memory at address {:#x}", addr));
    return v;
  }
  uint64_t indexed_address(const Dwarf_Op& op) {
    Dwarf_Attribute result;
    Dwarf_Addr a = 0;
    if (!attr_ || dwarf_getlocation_attr(attr_, &op, &result) != 0 || dwarf_formaddr(&result, &a) != 0)
      fail(fmt::format("'{}': cannot resolve an indexed address", name_));
    return a;
  }

  // The bytes of the part described so far (a piece, or the whole value).
  std::vector<uint8_t> part_bytes(uint64_t size) {
    switch (kind_) {
      case Part::kRegister:
        if (size > 8) fail(fmt::format("'{}': a {}-byte value in one register is not supported", name_, size));
        return little_endian(reg(register_), size);
      case Part::kValue:
        return little_endian(top(), size);
      case Part::kImplicit:
        implicit_.resize(size, 0);
        return implicit_;
      case Part::kStack:
        break;
    }
    if (stack_.empty()) throw Unavailable{"<optimized out>"};
    std::vector<uint8_t> bytes(size);
    uint64_t addr = stack_.back();
    if (!f_.read_ || !f_.read_(addr, bytes.data(), size))
      fail(fmt::format("Cannot access memory at address {:#x}", addr));
    return bytes;
  }

  void step(const Dwarf_Op& op) {
    const unsigned atom = op.atom;
    const auto sn = static_cast<int64_t>(op.number);
    if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) return stack_.push_back(atom - DW_OP_lit0);
    if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) return stack_.push_back(reg(atom - DW_OP_breg0) + sn);
    if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
      kind_ = Part::kRegister;
      register_ = atom - DW_OP_reg0;
      return;
    }
    switch (atom) {
      case DW_OP_addr:
        return stack_.push_back(op.number + f_.bias_);
      case DW_OP_addrx:
      case DW_OP_GNU_addr_index:
        return stack_.push_back(indexed_address(op) + f_.bias_);
      case DW_OP_constx:
      case DW_OP_GNU_const_index:
        return stack_.push_back(indexed_address(op));
      // libdw already sign-extends the signed constants into number.
      case DW_OP_const1u:
      case DW_OP_const2u:
      case DW_OP_const4u:
      case DW_OP_const8u:
      case DW_OP_constu:
      case DW_OP_const1s:
      case DW_OP_const2s:
      case DW_OP_const4s:
      case DW_OP_const8s:
      case DW_OP_consts:
        return stack_.push_back(op.number);
      case DW_OP_fbreg:
        return stack_.push_back(f_.frame_base(name_) + sn);
      case DW_OP_bregx:
        return stack_.push_back(reg(op.number) + static_cast<int64_t>(op.number2));
      case DW_OP_regx:
        kind_ = Part::kRegister;
        register_ = op.number;
        return;
      case DW_OP_call_frame_cfa:
        return stack_.push_back(f_.cfa(name_));
      case DW_OP_stack_value:
        kind_ = Part::kValue;
        return;
      case DW_OP_implicit_value: {
        // libdw: number is the block's length, number2 its address.
        const auto* data = reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(op.number2));
        implicit_.assign(data, data + op.number);
        kind_ = Part::kImplicit;
        return;
      }
      case DW_OP_entry_value:
      case DW_OP_GNU_entry_value:
      case DW_OP_GNU_parameter_ref:
        // The value the register had on entry is the caller's to tell
        // (call site parameters); gdb too shows it as optimized out then.
        throw Unavailable{"<optimized out>"};
      case DW_OP_plus_uconst:
        return stack_.push_back(pop() + op.number);
      case DW_OP_deref:
        return stack_.push_back(read(pop(), 8));
      case DW_OP_deref_size:
        return stack_.push_back(read(pop(), op.number));
      case DW_OP_dup:
        return stack_.push_back(top());
      case DW_OP_drop:
        pop();
        return;
      case DW_OP_over:
      case DW_OP_pick: {
        uint64_t depth = atom == DW_OP_over ? 1 : op.number;
        if (depth >= stack_.size()) fail(fmt::format("'{}': malformed DWARF expression", name_));
        return stack_.push_back(stack_[stack_.size() - 1 - depth]);
      }
      case DW_OP_swap: {
        uint64_t a = pop(), b = pop();
        stack_.push_back(a);
        return stack_.push_back(b);
      }
      case DW_OP_neg:
        return stack_.push_back(0 - pop());
      case DW_OP_not:
        return stack_.push_back(~pop());
      case DW_OP_abs: {
        auto v = static_cast<int64_t>(pop());
        return stack_.push_back(static_cast<uint64_t>(v < 0 ? -v : v));
      }
      case DW_OP_plus:
      case DW_OP_minus:
      case DW_OP_mul:
      case DW_OP_and:
      case DW_OP_or:
      case DW_OP_xor:
      case DW_OP_shl:
      case DW_OP_shr:
      case DW_OP_shra:
      case DW_OP_div:
      case DW_OP_mod:
      case DW_OP_eq:
      case DW_OP_ne:
      case DW_OP_lt:
      case DW_OP_gt:
      case DW_OP_le:
      case DW_OP_ge: {
        uint64_t b = pop(), a = pop();
        const auto sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
        uint64_t r = 0;
        switch (atom) {
          case DW_OP_plus:
            r = a + b;
            break;
          case DW_OP_minus:
            r = a - b;
            break;
          case DW_OP_mul:
            r = a * b;
            break;
          case DW_OP_and:
            r = a & b;
            break;
          case DW_OP_or:
            r = a | b;
            break;
          case DW_OP_xor:
            r = a ^ b;
            break;
          case DW_OP_shl:
            r = b >= 64 ? 0 : a << b;
            break;
          case DW_OP_shr:
            r = b >= 64 ? 0 : a >> b;
            break;
          case DW_OP_shra:
            r = static_cast<uint64_t>(sa >> std::min<uint64_t>(b, 63));
            break;
          // Comparisons and division are signed in DWARF's generic type.
          case DW_OP_div:
            r = sb == 0 ? 0 : sb == -1 ? 0 - a : static_cast<uint64_t>(sa / sb);
            break;
          case DW_OP_mod:
            r = b == 0 ? 0 : a % b;
            break;
          case DW_OP_eq:
            r = sa == sb;
            break;
          case DW_OP_ne:
            r = sa != sb;
            break;
          case DW_OP_lt:
            r = sa < sb;
            break;
          case DW_OP_gt:
            r = sa > sb;
            break;
          case DW_OP_le:
            r = sa <= sb;
            break;
          default:
            r = sa >= sb;
            break;
        }
        return stack_.push_back(r);
      }
      case DW_OP_nop:
        return;
      default:
        fail(fmt::format("'{}': its DWARF location uses {}, which ctrl does not evaluate", name_, op_name(atom)));
    }
  }

  const FrameLocals& f_;
  const std::string& name_;
  Dwarf_Attribute* attr_;
  std::vector<uint64_t> stack_;
  Part kind_ = Part::kStack;
  uint64_t register_ = 0;
  std::vector<uint8_t> implicit_;
};

namespace {

// The out-of-line function containing pc, among the CU's functions and
// those of its namespaces and classes (for a pc in inlined code, whose
// scopes lead to the inlined function's abstract definition instead).
bool find_function(Dwarf_Die* parent, Dwarf_Addr pc, Dwarf_Die* out) {
  Dwarf_Die c;
  if (dwarf_child(parent, &c) != 0) return false;
  do {
    switch (dwarf_tag(&c)) {
      case DW_TAG_subprogram:
        if (dwarf_hasattr(&c, DW_AT_frame_base) && dwarf_haspc(&c, pc) == 1) {
          *out = c;
          return true;
        }
        break;
      case DW_TAG_namespace:
      case DW_TAG_structure_type:
      case DW_TAG_class_type:
        if (find_function(&c, pc, out)) return true;
        break;
      default:
        break;
    }
  } while (dwarf_siblingof(&c, &c) == 0);
  return false;
}

std::string die_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  const char* name = dwarf_attr_integrate(die, DW_AT_name, &attr) ? dwarf_formstring(&attr) : nullptr;
  return name ? name : "";
}

}  // namespace

FrameLocals::FrameLocals(Dwfl* dwfl, const FrameContext& frame, const MemoryReader& read) : frame_(frame), read_(read) {
  lookup_pc_ = frame.exact_pc ? frame.pc : frame.pc - 1;
  module_ = dwfl_addrmodule(dwfl, lookup_pc_);
  if (!module_) return;
  Dwarf_Die* cu = dwfl_module_addrdie(module_, lookup_pc_, &bias_);
  // Without .debug_aranges (clang) libdw may not find the unit: scan them.
  for (cu = cu ? cu : dwfl_module_nextcu(module_, nullptr, &bias_); cu && dwarf_haspc(cu, lookup_pc_ - bias_) != 1;)
    cu = dwfl_module_nextcu(module_, cu, &bias_);
  if (!cu) return;
  // The concrete tree from the function down (dwarf_getscopes would leave
  // an inlined function for the scopes of its abstract definition).
  Dwarf_Die function;
  if (!find_function(cu, lookup_pc_ - bias_, &function)) return;
  function_ = function;
  Dwarf_Die scope = function;
  for (bool deeper = true; deeper;) {
    scopes_.insert(scopes_.begin(), scope);
    deeper = false;
    Dwarf_Die c;
    if (dwarf_child(&scope, &c) != 0) break;
    do {
      int tag = dwarf_tag(&c);
      if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) &&
          dwarf_haspc(&c, lookup_pc_ - bias_) == 1) {
        scope = c;
        deeper = true;
        break;
      }
    } while (dwarf_siblingof(&c, &c) == 0);
  }
}

std::optional<Dwarf_Die> FrameLocals::find(const std::string& name) const {
  for (Dwarf_Die scope : scopes_) {
    Dwarf_Die c;
    if (dwarf_child(&scope, &c) != 0) continue;
    do {
      int tag = dwarf_tag(&c);
      if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) continue;
      if (dwarf_hasattr(&c, DW_AT_declaration)) continue;  // an extern declared in a block
      if (die_name(&c) == name) return c;
    } while (dwarf_siblingof(&c, &c) == 0);
  }
  return std::nullopt;
}

Whereabouts FrameLocals::locate(Dwarf_Die variable, uint64_t size) const {
  const std::string name = die_name(&variable);
  Dwarf_Attribute attr;
  try {
    if (dwarf_attr(&variable, DW_AT_location, &attr)) {
      Dwarf_Op* exprs[1];
      size_t lens[1];
      int found = dwarf_getlocation_addr(&attr, lookup_pc_ - bias_, exprs, lens, 1);
      if (found < 0) fail(fmt::format("'{}': cannot read its DWARF location: {}", name, dwarf_errmsg(-1)));
      if (found == 0 || lens[0] == 0) throw Unavailable{"<optimized out>"};
      return LocationEvaluator(*this, name, &attr).locate(exprs[0], lens[0], size);
    }
    if (dwarf_attr_integrate(&variable, DW_AT_const_value, &attr)) {
      Whereabouts w;
      w.kind = Whereabouts::Kind::kBytes;
      Dwarf_Block block;
      Dwarf_Sword s = 0;
      Dwarf_Word u = 0;
      unsigned form = dwarf_whatform(&attr);
      if (form == DW_FORM_block || form == DW_FORM_block1 || form == DW_FORM_block2 || form == DW_FORM_block4) {
        if (dwarf_formblock(&attr, &block) != 0) fail(fmt::format("'{}': unreadable DW_AT_const_value", name));
        w.bytes.assign(block.data, block.data + block.length);
        w.bytes.resize(size, 0);
      } else if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
        dwarf_formsdata(&attr, &s);
        w.bytes = little_endian(static_cast<uint64_t>(s), size);
      } else {
        dwarf_formudata(&attr, &u);
        w.bytes = little_endian(u, size);
      }
      return w;
    }
    throw Unavailable{"<optimized out>"};
  } catch (const Unavailable& u) {
    Whereabouts w;
    w.unavailable = u.what;
    return w;
  }
}

uint64_t FrameLocals::frame_base(const std::string& name) const {
  Dwarf_Attribute attr;
  Dwarf_Die function = function_ ? *function_ : Dwarf_Die{};
  if (!function_ || !dwarf_attr(&function, DW_AT_frame_base, &attr))
    fail(fmt::format("'{}': its function has no frame base", name));
  Dwarf_Op* exprs[1];
  size_t lens[1];
  if (dwarf_getlocation_addr(&attr, lookup_pc_ - bias_, exprs, lens, 1) != 1 || lens[0] == 0)
    throw Unavailable{"<optimized out>"};
  return LocationEvaluator(*this, name, &attr).value(exprs[0], lens[0]);
}

uint64_t FrameLocals::cfa(const std::string& name) const {
  Dwarf_Frame* frame = nullptr;
  for (bool eh : {true, false}) {
    Dwarf_Addr bias = 0;
    Dwarf_CFI* cfi = eh ? dwfl_module_eh_cfi(module_, &bias) : dwfl_module_dwarf_cfi(module_, &bias);
    if (cfi && dwarf_cfi_addrframe(cfi, lookup_pc_ - bias, &frame) == 0) break;
    frame = nullptr;
  }
  if (!frame) fail(fmt::format("'{}': no call frame information at {:#x}", name, lookup_pc_));
  Dwarf_Op* ops = nullptr;
  size_t n = 0;
  try {
    if (dwarf_frame_cfa(frame, &ops, &n) != 0 || n == 0)
      fail(fmt::format("'{}': no canonical frame address at {:#x}", name, lookup_pc_));
    uint64_t v = LocationEvaluator(*this, name, nullptr).value(ops, n);
    std::free(frame);
    return v;
  } catch (...) {
    std::free(frame);
    throw;
  }
}

}  // namespace ctrl

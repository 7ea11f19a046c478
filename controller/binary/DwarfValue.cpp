#include "binary/DwarfValue.h"

#include <dwarf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace ctrl {
namespace {

constexpr size_t kPrintElements = 200;   // gdb's `set print elements`
constexpr size_t kRepeatThreshold = 10;  // gdb's `set print repeats`

std::string cannot_access(uint64_t addr) { return fmt::format("Cannot access memory at address {:#x}", addr); }

bool is_cplus(Dwarf_Die* die) {
  Dwarf_Die cu;
  if (!dwarf_diecu(die, &cu, nullptr, nullptr)) return false;
  int lang = dwarf_srclang(&cu);
  return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 || lang == DW_LANG_C_plus_plus_11 ||
         lang == DW_LANG_C_plus_plus_14;
}

// Element counts of an array type, outermost first (0 for a flexible one).
std::vector<uint64_t> array_dims(Dwarf_Die arr) {
  std::vector<uint64_t> dims;
  Dwarf_Die child;
  if (dwarf_child(&arr, &child) != 0) return dims;
  do {
    if (dwarf_tag(&child) != DW_TAG_subrange_type) continue;
    uint64_t count = die_udata(&child, DW_AT_count, UINT64_MAX);
    if (count == UINT64_MAX) {
      Dwarf_Attribute attr;
      Dwarf_Sword upper = -1;
      if (dwarf_attr_integrate(&child, DW_AT_upper_bound, &attr)) dwarf_formsdata(&attr, &upper);
      count = static_cast<uint64_t>(upper + 1 - static_cast<Dwarf_Sword>(die_udata(&child, DW_AT_lower_bound, 0)));
    }
    dims.push_back(count);
  } while (dwarf_siblingof(&child, &child) == 0);
  return dims;
}

DwarfType element_of_array(Dwarf_Die arr, unsigned dims_done) {
  if (dims_done + 1 < array_dims(arr).size()) return DwarfType{arr, 0, dims_done + 1};
  Dwarf_Die elem;
  if (!die_type(&arr, &elem)) return DwarfType{};
  return DwarfType{elem};
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// A C declarator: `inner` is what the type applies to ("", "*", "(*)").
std::string declarator(std::optional<Dwarf_Die> die, const std::string& inner) {
  auto with = [&](const std::string& base) { return inner.empty() ? base : base + " " + inner; };
  if (!die) return with("void");
  Dwarf_Die d = *die, target;
  bool has_target = die_type(&d, &target);
  std::optional<Dwarf_Die> next = has_target ? std::optional<Dwarf_Die>(target) : std::nullopt;
  const char* raw = dwarf_diename(&d);
  std::string name = raw ? raw : "";
  auto tagged = [&](const char* keyword) {
    if (name.empty()) return with(fmt::format("{} {{...}}", keyword));
    return with(is_cplus(&d) ? name : fmt::format("{} {}", keyword, name));
  };
  auto qualified = [&](const char* q) {
    int tag = next ? dwarf_tag(&*next) : 0;
    if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type)
      return declarator(next, inner.empty() ? q : fmt::format("{} {}", q, inner));
    return fmt::format("{} {}", q, declarator(next, inner));
  };
  switch (dwarf_tag(&d)) {
    case DW_TAG_structure_type:
      return tagged("struct");
    case DW_TAG_class_type:
      return tagged("class");
    case DW_TAG_union_type:
      return tagged("union");
    case DW_TAG_enumeration_type:
      return tagged("enum");
    case DW_TAG_const_type:
      return qualified("const");
    case DW_TAG_volatile_type:
      return qualified("volatile");
    case DW_TAG_atomic_type:
      return qualified("_Atomic");
    case DW_TAG_restrict_type:
      return qualified("restrict");
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type: {
      const char* op = dwarf_tag(&d) == DW_TAG_pointer_type ? "*" : dwarf_tag(&d) == DW_TAG_reference_type ? "&" : "&&";
      int tag = next ? dwarf_tag(&*next) : 0;
      bool wrap = tag == DW_TAG_array_type || tag == DW_TAG_subroutine_type;
      return declarator(next, wrap ? fmt::format("({}{})", op, inner) : op + inner);
    }
    case DW_TAG_array_type: {
      std::string dims;
      for (uint64_t n : array_dims(d)) dims += n ? fmt::format("[{}]", n) : "[]";
      return declarator(next, inner + dims);
    }
    case DW_TAG_subroutine_type:
    case DW_TAG_subprogram: {
      std::vector<std::string> params;
      Dwarf_Die child;
      if (dwarf_child(&d, &child) == 0) do {
          Dwarf_Die ptype;
          if (dwarf_tag(&child) == DW_TAG_formal_parameter)
            params.push_back(declarator(die_type(&child, &ptype) ? std::optional(ptype) : std::nullopt, ""));
          else if (dwarf_tag(&child) == DW_TAG_unspecified_parameters)
            params.push_back("...");
        } while (dwarf_siblingof(&child, &child) == 0);
      if (params.empty()) params.push_back("void");
      return declarator(next, fmt::format("{}({})", inner, join(params, ", ")));
    }
    default:
      return with(name.empty() ? "?" : name);
  }
}

uint64_t load(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  std::memcpy(&v, p, std::min<size_t>(n, 8));
  return v;
}

int64_t sign_extend(uint64_t v, size_t bytes) {
  if (bytes >= 8) return static_cast<int64_t>(v);
  unsigned shift = 64 - 8 * static_cast<unsigned>(bytes);
  return static_cast<int64_t>(v << shift) >> shift;
}


// gdb's string form: quoted runs, with runs of one character longer than
// the repeat threshold as "'c' <repeats N times>".
std::string quote_chars(const std::vector<uint8_t>& s, bool truncated) {
  std::vector<std::string> parts;
  std::string open;
  for (size_t i = 0; i < s.size();) {
    size_t j = i;
    while (j < s.size() && s[j] == s[i]) ++j;
    if (j - i > kRepeatThreshold) {
      if (!open.empty()) parts.push_back("\"" + open + "\"");
      open.clear();
      parts.push_back(fmt::format("'{}' <repeats {} times>", escaped(s[i], '\''), j - i));
    } else {
      for (size_t k = i; k < j; ++k) open += escaped(s[k], '"');
    }
    i = j;
  }
  if (!open.empty() || parts.empty()) parts.push_back("\"" + open + "\"");
  return join(parts, ", ") + (truncated ? "..." : "");
}

bool is_char(const DwarfType& t) {
  Dwarf_Die d;
  if (t.pointers || t.dims || !t.die || !peel_type(*t.die, &d) || dwarf_tag(&d) != DW_TAG_base_type) return false;
  uint64_t enc = die_udata(&d, DW_AT_encoding, 0);
  return die_udata(&d, DW_AT_byte_size, 0) == 1 && (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char);
}

}  // namespace

std::string escaped(uint8_t c, char quote) {
  switch (c) {
    case '\a':
      return "\\a";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\v':
      return "\\v";
    case '\\':
      return "\\\\";
    default:
      break;
  }
  if (c == static_cast<uint8_t>(quote)) return std::string("\\") + quote;
  if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
  return fmt::format("\\{:03o}", c);
}

bool die_type(Dwarf_Die* die, Dwarf_Die* out) {
  Dwarf_Attribute attr;
  return dwarf_attr_integrate(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, out);
}

// Strips typedefs and qualifiers; false for void.
bool peel_type(Dwarf_Die die, Dwarf_Die* out) { return dwarf_peel_type(&die, out) == 0; }

uint64_t die_udata(Dwarf_Die* die, unsigned name, uint64_t otherwise) {
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  if (!dwarf_attr_integrate(die, name, &attr) || dwarf_formudata(&attr, &value) != 0) return otherwise;
  return value;
}

uint64_t type_size(const DwarfType& t);

uint64_t type_size(const DwarfType& t) {
  if (t.pointers > 0) return 8;
  Dwarf_Die d;
  if (!t.die || !peel_type(*t.die, &d)) return 1;
  if (dwarf_tag(&d) == DW_TAG_array_type) {
    std::vector<uint64_t> dims = array_dims(d);
    uint64_t n = 1;
    for (size_t i = t.dims; i < dims.size(); ++i) n *= dims[i];
    Dwarf_Die elem;
    return n * (die_type(&d, &elem) ? type_size(DwarfType{elem}) : 1);
  }
  Dwarf_Word size = 0;
  if (dwarf_aggregate_size(&d, &size) == 0) return size;
  int tag = dwarf_tag(&d);
  return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type ? 8 : 1;
}

std::string type_name(const DwarfType& t) {
  std::string stars(t.pointers, '*');
  Dwarf_Die d;
  bool peeled = t.die && peel_type(*t.die, &d);
  int tag = peeled ? dwarf_tag(&d) : 0;
  if (t.dims > 0 && peeled && tag == DW_TAG_array_type) {
    std::vector<uint64_t> dims = array_dims(d);
    std::string inner = t.pointers ? "(" + stars + ")" : "";
    for (size_t i = t.dims; i < dims.size(); ++i) inner += fmt::format("[{}]", dims[i]);
    Dwarf_Die elem;
    return declarator(die_type(&d, &elem) ? std::optional(elem) : std::nullopt, inner);
  }
  bool wrap = t.pointers && (tag == DW_TAG_array_type || tag == DW_TAG_subroutine_type || tag == DW_TAG_subprogram);
  return declarator(t.die, wrap ? "(" + stars + ")" : stars);
}

// What a pointer-like type points to.
std::optional<DwarfType> type_pointee(const DwarfType& t) {
  if (t.pointers) return DwarfType{t.die, t.pointers - 1, t.dims};
  Dwarf_Die d, target;
  if (!t.die || !peel_type(*t.die, &d)) return std::nullopt;
  int tag = dwarf_tag(&d);
  if (tag == DW_TAG_array_type) return element_of_array(d, t.dims);
  if (tag != DW_TAG_pointer_type && tag != DW_TAG_reference_type && tag != DW_TAG_rvalue_reference_type)
    return std::nullopt;
  return die_type(&d, &target) ? DwarfType{target} : DwarfType{};
}

ValueFormatter::ValueFormatter(const MemoryReader& read, std::function<std::string(uint64_t)> symbol_at)
    : read_(read), symbol_at_(std::move(symbol_at)) {}

std::string ValueFormatter::format_base(Dwarf_Die d, const uint8_t* p, size_t n) {
  uint64_t enc = die_udata(&d, DW_AT_encoding, DW_ATE_unsigned);
  uint64_t raw = load(p, n);
  switch (enc) {
    case DW_ATE_boolean:
      return raw == 0 ? "false" : raw == 1 ? "true" : fmt::format("{}", raw);
    case DW_ATE_float:
      if (n == 4) {
        float f;
        std::memcpy(&f, p, 4);
        return fmt::format("{:.9g}", f);
      }
      if (n == 8) {
        double f;
        std::memcpy(&f, p, 8);
        return fmt::format("{:.17g}", f);
      }
      if (n == 16 || n == 10) {
        long double f = 0;
        std::memcpy(&f, p, std::min(n, sizeof f));
        return fmt::format("{:.18g}", f);
      }
      break;
    case DW_ATE_signed_char:
    case DW_ATE_unsigned_char:
      if (n == 1) {
        std::string num = enc == DW_ATE_signed_char ? fmt::format("{}", static_cast<int8_t>(raw))
                                                    : fmt::format("{}", static_cast<uint8_t>(raw));
        return fmt::format("{} '{}'", num, escaped(static_cast<uint8_t>(raw), '\''));
      }
      break;
    case DW_ATE_signed:
    case DW_ATE_unsigned:
      if (n == 16) {  // fmt has no 128-bit integers in every version
        unsigned __int128 u;
        std::memcpy(&u, p, 16);
        bool neg = enc == DW_ATE_signed && static_cast<__int128>(u) < 0;
        if (neg) u = -u;
        std::string digits;
        do digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
        while ((u /= 10) != 0);
        return (neg ? "-" : "") + digits;
      }
      if (enc == DW_ATE_signed) return fmt::format("{}", sign_extend(raw, n));
      break;
    default:
      break;
  }
  if (n <= 8) return fmt::format("{}", raw);
  std::string hex = "0x";
  for (size_t i = n; i-- > 0;) hex += fmt::format("{:02x}", p[i]);
  return hex;
}

std::string ValueFormatter::format_pointer(const DwarfType& t, uint64_t value, bool top) {
  std::optional<DwarfType> target = type_pointee(t);
  std::string text = fmt::format("{:#x}", value);
  if (std::string sym = symbol_at_(value); value != 0 && !sym.empty()) text += " <" + sym + ">";
  if (target && is_char(*target)) {
    if (value == 0) return text;
    std::vector<uint8_t> chars;
    bool readable = true, ended = false;
    while (chars.size() < kPrintElements && !ended) {
      uint64_t at = value + chars.size();
      uint8_t chunk[64];
      size_t len = std::min<size_t>({sizeof chunk, 4096 - (at & 4095), kPrintElements - chars.size()});
      if (!read_ || !read_(at, chunk, len)) {
        readable = chars.size() > 0;
        break;
      }
      for (size_t i = 0; i < len && !ended; ++i) chunk[i] == 0 ? void(ended = true) : chars.push_back(chunk[i]);
    }
    if (!readable) return fmt::format("{} <error: {}>", text, cannot_access(value));
    return fmt::format("{} {}", text, quote_chars(chars, !ended));
  }
  return top ? fmt::format("({}) {}", type_name(t), text) : text;
}

std::string ValueFormatter::format_array(Dwarf_Die arr, unsigned dims_done, const uint8_t* p, size_t n) {
  std::vector<uint64_t> dims = array_dims(arr);
  uint64_t count = dims_done < dims.size() ? dims[dims_done] : 0;
  DwarfType elem = element_of_array(arr, dims_done);
  uint64_t esize = type_size(elem);
  uint64_t shown = std::min<uint64_t>(count, kPrintElements);
  if (is_char(elem)) {
    std::vector<uint8_t> chars(p, p + std::min<uint64_t>(shown, n));
    if (count <= kPrintElements && !chars.empty() && chars.back() == 0) chars.pop_back();
    return quote_chars(chars, count > kPrintElements);
  }
  std::vector<std::string> items;
  for (uint64_t i = 0; i < shown; ++i) {
    uint64_t at = i * esize;
    items.push_back(at + esize <= n ? format(elem, p + at, esize, false) : "<unavailable>");
  }
  std::vector<std::string> parts;
  for (size_t i = 0; i < items.size();) {
    size_t j = i;
    while (j < items.size() && items[j] == items[i]) ++j;
    if (j - i > kRepeatThreshold) {
      parts.push_back(fmt::format("{} <repeats {} times>", items[i], j - i));
    } else {
      for (size_t k = i; k < j; ++k) parts.push_back(items[k]);
    }
    i = j;
  }
  return "{" + join(parts, ", ") + (count > kPrintElements ? "...}" : "}");
}

std::string ValueFormatter::format_struct(Dwarf_Die d, const uint8_t* p, size_t n) {
  std::vector<std::string> parts;
  Dwarf_Die child;
  if (dwarf_child(&d, &child) == 0) do {
      int tag = dwarf_tag(&child);
      Dwarf_Die mtype;
      if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) || !die_type(&child, &mtype)) continue;
      if (dwarf_hasattr_integrate(&child, DW_AT_declaration) || dwarf_hasattr(&child, DW_AT_external)) continue;
      uint64_t at = die_udata(&child, DW_AT_data_member_location, 0);
      const char* raw = dwarf_diename(&child);
      DwarfType t{mtype};
      std::string value;
      if (dwarf_hasattr(&child, DW_AT_bit_size)) {
        uint64_t bits = die_udata(&child, DW_AT_bit_size, 0);
        uint64_t first = die_udata(&child, DW_AT_data_bit_offset, UINT64_MAX);
        if (first == UINT64_MAX) {  // DWARF 2/3: bit_offset counts from the storage unit's top bit
          uint64_t unit = die_udata(&child, DW_AT_byte_size, type_size(t));
          first = at * 8 + unit * 8 - die_udata(&child, DW_AT_bit_offset, 0) - bits;
        }
        uint8_t window[16] = {};
        std::memcpy(window, p + std::min<uint64_t>(first / 8, n), std::min<uint64_t>(n - std::min(first / 8, n), 9));
        unsigned __int128 w;
        std::memcpy(&w, window, 16);
        uint64_t v = static_cast<uint64_t>(w >> (first % 8)) & (bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1);
        Dwarf_Die peeled;
        uint64_t enc = peel_type(mtype, &peeled) ? die_udata(&peeled, DW_AT_encoding, 0) : 0;
        if ((enc == DW_ATE_signed || enc == DW_ATE_signed_char) && bits < 64 && (v >> (bits - 1)) & 1)
          v |= ~((1ULL << bits) - 1);
        uint64_t tsize = std::min<uint64_t>(type_size(t), 8);
        value = format(t, reinterpret_cast<const uint8_t*>(&v), tsize, false);
      } else {
        uint64_t size = type_size(t);
        value = at + size <= n ? format(t, p + at, size, false) : "<unavailable>";
      }
      if (tag == DW_TAG_inheritance)
        parts.push_back(fmt::format("<{}> = {}", type_name(t), value));
      else
        parts.push_back(raw ? fmt::format("{} = {}", raw, value) : value);
    } while (dwarf_siblingof(&child, &child) == 0);
  return parts.empty() ? "{<No data fields>}" : "{" + join(parts, ", ") + "}";
}

// The enumerator's name, or the number when none has the value (gdb
// prints flag combinations too; a number is enough here).
std::string ValueFormatter::format_enum(Dwarf_Die d, const uint8_t* p, size_t n) {
  uint64_t raw = load(p, n);
  uint64_t mask = n >= 8 ? UINT64_MAX : (1ULL << (8 * n)) - 1;
  Dwarf_Die child;
  if (dwarf_child(&d, &child) == 0) do {
      Dwarf_Attribute attr;
      Dwarf_Word v = 0;
      if (dwarf_tag(&child) == DW_TAG_enumerator && dwarf_attr(&child, DW_AT_const_value, &attr) &&
          dwarf_formudata(&attr, &v) == 0 && (v & mask) == (raw & mask))
        return dwarf_diename(&child);
    } while (dwarf_siblingof(&child, &child) == 0);
  Dwarf_Die under, upeeled;
  bool is_signed =
      die_type(&d, &under) && peel_type(under, &upeeled) && die_udata(&upeeled, DW_AT_encoding, 0) == DW_ATE_signed;
  return is_signed ? fmt::format("{}", sign_extend(raw, n)) : fmt::format("{}", raw & mask);
}

bool ValueFormatter::lost(const DwarfType& t, const uint8_t* p, size_t n) const {
  if (!missing_ || p < base_ || p >= base_ + missing_->size()) return false;
  Dwarf_Die d;
  if (t.pointers == 0 && t.die && peel_type(*t.die, &d)) {
    int tag = dwarf_tag(&d);
    // An aggregate shows which of its parts are lost.
    if (tag == DW_TAG_array_type || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
        tag == DW_TAG_union_type)
      return false;
  }
  const auto from = static_cast<size_t>(p - base_);
  for (size_t i = from; i < std::min(from + n, missing_->size()); ++i)
    if ((*missing_)[i]) return true;
  return false;
}

std::string ValueFormatter::format(const DwarfType& t, const uint8_t* p, size_t n, bool top) {
  if (lost(t, p, n)) return "<optimized out>";
  if (t.pointers) return format_pointer(t, load(p, n), top);
  Dwarf_Die d;
  if (!t.die || !peel_type(*t.die, &d)) return "void";
  switch (dwarf_tag(&d)) {
    case DW_TAG_base_type:
      return format_base(d, p, n);
    case DW_TAG_enumeration_type:
      return format_enum(d, p, n);
    case DW_TAG_pointer_type:
      return format_pointer(t, load(p, n), top);
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type: {
      uint64_t addr = load(p, n);
      DwarfType target = *type_pointee(t);
      std::vector<uint8_t> bytes(std::min(type_size(target), kMaxValueBytes));
      if (!read_ || !read_(addr, bytes.data(), bytes.size()))
        return fmt::format("@{:#x}: <error: {}>", addr, cannot_access(addr));
      std::string shown = fmt::format("@{:#x}: {}", addr, format(target, bytes.data(), bytes.size(), false));
      return top ? fmt::format("({}) {}", type_name(t), shown) : shown;
    }
    case DW_TAG_array_type:
      return format_array(d, t.dims, p, n);
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type:
      return format_struct(d, p, n);
    default:
      return fmt::format("<unknown type {}>", type_name(t));
  }
}

}  // namespace ctrl

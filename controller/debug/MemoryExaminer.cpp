#include "debug/MemoryExaminer.h"

#include <capstone/capstone.h>
#include <fmt/format.h>

#include <cctype>
#include <cstring>
#include <vector>

#include "binary/DwarfValue.h"
#include "cli/ExitStatus.h"

namespace ctrl {
namespace {

constexpr size_t kStringLimit = 200;  // gdb's `set print elements`

[[noreturn]] void fail(const std::string& message) { throw UsageError(message); }
std::string cannot_access(uint64_t addr) { return fmt::format("Cannot access memory at address {:#x}", addr); }

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}


unsigned unit_of(char letter) {
  switch (letter) {
    case 'b':
      return 1;
    case 'h':
      return 2;
    case 'w':
      return 4;
    case 'g':
      return 8;
    default:
      return 0;
  }
}

// One decoded instruction in gdb's AT&T layout, and its length (1 for
// bytes capstone cannot decode, shown as "(bad)").
std::pair<std::string, size_t> disassemble(uint64_t addr, const MemoryReader& read, const MemoryExaminer::Namer& name,
                                           bool* readable) {
  uint8_t code[16];
  size_t len = sizeof code;
  // Near the end of a mapping fewer bytes are readable.
  while (len > 0 && !read(addr, code, len)) --len;
  *readable = len > 0;
  if (len == 0) return {"", 0};
  csh handle = 0;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) fail("capstone cannot decode x86-64");
  cs_option(handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
  cs_insn* insn = nullptr;
  std::pair<std::string, size_t> out{"(bad)", 1};
  if (cs_disasm(handle, code, len, addr, 1, &insn) == 1) {
    // gdb (libopcodes) separates operands by a bare comma.
    std::string operands = insn->op_str;
    for (size_t at; (at = operands.find(", ")) != std::string::npos;) operands.erase(at + 1, 1);
    // A direct call or jump names its target, as gdb does.
    std::string mnemonic = insn->mnemonic;
    bool branch = mnemonic.starts_with("call") || mnemonic.starts_with("j");
    if (branch && operands.starts_with("0x") && operands.find_first_not_of("0123456789abcdefx") == std::string::npos)
      if (std::string sym = name ? name(std::stoull(operands, nullptr, 16)) : ""; !sym.empty())
        operands += " <" + sym + ">";
    out.first = operands.empty() ? mnemonic : fmt::format("{:<6} {}", mnemonic, operands);
    out.second = insn->size;
    cs_free(insn, 1);
  }
  cs_close(&handle);
  return out;
}

}  // namespace

MemoryExaminer::MemoryExaminer(Resolver resolve, Namer name) : resolve_(std::move(resolve)), name_(std::move(name)) {}

std::string MemoryExaminer::label(uint64_t addr) const {
  std::string sym = name_ ? name_(addr) : "";
  return sym.empty() ? fmt::format("{:#x}", addr) : fmt::format("{:#x} <{}>", addr, sym);
}

std::string MemoryExaminer::unit_text(char format, unsigned unit, uint64_t raw) const {
  unsigned bits = unit * 8;
  int64_t sign = bits == 64 ? static_cast<int64_t>(raw) : static_cast<int64_t>(raw << (64 - bits)) >> (64 - bits);
  switch (format) {
    case 'x':
    case 'z':
      return fmt::format("0x{:0{}x}", raw, unit * 2);
    case 'd':
      return fmt::format("{}", sign);
    case 'u':
      return fmt::format("{}", raw);
    case 'o':
      return raw == 0 ? "0" : fmt::format("0{:o}", raw);
    case 't':
      return fmt::format("{:0{}b}", raw, bits);
    case 'c':
      return fmt::format("{} '{}'", sign, escaped(static_cast<uint8_t>(raw), '\''));
    case 'a': {
      std::string sym = name_ ? name_(raw) : "";
      return sym.empty() ? fmt::format("{:#x}", raw) : fmt::format("{:#x} <{}>", raw, sym);
    }
    case 'f':
      if (unit == 4) {
        float f;
        uint32_t w = static_cast<uint32_t>(raw);
        std::memcpy(&f, &w, 4);
        return fmt::format("{:.9g}", f);
      }
      if (unit == 8) {
        double f;
        std::memcpy(&f, &raw, 8);
        return fmt::format("{:.17g}", f);
      }
      return fmt::format("{}", sign);
    default:
      return "";
  }
}

std::string MemoryExaminer::examine(const std::string& arguments, const MemoryReader& read) {
  std::string args = trim(arguments);
  uint64_t count = 1;
  char format = format_;
  unsigned unit = 0;
  if (!args.empty() && args[0] == '/') {
    size_t i = 1;
    size_t digits = i;
    while (i < args.size() && std::isdigit(static_cast<unsigned char>(args[i]))) ++i;
    if (i > digits) count = std::stoull(args.substr(digits, i - digits));
    for (; i < args.size() && !std::isspace(static_cast<unsigned char>(args[i])); ++i) {
      char c = args[i];
      if (unit_of(c)) {
        unit = unit_of(c);
      } else if (std::strchr("xzduotcafsi", c)) {
        format = c;
      } else {
        fail(
            fmt::format("Undefined output format \"{}\".", args.substr(digits, args.find_first_of(" \t", i) - digits)));
      }
    }
    args = trim(args.substr(i));
  }
  if (count == 0) fail("x needs a count of at least 1");
  if (format == 'a') unit = 8;
  if (unit == 0) unit = format == 'c' ? 1 : format == 'f' && unit_ < 4 ? 8 : unit_;

  uint64_t addr = 0;
  if (args.empty()) {
    if (!next_) fail("Argument required (starting display address).");
    addr = *next_;
  } else {
    size_t used = 0;
    bool number = std::isdigit(static_cast<unsigned char>(args[0]));
    if (number) {
      try {
        addr = std::stoull(args, &used, 0);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != args.size()) fail(fmt::format("Invalid number \"{}\".", args));
    } else {
      std::string expression = trim(args[0] == '&' ? args.substr(1) : args);
      std::optional<uint64_t> resolved = resolve_ ? resolve_(expression) : std::nullopt;
      if (!resolved) fail(fmt::format("no symbol \"{}\" in the program", expression));
      addr = *resolved;
    }
  }

  format_ = format;
  if (format != 's' && format != 'i') unit_ = unit;
  std::vector<std::string> lines;
  auto unreadable = [&](uint64_t at) {
    if (lines.empty()) fail(cannot_access(at));
    lines.push_back(cannot_access(at));
    next_ = at;
    std::string out;
    for (size_t k = 0; k < lines.size(); ++k) out += (k ? "\n" : "") + lines[k];
    return out;
  };

  if (format == 's' || format == 'i') {
    for (uint64_t n = 0; n < count; ++n) {
      if (format == 'i') {
        bool readable = false;
        auto [text, size] = disassemble(addr, read, name_, &readable);
        if (!readable) return unreadable(addr);
        lines.push_back(fmt::format("   {}:\t{}", label(addr), text));
        addr += size;
        continue;
      }
      std::vector<uint8_t> chars;
      uint8_t c = 0;
      bool ended = false;
      while (chars.size() < kStringLimit) {
        if (!read(addr + chars.size(), &c, 1)) {
          if (chars.empty()) return unreadable(addr);
          break;
        }
        if (c == 0) {
          ended = true;
          break;
        }
        chars.push_back(c);
      }
      std::string quoted = "\"";
      for (uint8_t ch : chars) quoted += escaped(ch, '"');
      quoted += ended ? "\"" : "\"...";
      lines.push_back(fmt::format("{}:\t{}", label(addr), quoted));
      addr += chars.size() + (ended ? 1 : 0);
    }
  } else {
    size_t per_line = unit == 8 ? 2 : unit == 4 ? 4 : 8;
    std::string line;
    for (uint64_t n = 0; n < count; ++n) {
      uint64_t raw = 0;
      if (!read(addr, &raw, unit)) {
        if (!line.empty()) lines.push_back(line);
        return unreadable(addr);
      }
      if (n % per_line == 0) {
        if (!line.empty()) lines.push_back(line);
        line = label(addr) + ":";
      }
      line += "\t" + unit_text(format, unit, raw);
      addr += unit;
    }
    lines.push_back(line);
  }
  next_ = addr;
  std::string out;
  for (size_t k = 0; k < lines.size(); ++k) out += (k ? "\n" : "") + lines[k];
  return out;
}

}  // namespace ctrl

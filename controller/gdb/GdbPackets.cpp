#include "gdb/GdbPackets.h"

#include <capstone/capstone.h>

#include <cstdio>
#include <cstring>
#include <sstream>

#include "cli/ExitStatus.h"
#include "reports/XmlText.h"

namespace ctrl::gdb {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One register of the layout: its size and where user_regs_struct has it.
struct RegisterSlot {
  const char* name;
  int bits;
  const char* type;
  const char* group;  // nullptr: gdb's default
  int field;          // 8-byte field of user_regs_struct, -1: ctrl does not know it
};

// user_regs_struct's fields, in its order (sys/user.h).
enum Field {
  kR15,
  kR14,
  kR13,
  kR12,
  kRbp,
  kRbx,
  kR11,
  kR10,
  kR9,
  kR8,
  kRax,
  kRcx,
  kRdx,
  kRsi,
  kRdi,
  kOrigRax,
  kRip,
  kCs,
  kEflags,
  kRsp,
  kSs,
  kFsBase,
  kGsBase,
  kDs,
  kEs,
  kFs,
  kGs,
};
static_assert(sizeof(user_regs_struct) == 27 * 8);

// Feature boundaries in kLayout, for target_xml().
constexpr size_t kCoreEnd = 40, kSseEnd = 57, kLinuxEnd = 58;

constexpr RegisterSlot kLayout[] = {
    {"rax", 64, "int64", nullptr, kRax},
    {"rbx", 64, "int64", nullptr, kRbx},
    {"rcx", 64, "int64", nullptr, kRcx},
    {"rdx", 64, "int64", nullptr, kRdx},
    {"rsi", 64, "int64", nullptr, kRsi},
    {"rdi", 64, "int64", nullptr, kRdi},
    {"rbp", 64, "data_ptr", nullptr, kRbp},
    {"rsp", 64, "data_ptr", nullptr, kRsp},
    {"r8", 64, "int64", nullptr, kR8},
    {"r9", 64, "int64", nullptr, kR9},
    {"r10", 64, "int64", nullptr, kR10},
    {"r11", 64, "int64", nullptr, kR11},
    {"r12", 64, "int64", nullptr, kR12},
    {"r13", 64, "int64", nullptr, kR13},
    {"r14", 64, "int64", nullptr, kR14},
    {"r15", 64, "int64", nullptr, kR15},
    {"rip", 64, "code_ptr", nullptr, kRip},
    {"eflags", 32, "i386_eflags", nullptr, kEflags},
    {"cs", 32, "int32", nullptr, kCs},
    {"ss", 32, "int32", nullptr, kSs},
    {"ds", 32, "int32", nullptr, kDs},
    {"es", 32, "int32", nullptr, kEs},
    {"fs", 32, "int32", nullptr, kFs},
    {"gs", 32, "int32", nullptr, kGs},
    {"st0", 80, "i387_ext", nullptr, -1},
    {"st1", 80, "i387_ext", nullptr, -1},
    {"st2", 80, "i387_ext", nullptr, -1},
    {"st3", 80, "i387_ext", nullptr, -1},
    {"st4", 80, "i387_ext", nullptr, -1},
    {"st5", 80, "i387_ext", nullptr, -1},
    {"st6", 80, "i387_ext", nullptr, -1},
    {"st7", 80, "i387_ext", nullptr, -1},
    {"fctrl", 32, "int", "float", -1},
    {"fstat", 32, "int", "float", -1},
    {"ftag", 32, "int", "float", -1},
    {"fiseg", 32, "int", "float", -1},
    {"fioff", 32, "int", "float", -1},
    {"foseg", 32, "int", "float", -1},
    {"fooff", 32, "int", "float", -1},
    {"fop", 32, "int", "float", -1},
    // org.gnu.gdb.i386.sse
    {"xmm0", 128, "vec128", nullptr, -1},
    {"xmm1", 128, "vec128", nullptr, -1},
    {"xmm2", 128, "vec128", nullptr, -1},
    {"xmm3", 128, "vec128", nullptr, -1},
    {"xmm4", 128, "vec128", nullptr, -1},
    {"xmm5", 128, "vec128", nullptr, -1},
    {"xmm6", 128, "vec128", nullptr, -1},
    {"xmm7", 128, "vec128", nullptr, -1},
    {"xmm8", 128, "vec128", nullptr, -1},
    {"xmm9", 128, "vec128", nullptr, -1},
    {"xmm10", 128, "vec128", nullptr, -1},
    {"xmm11", 128, "vec128", nullptr, -1},
    {"xmm12", 128, "vec128", nullptr, -1},
    {"xmm13", 128, "vec128", nullptr, -1},
    {"xmm14", 128, "vec128", nullptr, -1},
    {"xmm15", 128, "vec128", nullptr, -1},
    {"mxcsr", 32, "i386_mxcsr", "vector", -1},
    // org.gnu.gdb.i386.linux
    {"orig_rax", 64, "int", nullptr, kOrigRax},
    // org.gnu.gdb.i386.segments
    {"fs_base", 64, "int", nullptr, kFsBase},
    {"gs_base", 64, "int", nullptr, kGsBase},
};
constexpr size_t kRegisters = sizeof kLayout / sizeof kLayout[0];
static_assert(kRegisters == 60 && kLayout[kCoreEnd].bits == 128 && kLayout[kSseEnd].field == kOrigRax &&
              kLayout[kLinuxEnd].field == kFsBase);

std::string encode_slot(const std::optional<ThreadRegisters>& registers, const RegisterSlot& slot) {
  size_t bytes = static_cast<size_t>(slot.bits / 8);
  if (!registers || slot.field < 0 || !(registers->known >> slot.field & 1)) return std::string(bytes * 2, 'x');
  uint64_t value;
  std::memcpy(&value, reinterpret_cast<const char*>(&registers->regs) + slot.field * 8, 8);
  std::string out;
  for (size_t i = 0; i < bytes; ++i) {
    char buffer[3];
    std::snprintf(buffer, sizeof buffer, "%02x", static_cast<unsigned>(value >> (8 * i) & 0xff));
    out += buffer;
  }
  return out;
}

void append_register_xml(std::string& xml, const RegisterSlot& slot) {
  xml += std::string("    <reg name=\"") + slot.name + "\" bitsize=\"" + std::to_string(slot.bits) + "\" type=\"" +
         slot.type + "\"";
  if (slot.group) xml += std::string(" group=\"") + slot.group + "\"";
  xml += "/>\n";
}

std::string build_target_xml() {
  std::string xml =
      "<?xml version=\"1.0\"?>\n"
      "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
      "<target version=\"1.0\">\n"
      "  <architecture>i386:x86-64</architecture>\n"
      "  <osabi>GNU/Linux</osabi>\n"
      "  <feature name=\"org.gnu.gdb.i386.core\">\n"
      "    <flags id=\"i386_eflags\" size=\"4\">\n"
      "      <field name=\"CF\" start=\"0\" end=\"0\"/>\n"
      "      <field name=\"\" start=\"1\" end=\"1\"/>\n"
      "      <field name=\"PF\" start=\"2\" end=\"2\"/>\n"
      "      <field name=\"AF\" start=\"4\" end=\"4\"/>\n"
      "      <field name=\"ZF\" start=\"6\" end=\"6\"/>\n"
      "      <field name=\"SF\" start=\"7\" end=\"7\"/>\n"
      "      <field name=\"TF\" start=\"8\" end=\"8\"/>\n"
      "      <field name=\"IF\" start=\"9\" end=\"9\"/>\n"
      "      <field name=\"DF\" start=\"10\" end=\"10\"/>\n"
      "      <field name=\"OF\" start=\"11\" end=\"11\"/>\n"
      "    </flags>\n";
  for (size_t i = 0; i < kCoreEnd; ++i) append_register_xml(xml, kLayout[i]);
  xml +=
      "  </feature>\n"
      "  <feature name=\"org.gnu.gdb.i386.sse\">\n"
      "    <vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>\n"
      "    <vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>\n"
      "    <vector id=\"v16i8\" type=\"int8\" count=\"16\"/>\n"
      "    <vector id=\"v8i16\" type=\"int16\" count=\"8\"/>\n"
      "    <vector id=\"v4i32\" type=\"int32\" count=\"4\"/>\n"
      "    <vector id=\"v2i64\" type=\"int64\" count=\"2\"/>\n"
      "    <union id=\"vec128\">\n"
      "      <field name=\"v4_float\" type=\"v4f\"/>\n"
      "      <field name=\"v2_double\" type=\"v2d\"/>\n"
      "      <field name=\"v16_int8\" type=\"v16i8\"/>\n"
      "      <field name=\"v8_int16\" type=\"v8i16\"/>\n"
      "      <field name=\"v4_int32\" type=\"v4i32\"/>\n"
      "      <field name=\"v2_int64\" type=\"v2i64\"/>\n"
      "      <field name=\"uint128\" type=\"uint128\"/>\n"
      "    </union>\n"
      "    <flags id=\"i386_mxcsr\" size=\"4\">\n"
      "      <field name=\"IE\" start=\"0\" end=\"0\"/>\n"
      "      <field name=\"DE\" start=\"1\" end=\"1\"/>\n"
      "      <field name=\"ZE\" start=\"2\" end=\"2\"/>\n"
      "      <field name=\"OE\" start=\"3\" end=\"3\"/>\n"
      "      <field name=\"UE\" start=\"4\" end=\"4\"/>\n"
      "      <field name=\"PE\" start=\"5\" end=\"5\"/>\n"
      "      <field name=\"DAZ\" start=\"6\" end=\"6\"/>\n"
      "      <field name=\"IM\" start=\"7\" end=\"7\"/>\n"
      "      <field name=\"DM\" start=\"8\" end=\"8\"/>\n"
      "      <field name=\"ZM\" start=\"9\" end=\"9\"/>\n"
      "      <field name=\"OM\" start=\"10\" end=\"10\"/>\n"
      "      <field name=\"UM\" start=\"11\" end=\"11\"/>\n"
      "      <field name=\"PM\" start=\"12\" end=\"12\"/>\n"
      "      <field name=\"FZ\" start=\"15\" end=\"15\"/>\n"
      "    </flags>\n";
  for (size_t i = kCoreEnd; i < kSseEnd; ++i) append_register_xml(xml, kLayout[i]);
  xml +=
      "  </feature>\n"
      "  <feature name=\"org.gnu.gdb.i386.linux\">\n";
  for (size_t i = kSseEnd; i < kLinuxEnd; ++i) append_register_xml(xml, kLayout[i]);
  xml +=
      "  </feature>\n"
      "  <feature name=\"org.gnu.gdb.i386.segments\">\n";
  for (size_t i = kLinuxEnd; i < kRegisters; ++i) append_register_xml(xml, kLayout[i]);
  xml +=
      "  </feature>\n"
      "</target>\n";
  return xml;
}

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

uint64_t decimal(const std::string& word, const char* what) {
  if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos || word.size() > 18)
    throw UsageError(std::string("bad ") + what + " '" + word + "' (a decimal number)");
  return std::stoull(word);
}

uint32_t thread_word(const std::string& word) {
  std::string digits = (!word.empty() && (word[0] == 'T' || word[0] == 't')) ? word.substr(1) : word;
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
    throw UsageError("bad thread '" + word + "' (T<n> or n)");
  return static_cast<uint32_t>(std::stoul(digits));
}

}  // namespace

std::string to_hex(std::string_view bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    auto b = static_cast<unsigned char>(c);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int high = hex_digit(hex[i]), low = hex_digit(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
  }
  return out;
}

std::optional<uint64_t> parse_hex(std::string_view text) {
  if (text.empty() || text.size() > 16) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    int d = hex_digit(c);
    if (d < 0) return std::nullopt;
    value = value << 4 | static_cast<uint64_t>(d);
  }
  return value;
}

std::string hex_number(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "%llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

std::optional<ThreadId> parse_thread_id(std::string_view text) {
  if (!text.empty() && text[0] == 'p') {
    size_t dot = text.find('.');
    std::string_view pid = text.substr(1, dot == std::string_view::npos ? std::string_view::npos : dot - 1);
    if (pid != "-1" && !parse_hex(pid)) return std::nullopt;
    if (dot == std::string_view::npos) return ThreadId{ThreadId::Kind::All, 0};
    text = text.substr(dot + 1);
  }
  if (text == "-1") return ThreadId{ThreadId::Kind::All, 0};
  auto tid = parse_hex(text);
  if (!tid) return std::nullopt;
  if (*tid == 0) return ThreadId{ThreadId::Kind::Any, 0};
  if (*tid > UINT32_MAX) return std::nullopt;
  return ThreadId{ThreadId::Kind::One, static_cast<uint32_t>(*tid - 1)};
}

std::string thread_id(pid_t pid, uint32_t index) {
  return "p" + hex_number(static_cast<uint64_t>(pid)) + "." + hex_number(uint64_t{index} + 1);
}

const std::string& target_xml() {
  static const std::string xml = build_target_xml();
  return xml;
}

size_t register_count() { return kRegisters; }

std::string encode_registers(const std::optional<ThreadRegisters>& registers) {
  std::string out;
  for (const auto& slot : kLayout) out += encode_slot(registers, slot);
  return out;
}

std::optional<std::string> encode_register(const std::optional<ThreadRegisters>& registers, size_t number) {
  if (number >= kRegisters) return std::nullopt;
  return encode_slot(registers, kLayout[number]);
}

std::optional<uint64_t> call_before(std::string_view before, uint64_t return_address) {
  csh handle;
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK) return std::nullopt;
  std::optional<uint64_t> found;
  // Direct calls (5 bytes) first, then through rip-relative memory (6);
  // a register call with a REX prefix (3) before the same call without it
  // (2), whose bytes it ends with.
  for (size_t length : {5, 6, 3, 2, 4, 7, 8}) {
    if (length > before.size() || length > return_address) continue;
    const auto* code = reinterpret_cast<const uint8_t*>(before.data() + before.size() - length);
    cs_insn* insn = nullptr;
    size_t n = cs_disasm(handle, code, length, return_address - length, 1, &insn);
    bool call = n == 1 && insn[0].size == length && insn[0].id == X86_INS_CALL;
    if (n) cs_free(insn, n);
    if (call) {
      found = return_address - length;
      break;
    }
  }
  cs_close(&handle);
  return found;
}

std::optional<XferRead> parse_xfer_read(std::string_view payload) {
  constexpr std::string_view prefix = "qXfer:";
  if (payload.substr(0, prefix.size()) != prefix) return std::nullopt;
  payload.remove_prefix(prefix.size());
  XferRead r;
  size_t colon = payload.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  r.object = std::string(payload.substr(0, colon));
  payload.remove_prefix(colon + 1);
  if (payload.substr(0, 5) != "read:") return std::nullopt;
  payload.remove_prefix(5);
  colon = payload.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  r.annex = std::string(payload.substr(0, colon));
  auto range = parse_memory_range(payload.substr(colon + 1));
  if (!range) return std::nullopt;
  r.offset = range->address;
  r.length = range->length;
  return r;
}

std::string xfer_slice(std::string_view document, uint64_t offset, uint64_t length) {
  if (offset >= document.size()) return "l";
  std::string_view part = document.substr(offset, length);
  return (offset + part.size() >= document.size() ? "l" : "m") + std::string(part);
}

std::optional<MemoryRange> parse_memory_range(std::string_view text) {
  size_t comma = text.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  auto address = parse_hex(text.substr(0, comma));
  auto length = parse_hex(text.substr(comma + 1));
  if (!address || !length) return std::nullopt;
  return MemoryRange{*address, *length};
}

std::optional<BreakpointRequest> parse_breakpoint(std::string_view payload) {
  if (payload.size() < 2 || (payload[0] != 'Z' && payload[0] != 'z') || payload[1] < '0' || payload[1] > '4')
    return std::nullopt;
  BreakpointRequest r;
  r.insert = payload[0] == 'Z';
  r.type = payload[1] - '0';
  payload.remove_prefix(2);
  if (payload.empty() || payload[0] != ',') return std::nullopt;
  payload.remove_prefix(1);
  payload = payload.substr(0, payload.find(';'));
  auto range = parse_memory_range(payload);
  if (!range) return std::nullopt;
  r.address = range->address;
  r.kind = range->length;
  return r;
}

std::optional<std::vector<ResumeAction>> parse_vcont(std::string_view payload) {
  constexpr std::string_view prefix = "vCont;";
  if (payload.substr(0, prefix.size()) != prefix) return std::nullopt;
  payload.remove_prefix(prefix.size());
  std::vector<ResumeAction> actions;
  while (!payload.empty()) {
    size_t end = payload.find(';');
    std::string_view item = payload.substr(0, end);
    payload = end == std::string_view::npos ? std::string_view{} : payload.substr(end + 1);
    if (item.empty()) return std::nullopt;
    ResumeAction a;
    char c = item[0];
    size_t colon = item.find(':');
    std::string_view signal = item.substr(1, colon == std::string_view::npos ? std::string_view::npos : colon - 1);
    if (c == 'c' || c == 's' || c == 't') {
      if (!signal.empty()) return std::nullopt;
      a.action = c;
    } else if (c == 'C' || c == 'S') {
      if (signal.size() != 2 || !parse_hex(signal)) return std::nullopt;
      a.action = static_cast<char>(c - 'A' + 'a');
    } else {
      return std::nullopt;  // 'r' (range stepping) is not offered
    }
    a.thread = ThreadId{ThreadId::Kind::All, 0};
    if (colon != std::string_view::npos) {
      auto thread = parse_thread_id(item.substr(colon + 1));
      if (!thread) return std::nullopt;
      a.thread = *thread;
    }
    actions.push_back(a);
  }
  if (actions.empty()) return std::nullopt;
  return actions;
}

MonitorCommand parse_monitor(std::string_view text) {
  auto w = words(text);
  if (w.empty()) throw UsageError("empty monitor command (monitor help lists them)");
  const std::string& c = w[0];
  auto arguments = [&](size_t least, size_t most) {
    if (w.size() - 1 < least || w.size() - 1 > most)
      throw UsageError("monitor " + c + ": wrong number of arguments (monitor help shows them)");
  };
  MonitorCommand m{MonitorCommand::Name::Help, std::nullopt, 1, {}};
  if (c == "help") {
    arguments(0, 0);
  } else if (c == "threads") {
    arguments(0, 0);
    m.name = MonitorCommand::Name::Threads;
  } else if (c == "step" || c == "s") {
    arguments(0, 2);
    m.name = MonitorCommand::Name::Step;
    if (w.size() > 1) m.thread = thread_word(w[1]);
    if (w.size() > 2) m.count = decimal(w[2], "count");
    if (m.count == 0) throw UsageError("monitor step: the count must be at least 1");
  } else if (c == "back") {
    arguments(0, 1);
    m.name = MonitorCommand::Name::Back;
    if (w.size() > 1) m.count = decimal(w[1], "count");
  } else if (c == "goto") {
    arguments(1, 1);
    m.name = MonitorCommand::Name::Goto;
    m.count = decimal(w[1], "step");
  } else if (c == "schedule") {
    arguments(0, 0);
    m.name = MonitorCommand::Name::Schedule;
  } else if (c == "save") {
    arguments(1, 1);
    m.name = MonitorCommand::Name::Save;
    m.file = w[1];
  } else if (c == "checkpoint") {
    arguments(0, 0);
    m.name = MonitorCommand::Name::Checkpoint;
  } else if (c == "checkpoints") {
    arguments(0, 0);
    m.name = MonitorCommand::Name::Checkpoints;
  } else if (c == "restart") {
    arguments(1, 1);
    m.name = MonitorCommand::Name::Restart;
    m.count = decimal(w[1], "checkpoint id");
  } else {
    throw UsageError("unknown monitor command '" + c + "' (monitor help lists them)");
  }
  return m;
}

std::string monitor_help() {
  return "monitor threads          every thread, its state and pending operation\n"
         "monitor step [T] [N]     thread T performs its next N visible operations\n"
         "monitor back [N]         go back N steps\n"
         "monitor goto N           go to step N of the schedule\n"
         "monitor schedule         the interleaving so far\n"
         "monitor save FILE        write the schedule as a trace for ctrl replay\n"
         "monitor checkpoint       checkpoint the current step\n"
         "monitor checkpoints      list the checkpoints\n"
         "monitor restart ID       go to checkpoint ID\n"
         "After a monitor command that moves, run `maintenance flush register-cache`\n"
         "so that gdb forgets the registers and frames it had.\n";
}

std::string threads_xml(pid_t pid, const std::vector<ThreadEntry>& threads) {
  std::string xml = "<?xml version=\"1.0\"?>\n<threads>\n";
  for (const auto& t : threads)
    xml += "<thread id=\"" + thread_id(pid, t.index) + "\" name=\"" + xml_escape(t.name) + "\">" + xml_escape(t.extra) +
           "</thread>\n";
  xml += "</threads>\n";
  return xml;
}

std::string libraries_svr4_xml(const LibraryList& list) {
  std::string xml = "<library-list-svr4 version=\"1.0\" main-lm=\"0x" + hex_number(list.main_lm) + "\">\n";
  for (const auto& l : list.libraries)
    xml += "<library name=\"" + xml_escape(l.name) + "\" lm=\"0x" + hex_number(l.lm) + "\" l_addr=\"0x" +
           hex_number(l.l_addr) + "\" l_ld=\"0x" + hex_number(l.l_ld) + "\" lmid=\"0x0\"/>\n";
  xml += "</library-list-svr4>\n";
  return xml;
}

std::string console_output(std::string_view text) { return "O" + to_hex(text); }

}  // namespace ctrl::gdb

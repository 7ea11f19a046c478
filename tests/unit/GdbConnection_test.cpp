// The gdb remote protocol: GdbConnection's framing over a socketpair, and
// the session-free parts of the server (GdbPackets).
#include "gdb/GdbConnection.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>
#include <thread>

#include "cli/ExitStatus.h"
#include "gdb/GdbPackets.h"

using namespace ctrl;

namespace {

struct SocketPair {
  int fd[2];
  SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd), 0); }
  ~SocketPair() {
    if (fd[1] >= 0) close(fd[1]);
  }
  // gdb's end.
  void write(std::string_view bytes) { ASSERT_EQ(::write(fd[1], bytes.data(), bytes.size()), ssize_t(bytes.size())); }
  // What the server sent, waiting up to 2 s for `n` bytes.
  std::string read(size_t n) {
    std::string out;
    while (out.size() < n) {
      pollfd p{fd[1], POLLIN, 0};
      if (poll(&p, 1, 2000) <= 0) break;
      char buffer[256];
      ssize_t got = ::read(fd[1], buffer, std::min(sizeof buffer, n - out.size()));
      if (got <= 0) break;
      out.append(buffer, size_t(got));
    }
    return out;
  }
  // Nothing more to read right now.
  bool quiet() {
    pollfd p{fd[1], POLLIN, 0};
    return poll(&p, 1, 50) == 0;
  }
};

std::string frame(std::string_view raw) {
  unsigned sum = 0;
  for (char c : raw) sum += static_cast<unsigned char>(c);
  char tail[4];
  std::snprintf(tail, sizeof tail, "#%02x", sum & 0xff);
  return "$" + std::string(raw) + tail;
}

using Kind = GdbConnection::Incoming::Kind;

}  // namespace

TEST(GdbConnection, ReceivesAPacketAndAcksIt) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  s.write("+" + frame("qSupported:multiprocess+"));
  auto in = c.receive();
  EXPECT_EQ(in.kind, Kind::Packet);
  EXPECT_EQ(in.payload, "qSupported:multiprocess+");
  EXPECT_EQ(s.read(1), "+");
}

TEST(GdbConnection, NacksABadChecksumAndTakesTheResentPacket) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  s.write("$g#00");
  s.write(frame("g"));
  auto in = c.receive();
  EXPECT_EQ(in.kind, Kind::Packet);
  EXPECT_EQ(in.payload, "g");
  EXPECT_EQ(s.read(2), "-+");
}

TEST(GdbConnection, UnescapesAndExpandsRunLengths) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  // "}\x03" is '#', "}\x5d" is '}', "0* " is four '0' (' ' - 29 = 3 more).
  s.write(
      frame("X}\x03}\x5d"
            "0* z"));
  auto in = c.receive();
  EXPECT_EQ(in.kind, Kind::Packet);
  EXPECT_EQ(in.payload, "X#}0000z");
}

TEST(GdbConnection, SendsFramedEscapedAndWaitsForTheAck) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  std::string expected = frame(
      "a}\x04}\x03}]}\x0a"
      "b");  // $ # } * escaped
  std::thread gdb([&] {
    EXPECT_EQ(s.read(expected.size()), expected);
    s.write("-");  // asks again
    EXPECT_EQ(s.read(expected.size()), expected);
    s.write("+");
  });
  EXPECT_TRUE(c.send("a$#}*b"));
  gdb.join();
  EXPECT_TRUE(s.quiet());
}

TEST(GdbConnection, NoAckModeNeitherSendsNorWaitsForAcks) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  s.write(frame("QStartNoAckMode"));
  EXPECT_EQ(c.receive().payload, "QStartNoAckMode");
  EXPECT_EQ(s.read(1), "+");
  std::thread gdb([&] {
    EXPECT_EQ(s.read(6), frame("OK"));
    s.write("+");
  });
  EXPECT_TRUE(c.send("OK"));  // the reply to QStartNoAckMode is still acked
  gdb.join();
  c.disable_acks();
  EXPECT_TRUE(c.send("OK"));  // returns without an ack
  EXPECT_EQ(s.read(6), frame("OK"));
  s.write(frame("?"));
  EXPECT_EQ(c.receive().payload, "?");
  EXPECT_TRUE(s.quiet());
}

TEST(GdbConnection, AMalformedPacketGetsE01AndReadingGoesOn) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  c.disable_acks();
  s.write("$m0,4#zz");     // checksum not hex
  s.write("$g#00");        // bad checksum, and no acks to ask again
  s.write(frame("abc}"));  // escape at the end
  s.write(frame("*!"));    // run length without a character
  s.write(frame("qC"));
  auto in = c.receive();
  EXPECT_EQ(in.kind, Kind::Packet);
  EXPECT_EQ(in.payload, "qC");
  std::string e01 = frame("E01");
  EXPECT_EQ(s.read(4 * e01.size()), e01 + e01 + e01 + e01);
}

TEST(GdbConnection, AMalformedPacketIsAckedBeforeItsE01) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  s.write("$m0,4#zz");
  s.write(frame("qC"));
  std::thread gdb([&] {
    EXPECT_EQ(s.read(1 + 7), "+" + frame("E01"));
    s.write("+");
  });
  EXPECT_EQ(c.receive().payload, "qC");
  gdb.join();
}

TEST(GdbConnection, DropsAPacketCutShortByAnother) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  s.write("$m12" + frame("qC"));
  EXPECT_EQ(c.receive().payload, "qC");
}

TEST(GdbConnection, ReportsInterruptBytes) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  EXPECT_FALSE(c.poll_interrupt());
  s.write("\x03");
  EXPECT_TRUE(c.poll_interrupt());
  EXPECT_FALSE(c.poll_interrupt());
  s.write("\x03" + frame("c"));
  EXPECT_EQ(c.receive().kind, Kind::Interrupt);
  EXPECT_EQ(c.receive().payload, "c");
}

TEST(GdbConnection, KeepsAnInterruptThatCameWithAnAck) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  s.write("\x03+");
  EXPECT_TRUE(c.send("T05thread:p1.1;"));
  EXPECT_TRUE(c.poll_interrupt());
}

TEST(GdbConnection, ReportsTheEndOfTheConnection) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  s.write("$qC#");  // cut by the hang-up
  close(s.fd[1]);
  s.fd[1] = -1;
  EXPECT_EQ(c.receive().kind, Kind::Closed);
  EXPECT_FALSE(c.send("OK"));
}

TEST(GdbConnection, AStopCheckEndsAWaitForASilentGdb) {
  SocketPair s;
  GdbConnection c(s.fd[0]);
  int asked = 0;
  c.set_stop_check([&] { return ++asked == 2; });
  EXPECT_EQ(c.receive().kind, Kind::Closed);
  EXPECT_EQ(asked, 2);
}

TEST(GdbConnection, ListensOnLoopbackAndAcceptsOneClient) {
  uint16_t port = 0;
  int listener = GdbConnection::listen_on(0, port);
  ASSERT_GT(port, 0);
  EXPECT_THROW(GdbConnection::listen_on(port, port), UsageError);  // taken
  int client = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  GdbConnection c(GdbConnection::accept_one(listener));
  std::string packet = frame("qC");
  ASSERT_EQ(write(client, packet.data(), packet.size()), ssize_t(packet.size()));
  EXPECT_EQ(c.receive().payload, "qC");
  close(client);
}

TEST(GdbConnection, AcceptGivesUpWhenTheStopCheckSaysSo) {
  uint16_t port = 0;
  int listener = GdbConnection::listen_on(0, port);
  EXPECT_EQ(GdbConnection::accept_one(listener, [] { return true; }), -1);
}

// ---- GdbPackets ----

TEST(GdbPackets, Hex) {
  EXPECT_EQ(gdb::to_hex(std::string("\x00\x7f\xff"
                                    "A",
                                    4)),
            "007fff41");
  EXPECT_EQ(gdb::from_hex("007fFF41"), std::string("\x00\x7f\xff"
                                                   "A",
                                                   4));
  EXPECT_FALSE(gdb::from_hex("abc"));
  EXPECT_FALSE(gdb::from_hex("zz"));
  EXPECT_EQ(gdb::parse_hex("7ffff7dd1000"), 0x7ffff7dd1000u);
  EXPECT_FALSE(gdb::parse_hex(""));
  EXPECT_FALSE(gdb::parse_hex("12345678123456789"));
  EXPECT_FALSE(gdb::parse_hex("12g"));
  EXPECT_EQ(gdb::hex_number(0), "0");
  EXPECT_EQ(gdb::hex_number(0xabc), "abc");
}

TEST(GdbPackets, ThreadIds) {
  using K = gdb::ThreadId::Kind;
  auto one = gdb::parse_thread_id("p1f.2");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->kind, K::One);
  EXPECT_EQ(one->index, 1u);  // gdb thread 2 is T1
  EXPECT_EQ(gdb::parse_thread_id("3")->index, 2u);
  EXPECT_EQ(gdb::parse_thread_id("-1")->kind, K::All);
  EXPECT_EQ(gdb::parse_thread_id("p1f.-1")->kind, K::All);
  EXPECT_EQ(gdb::parse_thread_id("p1f")->kind, K::All);
  EXPECT_EQ(gdb::parse_thread_id("0")->kind, K::Any);
  EXPECT_EQ(gdb::parse_thread_id("p0.0")->kind, K::Any);
  EXPECT_FALSE(gdb::parse_thread_id(""));
  EXPECT_FALSE(gdb::parse_thread_id("pxy.1"));
  EXPECT_FALSE(gdb::parse_thread_id("p1.q"));
  EXPECT_EQ(gdb::thread_id(0x1f, 0), "p1f.1");
}

namespace {

// Byte offset of each register in the 'g' reply, from the encoder.
std::vector<size_t> encoder_offsets() {
  std::vector<size_t> offsets;
  size_t at = 0;
  for (size_t i = 0; i < gdb::register_count(); ++i) {
    offsets.push_back(at);
    at += gdb::encode_register(std::nullopt, i)->size() / 2;
  }
  offsets.push_back(at);
  return offsets;
}

}  // namespace

TEST(GdbPackets, RegistersFollowTheLayoutLittleEndianUnknownAsX) {
  ThreadRegisters r;
  r.regs.rax = 0x1122334455667788;
  r.regs.rip = 0x401136;
  r.regs.eflags = 0x246;
  r.regs.fs_base = 0x7ffff7d8a740;
  r.regs.rbx = 0xdead;  // not marked known: must not be sent
  constexpr int kRaxField = 10, kRipField = 16, kEflagsField = 18, kFsBaseField = 21;
  r.known = 1ull << kRaxField | 1ull << kRipField | 1ull << kEflagsField | 1ull << kFsBaseField;
  std::string g = gdb::encode_registers(r);
  auto offsets = encoder_offsets();
  ASSERT_EQ(offsets.back(), 560u);  // core 276 + sse 260 + orig_rax, fs_base, gs_base
  EXPECT_EQ(g.size(), 2 * offsets.back());
  EXPECT_EQ(g.substr(0, 16), "8877665544332211");                  // rax
  EXPECT_EQ(g.substr(2 * offsets[1], 16), std::string(16, 'x'));   // rbx
  EXPECT_EQ(g.substr(2 * offsets[16], 16), "3611400000000000");    // rip
  EXPECT_EQ(g.substr(2 * offsets[17], 8), "46020000");             // eflags: 4 bytes
  EXPECT_EQ(g.substr(2 * offsets[40], 32), std::string(32, 'x'));  // xmm0
  EXPECT_EQ(g.substr(2 * offsets[58], 16), "40a7d8f7ff7f0000");    // fs_base
  EXPECT_EQ(gdb::encode_register(r, 16), "3611400000000000");
  EXPECT_FALSE(gdb::encode_register(r, gdb::register_count()));
  EXPECT_EQ(gdb::encode_registers(std::nullopt), std::string(2 * 560, 'x'));
}

// Each register of gdb's layout comes from its own user_regs_struct field.
TEST(GdbPackets, EachRegisterComesFromItsField) {
  ThreadRegisters r;
  auto* words = reinterpret_cast<unsigned long long*>(&r.regs);
  for (size_t i = 0; i < sizeof r.regs / 8; ++i) words[i] = 0x1000 + i;
  r.known = ~0ull;
  using R = user_regs_struct;
  struct Case {
    size_t slot;
    unsigned long long R::*field;
    size_t bytes;
  } cases[] = {
      {0, &R::rax, 8},      {1, &R::rbx, 8},      {2, &R::rcx, 8},     {3, &R::rdx, 8},  {4, &R::rsi, 8},
      {5, &R::rdi, 8},      {6, &R::rbp, 8},      {7, &R::rsp, 8},     {8, &R::r8, 8},   {9, &R::r9, 8},
      {10, &R::r10, 8},     {11, &R::r11, 8},     {12, &R::r12, 8},    {13, &R::r13, 8}, {14, &R::r14, 8},
      {15, &R::r15, 8},     {16, &R::rip, 8},     {17, &R::eflags, 4}, {18, &R::cs, 4},  {19, &R::ss, 4},
      {20, &R::ds, 4},      {21, &R::es, 4},      {22, &R::fs, 4},     {23, &R::gs, 4},  {57, &R::orig_rax, 8},
      {58, &R::fs_base, 8}, {59, &R::gs_base, 8},
  };
  for (const auto& c : cases) {
    unsigned long long v = r.regs.*c.field;
    std::string expected = gdb::to_hex(std::string_view(reinterpret_cast<const char*>(&v), c.bytes));
    EXPECT_EQ(gdb::encode_register(r, c.slot), expected) << "slot " << c.slot;
  }
}

// gdb itself reads target_xml(): the 'g' offsets it derives must be the
// encoder's (this is what makes `info registers` and backtraces right).
TEST(GdbPackets, GdbAgreesWithTheRegisterLayout) {
  if (system("gdb --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gdb is not installed";
  char path[] = "/tmp/ctrl-target-XXXXXX.xml";
  int fd = mkstemps(path, 4);
  ASSERT_GE(fd, 0);
  const std::string& xml = gdb::target_xml();
  ASSERT_EQ(write(fd, xml.data(), xml.size()), ssize_t(xml.size()));
  close(fd);
  std::string command = std::string("gdb -nx -batch -ex 'set architecture i386:x86-64' -ex 'set tdesc filename ") +
                        path + "' -ex 'maint print remote-registers' 2>&1";
  FILE* out = popen(command.c_str(), "r");
  ASSERT_TRUE(out);
  std::string text;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, out)) > 0;) text.append(buffer, n);
  pclose(out);
  unlink(path);

  std::vector<std::string> names;
  std::regex reg_name("<reg name=\"([a-z0-9_]+)\"");
  for (std::sregex_iterator it(xml.begin(), xml.end(), reg_name), end; it != end; ++it) names.push_back((*it)[1]);
  ASSERT_EQ(names.size(), gdb::register_count());
  auto offsets = encoder_offsets();
  // " Name Nr Rel Offset Size Type Rmt-Nr g/G-Offset"
  for (size_t i = 0; i < names.size(); ++i) {
    std::regex row("\\n " + names[i] + " +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +\\S+ +([0-9]+) +([0-9]+)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, row)) << names[i] << " missing in:\n" << text;
    EXPECT_EQ(std::stoul(m[1]), i) << names[i];
    EXPECT_EQ(std::stoul(m[2]), offsets[i]) << names[i];
  }
}

TEST(GdbPackets, FindsTheCallBeforeAReturnAddress) {
  // nop; call rel32
  EXPECT_EQ(gdb::call_before(std::string("\x90\xe8\x10\x00\x00\x00", 6), 0x401005), 0x401000u);
  // call *0x2fe2(%rip) (-fno-plt)
  EXPECT_EQ(gdb::call_before(std::string("\x90\xff\x15\xe2\x2f\x00\x00", 7), 0x401006), 0x401000u);
  // call *%rax
  EXPECT_EQ(gdb::call_before(std::string("\x90\x90\xff\xd0", 4), 0x401002), 0x401000u);
  // call *%r11
  EXPECT_EQ(gdb::call_before(std::string("\x90\x41\xff\xd3", 4), 0x401003), 0x401000u);
  // mov %rax,%rbx; not a call
  EXPECT_FALSE(gdb::call_before(std::string("\x48\x89\xc3", 3), 0x401003));
  EXPECT_FALSE(gdb::call_before("", 0x401000));
}

TEST(GdbPackets, XferReadsAndSlices) {
  auto r = gdb::parse_xfer_read("qXfer:features:read:target.xml:0,ffb");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->object, "features");
  EXPECT_EQ(r->annex, "target.xml");
  EXPECT_EQ(r->offset, 0u);
  EXPECT_EQ(r->length, 0xffbu);
  r = gdb::parse_xfer_read("qXfer:threads:read::10,20");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->annex, "");
  EXPECT_EQ(r->offset, 16u);
  EXPECT_FALSE(gdb::parse_xfer_read("qXfer:features:write:target.xml:0,10"));
  EXPECT_FALSE(gdb::parse_xfer_read("qXfer:features:read:target.xml:0"));
  EXPECT_FALSE(gdb::parse_xfer_read("qXfer:auxv"));

  EXPECT_EQ(gdb::xfer_slice("abcdef", 0, 4), "mabcd");
  EXPECT_EQ(gdb::xfer_slice("abcdef", 4, 4), "lef");
  EXPECT_EQ(gdb::xfer_slice("abcdef", 0, 6), "labcdef");
  EXPECT_EQ(gdb::xfer_slice("abcdef", 6, 1), "l");
  EXPECT_EQ(gdb::xfer_slice("abcdef", 100, 1), "l");
}

TEST(GdbPackets, Split) {
  auto parts = gdb::split("p1f.2,7c,7ffff7ffe2e0", ',');
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], "p1f.2");
  EXPECT_EQ(parts[2], "7ffff7ffe2e0");
  EXPECT_EQ(gdb::split("", ',').size(), 1u);
  EXPECT_EQ(gdb::split("a,", ',').size(), 2u);
}

TEST(GdbPackets, MemoryAndBreakpointArguments) {
  auto m = gdb::parse_memory_range("7fff0010,40");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->address, 0x7fff0010u);
  EXPECT_EQ(m->length, 0x40u);
  EXPECT_FALSE(gdb::parse_memory_range("7fff0010"));
  EXPECT_FALSE(gdb::parse_memory_range(",4"));

  auto b = gdb::parse_breakpoint("Z0,555555555149,1");
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->insert);
  EXPECT_EQ(b->type, 0);
  EXPECT_EQ(b->address, 0x555555555149u);
  b = gdb::parse_breakpoint("z2,404040,4;X1,0");  // a condition is ignored
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->insert);
  EXPECT_EQ(b->type, 2);
  EXPECT_EQ(b->kind, 4u);
  EXPECT_FALSE(gdb::parse_breakpoint("Z5,1,1"));
  EXPECT_FALSE(gdb::parse_breakpoint("Z0;1,1"));
  EXPECT_FALSE(gdb::parse_breakpoint("Z0,1"));
}

TEST(GdbPackets, VCont) {
  using K = gdb::ThreadId::Kind;
  auto a = gdb::parse_vcont("vCont;s:p1f.2;c:p1f.-1");
  ASSERT_TRUE(a);
  ASSERT_EQ(a->size(), 2u);
  EXPECT_EQ((*a)[0].action, 's');
  EXPECT_EQ((*a)[0].thread.kind, K::One);
  EXPECT_EQ((*a)[0].thread.index, 1u);
  EXPECT_EQ((*a)[1].action, 'c');
  EXPECT_EQ((*a)[1].thread.kind, K::All);
  a = gdb::parse_vcont("vCont;c");
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)[0].thread.kind, K::All);
  a = gdb::parse_vcont("vCont;S05:3");
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)[0].action, 's');
  EXPECT_EQ((*a)[0].thread.index, 2u);
  EXPECT_FALSE(gdb::parse_vcont("vCont;"));
  EXPECT_FALSE(gdb::parse_vcont("vCont;r1000,2000:1"));
  EXPECT_FALSE(gdb::parse_vcont("vCont;s:zz"));
  EXPECT_FALSE(gdb::parse_vcont("vCont;C:1"));
}

TEST(GdbPackets, MonitorCommands) {
  using N = gdb::MonitorCommand::Name;
  auto m = gdb::parse_monitor("step 1");
  EXPECT_EQ(m.name, N::Step);
  EXPECT_EQ(m.thread, 1u);
  EXPECT_EQ(m.count, 1u);
  m = gdb::parse_monitor("  step T2 5 ");
  EXPECT_EQ(m.thread, 2u);
  EXPECT_EQ(m.count, 5u);
  m = gdb::parse_monitor("step");
  EXPECT_FALSE(m.thread);
  EXPECT_EQ(gdb::parse_monitor("back").count, 1u);
  EXPECT_EQ(gdb::parse_monitor("back 3").count, 3u);
  m = gdb::parse_monitor("goto 12");
  EXPECT_EQ(m.name, N::Goto);
  EXPECT_EQ(m.count, 12u);
  m = gdb::parse_monitor("save out.trace");
  EXPECT_EQ(m.name, N::Save);
  EXPECT_EQ(m.file, "out.trace");
  EXPECT_EQ(gdb::parse_monitor("restart 2").name, N::Restart);
  EXPECT_EQ(gdb::parse_monitor("threads").name, N::Threads);
  EXPECT_EQ(gdb::parse_monitor("schedule").name, N::Schedule);
  EXPECT_EQ(gdb::parse_monitor("checkpoint").name, N::Checkpoint);
  EXPECT_EQ(gdb::parse_monitor("checkpoints").name, N::Checkpoints);
  EXPECT_EQ(gdb::parse_monitor("help").name, N::Help);
  EXPECT_THROW(gdb::parse_monitor("frobnicate"), UsageError);
  EXPECT_THROW(gdb::parse_monitor(""), UsageError);
  EXPECT_THROW(gdb::parse_monitor("step x"), UsageError);
  EXPECT_THROW(gdb::parse_monitor("step 1 0"), UsageError);
  EXPECT_THROW(gdb::parse_monitor("step 1 2 3"), UsageError);
  EXPECT_THROW(gdb::parse_monitor("goto"), UsageError);
  EXPECT_THROW(gdb::parse_monitor("back -1"), UsageError);
  EXPECT_THROW(gdb::parse_monitor("threads all"), UsageError);
}

TEST(GdbPackets, ThreadsDocumentAndConsoleOutput) {
  std::string xml = gdb::threads_xml(0x1f, {{0, "T0 mutex_lock m", "blocked <on> m & \"x\""}, {1, "T1 finished", ""}});
  EXPECT_NE(xml.find("<thread id=\"p1f.1\" name=\"T0 mutex_lock m\">blocked &lt;on&gt; m &amp; &quot;x&quot;</thread>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<thread id=\"p1f.2\" name=\"T1 finished\"></thread>"), std::string::npos) << xml;
  EXPECT_EQ(gdb::console_output("hi\n"), "O68690a");
}

TEST(GdbPackets, LibraryListDocument) {
  LibraryList list;
  list.main_lm = 0x7f00;
  list.libraries.push_back({"/lib/libc.so.6", 0x7f10, 0x1000, 0x2000});
  std::string xml = gdb::libraries_svr4_xml(list);
  EXPECT_NE(xml.find("<library-list-svr4 version=\"1.0\" main-lm=\"0x7f00\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<library name=\"/lib/libc.so.6\" lm=\"0x7f10\" l_addr=\"0x1000\" l_ld=\"0x2000\" lmid=\"0x0\"/>"),
            std::string::npos)
      << xml;
  EXPECT_TRUE(is_agent_library("/usr/lib/ctrl/libctrl-agent.so"));
  EXPECT_FALSE(is_agent_library("/lib/libc.so.6"));
}

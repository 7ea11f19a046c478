#include "debug/VariablePrinter.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "binary/Backtracer.h"
#include "cli/ExitStatus.h"
#include "debug/MemoryExaminer.h"

namespace ctrl {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

// A helper program (variables_target.c), run once for a whole suite and
// stopped by its own SIGSTOP after printing its threads' pointers and the
// addresses of its thread-locals.
struct Target {
  pid_t pid = -1;
  uint64_t main_tp = 0, worker_tp = 0;
  uint64_t main_tls = 0, worker_tls = 0, main_lib_tls = 0, worker_lib_tls = 0;
  std::unique_ptr<VariablePrinter> printer;

  explicit Target(const char* program) {
    int out[2];
    if (::pipe(out) != 0) std::abort();
    pid = ::fork();
    if (pid == 0) {
      // A test that dies must not leave its stopped helper behind.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::dup2(out[1], STDOUT_FILENO);
      ::execl(program, program, nullptr);
      ::_exit(127);
    }
    ::close(out[1]);
    FILE* in = ::fdopen(out[0], "r");
    unsigned long v[6] = {};
    int got = std::fscanf(in, "%lx %lx %lx %lx %lx %lx", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]);
    std::fclose(in);
    int status = 0;
    if (got != 6 || ::waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status)) return;
    main_tp = v[0], worker_tp = v[1], main_tls = v[2], worker_tls = v[3], main_lib_tls = v[4], worker_lib_tls = v[5];
    printer = std::make_unique<VariablePrinter>(pid);
  }
  ~Target() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
  MemoryReader reader() const {
    pid_t p = pid;
    return [p](uint64_t addr, void* buf, size_t len) {
      iovec local{buf, len}, remote{reinterpret_cast<void*>(addr), len};
      return ::process_vm_readv(p, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
    };
  }
  std::string print(const std::string& expression, uint64_t tp = 0) {
    return printer->print(expression, reader(), tp ? tp : main_tp);
  }
  uint64_t address(const std::string& expression) {
    auto where = printer->address_of(expression, main_tp, reader());
    return where ? where->first : 0;
  }
};

class VariablePrinterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { target_ = new Target(CTRL_VARIABLES_TARGET); }
  static void TearDownTestSuite() { delete target_; }
  void SetUp() override { ASSERT_TRUE(target_->printer) << "the helper program did not start and stop"; }
  static Target* target_;
};
Target* VariablePrinterTest::target_ = nullptr;

std::string hex(uint64_t v) { return fmt::format("{:#x}", v); }

TEST_F(VariablePrinterTest, BaseTypes) {
  Target& t = *target_;
  EXPECT_EQ(t.print("counter"), "counter = 2");
  EXPECT_EQ(t.print("small"), "small = 200 '\\310'");
  EXPECT_EQ(t.print("big"), "big = -1234567890123");
  EXPECT_EQ(t.print("ratio"), "ratio = 3.1400000000000001");
  EXPECT_EQ(t.print("half"), "half = 0.5");
  EXPECT_EQ(t.print("yes"), "yes = true");
  EXPECT_EQ(t.print("letter"), "letter = 65 'A'");
  EXPECT_EQ(t.print("  qualified "), "qualified = 7");
  EXPECT_EQ(t.print("atomic_counter"), "atomic_counter = 9");
  EXPECT_EQ(t.print("color"), "color = GREEN");
  EXPECT_EQ(t.print("odd_color"), "odd_color = 7");
  EXPECT_EQ(t.print("file_static"), "file_static = 42");
}

TEST_F(VariablePrinterTest, Pointers) {
  Target& t = *target_;
  const uint64_t counter = t.address("counter");
  ASSERT_NE(counter, 0u);
  EXPECT_EQ(t.print("counter_ptr"), "counter_ptr = (int *) " + hex(counter) + " <counter>");
  EXPECT_EQ(t.print("null_ptr"), "null_ptr = (int *) 0x0");
  EXPECT_EQ(t.print("&counter"), "&counter = (int *) " + hex(counter) + " <counter>");
  EXPECT_EQ(t.print("*counter_ptr"), "*counter_ptr = 2");
  EXPECT_EQ(t.print("counter_ptr[0]"), "counter_ptr[0] = 2");
  EXPECT_EQ(t.print("*&counter"), "*&counter = 2");
  EXPECT_THAT(t.print("greeting"), MatchesRegex("greeting = 0x[0-9a-f]+ \"hello, world\""));
  EXPECT_EQ(t.print("&numbers"), "&numbers = (int (*)[3]) " + hex(t.address("numbers")) + " <numbers>");
  const std::string bump = hex(t.address("bump"));
  EXPECT_EQ(t.print("bump"), "bump = {int *(void)} " + bump + " <bump>");
  EXPECT_EQ(t.print("bump_ptr"), "bump_ptr = (int *(*)(void)) " + bump + " <bump>");
  EXPECT_EQ(t.print("*bump_ptr"), "*bump_ptr = {int *(void)} " + bump + " <bump>");
}

TEST_F(VariablePrinterTest, ArraysAndStrings) {
  Target& t = *target_;
  EXPECT_EQ(t.print("numbers"), "numbers = {1, 2, 3}");
  EXPECT_EQ(t.print("numbers[2]"), "numbers[2] = 3");
  EXPECT_EQ(t.print("zeros"), "zeros = {0 <repeats 20 times>}");
  EXPECT_EQ(t.print("matrix"), "matrix = {{1, 2, 3}, {4, 5, 6}}");
  EXPECT_EQ(t.print("matrix[1]"), "matrix[1] = {4, 5, 6}");
  EXPECT_EQ(t.print("matrix[1][2]"), "matrix[1][2] = 6");
  EXPECT_EQ(t.print("buffer"), "buffer = \"hi\", '\\000' <repeats 13 times>");
  std::string first200;
  for (int i = 0; i < 200; ++i) first200 += (i ? ", " : "") + std::to_string(i);
  EXPECT_EQ(t.print("big_array"), "big_array = {" + first200 + "...}");
  EXPECT_EQ(t.print("big_array[299]"), "big_array[299] = 299");
}

TEST_F(VariablePrinterTest, StructsAndUnions) {
  Target& t = *target_;
  const std::string inner = hex(t.address("outer") + 4);
  EXPECT_EQ(t.print("outer"),
            "outer = {a = 1, in = {x = 2, y = -3}, name = \"abc\\000\\000\\000\\000\", ratio = 0.25, "
            "next = " +
                inner + " <outer+4>, flag = 5, neg = -2}");
  EXPECT_EQ(t.print("outer.in.y"), "outer.in.y = -3");
  EXPECT_EQ(t.print("outer.next->x"), "outer.next->x = 2");
  EXPECT_EQ(t.print("*outer.next"), "*outer.next = {x = 2, y = -3}");
  EXPECT_EQ(t.print("(*outer.next).y"), "(*outer.next).y = -3");
  EXPECT_EQ(t.print("&outer.in"), "&outer.in = (struct inner *) " + inner + " <outer+4>");
  EXPECT_EQ(t.print("both"), "both = {i = 1065353216, f = 1}");
}

TEST_F(VariablePrinterTest, FunctionStatics) {
  Target& t = *target_;
  EXPECT_EQ(t.print("bump::calls"), "bump::calls = 6");
  EXPECT_EQ(t.print("calls"), "calls = 6");
}

TEST_F(VariablePrinterTest, ThreadLocalsOfTheExecutable) {
  Target& t = *target_;
  EXPECT_EQ(t.print("tls_counter", t.main_tp), "tls_counter = 11");
  EXPECT_EQ(t.print("tls_counter", t.worker_tp), "tls_counter = 22");
  EXPECT_EQ(t.print("tls_other"), "tls_other = -5");
  EXPECT_EQ(t.print("tls_wide"), "tls_wide = 5");
  EXPECT_EQ(t.print("tls_flag"), "tls_flag = 120 'x'");
  EXPECT_EQ(t.print("tls_last"), "tls_last = 122 'z'");
  EXPECT_EQ(t.printer->address_of("tls_counter", t.main_tp)->first, t.main_tls);
  EXPECT_EQ(t.printer->address_of("tls_counter", t.worker_tp)->first, t.worker_tls);
  EXPECT_EQ(t.printer->address_of("tls_counter", t.worker_tp)->second, 4u);
  EXPECT_THROW(t.printer->print("tls_counter", t.reader(), 0), UsageError);
}

TEST_F(VariablePrinterTest, ThreadLocalsAndGlobalsOfALibrary) {
  Target& t = *target_;
  EXPECT_EQ(t.print("lib_global"), "lib_global = 77");
  EXPECT_EQ(t.print("lib_tls", t.main_tp), "lib_tls = 35");
  EXPECT_EQ(t.print("lib_tls", t.worker_tp), "lib_tls = 44");
  EXPECT_EQ(t.print("lib_tls_pad"), "lib_tls_pad = {1, 2, 3}");
  EXPECT_EQ(t.printer->address_of("lib_tls", t.main_tp, t.reader())->first, t.main_lib_tls);
  EXPECT_EQ(t.printer->address_of("lib_tls", t.worker_tp, t.reader())->first, t.worker_lib_tls);
}

TEST_F(VariablePrinterTest, Errors) {
  Target& t = *target_;
  try {
    t.print("nosuch");
    FAIL() << "no error for an unknown name";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "no symbol \"nosuch\" in the program");
  }
  EXPECT_FALSE(t.printer->address_of("nosuch", t.main_tp).has_value());
  EXPECT_THROW(t.print("*counter"), UsageError);
  EXPECT_THROW(t.print("counter.x"), UsageError);
  EXPECT_THROW(t.print("outer.nope"), UsageError);
  EXPECT_THROW(t.print("numbers["), UsageError);
  EXPECT_THROW(t.print("*null_ptr"), UsageError);
}

TEST_F(VariablePrinterTest, AddressOfForWatch) {
  Target& t = *target_;
  auto numbers = t.printer->address_of("numbers", t.main_tp);
  ASSERT_TRUE(numbers);
  EXPECT_EQ(numbers->second, 12u);
  EXPECT_EQ(t.printer->address_of("numbers[1]", t.main_tp)->first, numbers->first + 4);
  EXPECT_EQ(t.printer->address_of("outer.in", t.main_tp)->second, 8u);
  EXPECT_EQ(t.printer->address_of("matrix[1]", t.main_tp)->second, 12u);
  EXPECT_EQ(t.printer->symbol_at(numbers->first + 8), "numbers+8");
}

class CxxVariablePrinterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { target_ = new Target(CTRL_VARIABLES_CXX_TARGET); }
  static void TearDownTestSuite() { delete target_; }
  void SetUp() override { ASSERT_TRUE(target_->printer) << "the helper program did not start and stop"; }
  static Target* target_;
};
Target* CxxVariablePrinterTest::target_ = nullptr;

TEST_F(CxxVariablePrinterTest, ScopedNames) {
  Target& t = *target_;
  EXPECT_EQ(t.print("geometry::inside"), "geometry::inside = 3");
  EXPECT_EQ(t.print("inside"), "inside = 3");  // without its scope, when unambiguous
  EXPECT_EQ(t.print("geometry::Point::made"), "geometry::Point::made = 8");
  EXPECT_EQ(t.print("points[1]"), "points[1] = {x = 3, y = 4}");
}

TEST_F(CxxVariablePrinterTest, ClassesReferencesAndFunctionPointers) {
  Target& t = *target_;
  EXPECT_EQ(t.print("derived"), "derived = {<Base> = {b = 1}, d = 2}");
  EXPECT_EQ(t.print("derived.b"), "derived.b = 1");
  // libstdc++'s std::atomic<int> keeps its value in a base class's _M_i.
  EXPECT_THAT(t.print("atomic_int"), MatchesRegex("atomic_int = \\{<.*> = \\{_M_i = 5\\}\\}"));
  EXPECT_EQ(t.print("reference"), "reference = (int &) @" + hex(t.address("referenced")) + ": 9");
  const std::string callback = hex(t.address("callback"));
  EXPECT_EQ(t.print("callback_ptr"), "callback_ptr = (void (*)(int)) " + callback + " <callback(int)>");
  EXPECT_EQ(t.print("*callback_ptr"), "*callback_ptr = {void (int)} " + callback + " <callback(int)>");
}

// The helper program frame_target.c, attached with ptrace while work()
// blocks in read() inside its nested block; `frame` is work's frame, found
// by unwinding, with the registers unwinding recovers.
struct FrameTarget {
  pid_t pid = -1;
  std::unique_ptr<VariablePrinter> printer;
  FrameContext frame;
  FrameContext innermost;  // in libc's read, which has no DWARF
  uint64_t work = 0, work_size = 0;

  explicit FrameTarget(const char* program) {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) std::abort();
    pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::dup2(in[0], STDIN_FILENO);
      ::dup2(out[1], STDOUT_FILENO);
      ::execl(program, program, nullptr);
      ::_exit(127);
    }
    ::close(in[0]);
    write_end_ = in[1];  // kept open: the read blocks until the program dies
    ::close(out[1]);
    char ready[16] = {};
    FILE* from = ::fdopen(out[0], "r");
    bool started = std::fgets(ready, sizeof ready, from) && std::string(ready) == "ready\n";
    std::fclose(from);
    // Blocked in read() or about to: the stop finds it in work's nested block.
    int status = 0;
    if (!started || ::ptrace(PTRACE_SEIZE, pid, nullptr, nullptr) != 0 ||
        ::ptrace(PTRACE_INTERRUPT, pid, nullptr, nullptr) != 0 || ::waitpid(pid, &status, 0) != pid ||
        !WIFSTOPPED(status))
      return;
    auto p = std::make_unique<VariablePrinter>(pid);
    auto where = p->address_of("work", 0);
    if (!where) return;
    work = where->first, work_size = where->second;
    Backtracer backtracer;
    std::vector<uint64_t> ips = backtracer.unwind(pid);
    for (size_t i = 0; i < ips.size(); ++i) {
      uint64_t ip = ips[i] & ~Backtracer::kExactIp;
      if (ip < work || ip >= work + work_size) continue;
      frame.pc = ip;
      frame.exact_pc = (ips[i] & Backtracer::kExactIp) != 0;
      innermost.pc = ips[0] & ~Backtracer::kExactIp;
      if (!backtracer.registers_at(pid, 0, innermost.regs, innermost.known)) return;
      if (backtracer.registers_at(pid, i, frame.regs, frame.known)) printer = std::move(p);
      return;
    }
  }
  ~FrameTarget() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    ::close(write_end_);
  }
  MemoryReader reader() const {
    pid_t p = pid;
    return [p](uint64_t addr, void* buf, size_t len) {
      iovec local{buf, len}, remote{reinterpret_cast<void*>(addr), len};
      return ::process_vm_readv(p, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
    };
  }
  std::string print(const std::string& expression) { return print(expression, frame); }
  std::string print(const std::string& expression, const FrameContext& in) {
    return printer->print(expression, reader(), in.regs.fs_base, &in);
  }
  std::string error(const std::string& expression) {
    try {
      return "no error: " + print(expression);
    } catch (const UsageError& e) {
      return e.what();
    }
  }

 private:
  int write_end_ = -1;
};

// Parameter: the build of frame_target.c, "O0" or "O2" (gcc), or "clang"
// (-O0: its frame base is rbp, its statics' addresses are indexed).
class FrameLocalsTest : public ::testing::TestWithParam<const char*> {
 protected:
  static void TearDownTestSuite() {
    for (auto& [build, target] : targets_) delete target;
    targets_.clear();
  }
  FrameTarget& target() {
    static const std::map<std::string, const char*> kPrograms = {
#ifdef CTRL_FRAME_TARGET_CLANG
        {"clang", CTRL_FRAME_TARGET_CLANG},
#endif
        {"O0", CTRL_FRAME_TARGET_O0},
        {"O2", CTRL_FRAME_TARGET_O2}};
    FrameTarget*& t = targets_[GetParam()];
    if (!t) t = new FrameTarget(kPrograms.at(GetParam()));
    return *t;
  }
  static bool optimized() { return GetParam() == std::string("O2"); }
  static std::map<std::string, FrameTarget*> targets_;
};
std::map<std::string, FrameTarget*> FrameLocalsTest::targets_;

// The same source, all in memory (-O0) or in registers, pieces and
// computed values (-O2, from callee-saved registers unwinding recovers).
TEST_P(FrameLocalsTest, LocalsAndParametersOfTheFrame) {
  FrameTarget& t = target();
  ASSERT_TRUE(t.printer) << "the helper program did not start, stop and unwind to work()";
  EXPECT_FALSE(t.frame.exact_pc);  // work called read(): its pc is a return address
  EXPECT_EQ(t.print("param"), "param = 7");
  EXPECT_THAT(t.print("label"), MatchesRegex("label = 0x[0-9a-f]+ \"seven\""));
  EXPECT_EQ(t.print("*label"), "*label = 115 's'");
  // The nested block's own number hides the function's.
  EXPECT_EQ(t.print("number"), "number = 7000");
  EXPECT_EQ(t.print("*pointer"), "*pointer = 21");
  EXPECT_EQ(t.print("pair.second"), "pair.second = -14");
  if (!optimized()) {
    EXPECT_EQ(t.print("nested"), "nested = 22");
    EXPECT_EQ(t.print("pair"), "pair = {first = 7, second = -14}");
  } else {
    // As gdb shows them: the optimizer kept neither nested nor pair.first
    // past their last use, and pair's other piece is computed from rbx.
    EXPECT_EQ(t.print("nested"), "nested = <optimized out>");
    EXPECT_EQ(t.print("pair"), "pair = {first = <optimized out>, second = -14}");
    EXPECT_EQ(t.print("pair.first"), "pair.first = <optimized out>");
    EXPECT_EQ(t.error("*&pair.first"), "Can't take address of a value that has been optimized out.");
  }
  // The function inlined where work() stopped: its locals and parameters
  // first (gdb shows them in a frame of their own).
  EXPECT_EQ(t.print("factor"), "factor = 14");
  EXPECT_EQ(t.print("scale"), "scale = 7");
  auto byte = t.printer->address_of("byte", 0, t.reader(), &t.frame);
  ASSERT_TRUE(byte);
  EXPECT_THAT(t.print("out"), StartsWith(fmt::format("out = {:#x} \"", byte->first)));
  EXPECT_EQ(t.print("array"), "array = {1, 2, 3, 7}");
  EXPECT_EQ(t.print("array[3]"), "array[3] = 7");
  EXPECT_EQ(t.print("total"), "total = 0");
  // A function's static, and a local that hides a global.
  EXPECT_EQ(t.print("calls"), "calls = 1");
  EXPECT_EQ(t.print("shadowed"), "shadowed = 107");
  EXPECT_EQ(t.printer->print("shadowed", t.reader(), 0), "shadowed = 5");
  EXPECT_EQ(t.printer->print("shadowed", t.reader(), 0, nullptr), "shadowed = 5");
  // The pointer designates the function's number, in the frame's memory.
  auto number = t.printer->address_of("*pointer", 0, t.reader(), &t.frame);
  ASSERT_TRUE(number);
  EXPECT_EQ(number->second, 4u);
  EXPECT_EQ(t.print("pointer"), fmt::format("pointer = (int *) {:#x}", number->first));
  EXPECT_LT(number->first, t.frame.regs.rsp + 4096);
  EXPECT_GE(number->first, t.frame.regs.rsp);
  EXPECT_EQ(t.error("nosuch"), "no symbol \"nosuch\" in the program");
  // A frame without DWARF has no locals: globals only.
  EXPECT_EQ(t.print("shadowed", t.innermost), "shadowed = 5");
  EXPECT_THROW(t.print("param", t.innermost), UsageError);
}

TEST_P(FrameLocalsTest, AddressesOfLocals) {
  FrameTarget& t = target();
  ASSERT_TRUE(t.printer);
  auto byte = t.printer->address_of("byte", 0, t.reader(), &t.frame);
  ASSERT_TRUE(byte);
  EXPECT_EQ(byte->second, 1u);
  EXPECT_GE(byte->first, t.frame.regs.rsp);
  EXPECT_LT(byte->first, t.frame.regs.rsp + 4096);
  if (!optimized()) {
    auto param = t.printer->address_of("param", 0, t.reader(), &t.frame);
    ASSERT_TRUE(param);
    EXPECT_EQ(t.print("&param"), fmt::format("&param = (int *) {:#x}", param->first));
    auto array = t.printer->address_of("array", 0, t.reader(), &t.frame);
    ASSERT_TRUE(array);
    EXPECT_EQ(array->second, 16u);
    EXPECT_EQ(t.printer->address_of("array[2]", 0, t.reader(), &t.frame)->first, array->first + 8);
  } else {
    // In a register, or computed: nothing to take the address of.
    EXPECT_EQ(t.error("&param"), "Attempt to take address of value not located in memory.");
    EXPECT_THROW(t.printer->address_of("param", 0, t.reader(), &t.frame), UsageError);
    EXPECT_THROW(t.printer->address_of("array[2]", 0, t.reader(), &t.frame), UsageError);
  }
  EXPECT_FALSE(t.printer->address_of("nosuch", 0, t.reader(), &t.frame).has_value());
}

// Frames whose registers are partly unknown, made from work's real one.
TEST_P(FrameLocalsTest, RegistersTheFrameDoesNotKnow) {
  FrameTarget& t = target();
  ASSERT_TRUE(t.printer);
  constexpr uint64_t kAll = (uint64_t(1) << (sizeof(user_regs_struct) / 8)) - 1;
  auto bit = [](size_t offset) { return uint64_t(1) << (offset / 8); };
  // At work's first instruction param is still in rdi, where the caller put it.
  FrameContext entry = t.frame;
  entry.pc = t.work;
  entry.exact_pc = true;
  entry.regs.rdi = 42;
  entry.known = kAll;
  if (optimized()) {
    EXPECT_EQ(t.print("param", entry), "param = 42");
    // rdi of an outer frame: a call may have changed it, nothing saved it.
    entry.known = kAll & ~bit(offsetof(user_regs_struct, rdi));
    EXPECT_EQ(t.print("param", entry), "param = <not saved>");
    // rbx is callee-saved: unknown only if unwinding lost it.
    FrameContext lost = t.frame;
    lost.known &= ~bit(offsetof(user_regs_struct, rbx));
    EXPECT_EQ(t.print("param", lost), "param = <optimized out>");
    // A piece in a lost register is lost; the other pieces still show.
    EXPECT_EQ(t.print("array", lost), "array = {1, 2, 3, <optimized out>}");
    EXPECT_EQ(t.print("array[2]", lost), "array[2] = 3");
    lost.known = t.frame.known & ~bit(offsetof(user_regs_struct, rbp));
    EXPECT_EQ(t.print("pair", lost), "pair = {first = <optimized out>, second = <optimized out>}");
    EXPECT_EQ(t.print("pair.second", lost), "pair.second = <optimized out>");
    // At work's last instruction param's value is its value at the entry,
    // in the caller's registers: ctrl does not look for it there.
    FrameContext at_return = t.frame;
    at_return.pc = t.work + t.work_size - 1;
    at_return.exact_pc = true;
    at_return.known = kAll;
    EXPECT_EQ(t.print("param", at_return), "param = <optimized out>");
    EXPECT_EQ(t.error("*pointer"), "no error: *pointer = 21");
  } else {
    // Unoptimized: every local is at an offset from the frame base: for
    // gcc the CFA, which needs rsp at the entry and rbp after the prologue;
    // for clang rbp.
    if (GetParam() == std::string("O0")) {
      EXPECT_THAT(t.print("param", entry), MatchesRegex("param = -?[0-9]+"));
      entry.known = kAll & ~bit(offsetof(user_regs_struct, rsp));
      EXPECT_EQ(t.print("param", entry), "param = <optimized out>");
    }
    FrameContext lost = t.frame;
    lost.known &= ~bit(offsetof(user_regs_struct, rbp));
    EXPECT_EQ(t.print("array", lost), "array = <optimized out>");
    EXPECT_EQ(t.error("*pointer"), "no error: *pointer = 21");
  }
}

INSTANTIATE_TEST_SUITE_P(Builds, FrameLocalsTest,
                         ::testing::Values("O0", "O2"
#ifdef CTRL_FRAME_TARGET_CLANG
                                           ,
                                           "clang"
#endif
                                           ),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

class MemoryExaminerTest : public VariablePrinterTest {
 protected:
  MemoryExaminer examiner() {
    Target* t = target_;
    return MemoryExaminer(
        [t](const std::string& e) -> std::optional<uint64_t> {
          auto where = t->printer->address_of(e, t->main_tp, t->reader());
          return where ? std::optional(where->first) : std::nullopt;
        },
        [t](uint64_t addr) { return t->printer->symbol_at(addr); });
  }
  std::string at(const std::string& name) { return hex(target_->address(name)); }
};

TEST_F(MemoryExaminerTest, IntegerFormatsAndUnits) {
  MemoryExaminer x = examiner();
  auto read = target_->reader();
  EXPECT_EQ(x.examine("/3xw &numbers", read), at("numbers") + " <numbers>:\t0x00000001\t0x00000002\t0x00000003");
  EXPECT_EQ(x.examine("/6dw matrix", read),
            at("matrix") + " <matrix>:\t1\t2\t3\t4\n" + hex(target_->address("matrix") + 16) + " <matrix+16>:\t5\t6");
  EXPECT_EQ(x.examine("/2xb &counter", read), at("counter") + " <counter>:\t0x02\t0x00");
  // The format and unit stay; without an address x continues.
  EXPECT_EQ(x.examine("", read), hex(target_->address("counter") + 2) + " <counter+2>:\t0x00");
  EXPECT_EQ(x.examine("counter", read), at("counter") + " <counter>:\t0x02");
  EXPECT_EQ(x.examine("/xh counter", read), at("counter") + " <counter>:\t0x0002");
  EXPECT_EQ(x.examine("/xg big", read), at("big") + " <big>:\t0xfffffee08e04fb35");
  EXPECT_EQ(x.examine("/tb &small", read), at("small") + " <small>:\t11001000");
  EXPECT_EQ(x.examine("/ob &small", read), at("small") + " <small>:\t0310");
  EXPECT_EQ(x.examine("/db &small", read), at("small") + " <small>:\t-56");
  EXPECT_EQ(x.examine("/ub &small", read), at("small") + " <small>:\t200");
  EXPECT_EQ(x.examine("/c &letter", read), at("letter") + " <letter>:\t65 'A'");
  EXPECT_EQ(x.examine("/fg ratio", read), at("ratio") + " <ratio>:\t3.1400000000000001");
  // The unit g stayed from the last command.
  EXPECT_EQ(x.examine("/x " + at("numbers"), read), at("numbers") + " <numbers>:\t0x0000000200000001");
  EXPECT_EQ(x.examine("/2xw " + at("numbers"), read), at("numbers") + " <numbers>:\t0x00000001\t0x00000002");
}

TEST_F(MemoryExaminerTest, AddressesStringsAndInstructions) {
  MemoryExaminer x = examiner();
  auto read = target_->reader();
  EXPECT_EQ(x.examine("/a &counter_ptr", read), at("counter_ptr") + " <counter_ptr>:\t" + at("counter") + " <counter>");
  EXPECT_EQ(x.examine("/s buffer", read), at("buffer") + " <buffer>:\t\"hi\"");
  EXPECT_EQ(x.examine("", read), hex(target_->address("buffer") + 3) + " <buffer+3>:\t\"\"");
  std::string code = x.examine("/2i bump", read);
  // AT&T syntax as capstone spells it (with size suffixes, unlike gdb).
  EXPECT_EQ(code, "   " + at("bump") + " <bump>:\tpushq  %rbp\n   " + hex(target_->address("bump") + 1) +
                      " <bump+1>:\tmovq   %rsp,%rbp");
  // main calls bump first; the call names its target.
  EXPECT_THAT(x.examine("/40i main", read), HasSubstr(":\tcallq  " + at("bump") + " <bump>\n"));
}

TEST_F(MemoryExaminerTest, BadInput) {
  MemoryExaminer x = examiner();
  auto read = target_->reader();
  EXPECT_THROW(x.examine("/q &counter", read), UsageError);
  EXPECT_THROW(x.examine("/x nosuch", read), UsageError);
  EXPECT_THROW(x.examine("/x 12zz", read), UsageError);
  EXPECT_THROW(x.examine("/x 0", read), UsageError);  // unreadable
  MemoryExaminer fresh = examiner();
  EXPECT_THROW(fresh.examine("", read), UsageError);  // nothing to continue
}

}  // namespace
}  // namespace ctrl

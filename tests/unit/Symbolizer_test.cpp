#include "binary/Symbolizer.h"

#include <sys/ptrace.h>

#include <dlfcn.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "binary/Backtracer.h"

// Probes with known names, lines and layouts. extern "C" keeps the plain
// names plain; the namespaced function checks demangling.
constexpr int kProbeLine = __LINE__ + 1;
extern "C" __attribute__((noinline)) int ctrl_symbolizer_probe(int x) { asm volatile("" : "+r"(x)); return x * 3 + 1; }
extern "C" {
long ctrl_symbolizer_zeroed[4];               // .bss
long ctrl_symbolizer_data[4] = {1, 2, 3, 4};  // .data
}

namespace ctrl_symbolizer_test {
__attribute__((noinline)) int twice(int x) {
  asm volatile("" : "+r"(x));
  return 2 * x;
}
}  // namespace ctrl_symbolizer_test

// A call chain that stops itself, for symbolizing a real backtrace. The
// arithmetic after each call keeps the calls from becoming tail calls, which
// would drop their frames.
extern "C" __attribute__((noinline)) int ctrl_backtrace_inner() {
  int r = ::raise(SIGSTOP);
  asm volatile("" : "+r"(r));
  return r + 1;
}
extern "C" __attribute__((noinline)) int ctrl_backtrace_outer() {
  int r = ctrl_backtrace_inner();
  asm volatile("" : "+r"(r));
  return r * 2;
}

namespace ctrl {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

uint64_t addr_of(const void* p) { return reinterpret_cast<uint64_t>(p); }
uint64_t probe_addr() { return addr_of(reinterpret_cast<const void*>(&ctrl_symbolizer_probe)); }

TEST(SymbolizerTest, NamesAFunctionOfThisBinary) {
  Symbolizer sym(::getpid());
  const uint64_t probe = probe_addr();
  EXPECT_EQ(sym.function_name(probe), "ctrl_symbolizer_probe");
  EXPECT_EQ(sym.function_name(probe + 1), "ctrl_symbolizer_probe");
  const std::string line = "Symbolizer_test.cpp:" + std::to_string(kProbeLine);
  EXPECT_EQ(sym.source_line(probe), line);
  EXPECT_EQ(sym.describe_code(probe), "ctrl_symbolizer_probe at " + line);
  EXPECT_EQ(sym.describe_code(probe + 1), "ctrl_symbolizer_probe+0x1 at " + line);
}

TEST(SymbolizerTest, DemanglesCppNames) {
  Symbolizer sym(::getpid());
  const uint64_t addr = addr_of(reinterpret_cast<const void*>(&ctrl_symbolizer_test::twice));
  EXPECT_EQ(sym.function_name(addr), "ctrl_symbolizer_test::twice(int)");
  EXPECT_THAT(sym.describe_code(addr), StartsWith("ctrl_symbolizer_test::twice(int) at Symbolizer_test.cpp:"));
}

TEST(SymbolizerTest, KnowsModules) {
  Symbolizer sym(::getpid());
  const uint64_t probe = probe_addr();
  EXPECT_TRUE(sym.in_module(probe, "ctrl_unit_tests"));
  EXPECT_FALSE(sym.in_module(probe, "libc"));
  EXPECT_EQ(sym.module_name(probe), "ctrl_unit_tests");

  void* getpid_in_libc = ::dlsym(RTLD_DEFAULT, "getpid");
  ASSERT_NE(getpid_in_libc, nullptr);
  const uint64_t libc_fn = addr_of(getpid_in_libc);
  EXPECT_TRUE(sym.in_module(libc_fn, "libc"));
  EXPECT_FALSE(sym.in_module(libc_fn, "ctrl_unit_tests"));
  EXPECT_THAT(sym.function_name(libc_fn), HasSubstr("getpid"));
  EXPECT_THAT(sym.function_name(libc_fn), Not(HasSubstr("@")));
  // libc has no line info here unless its debuginfo is installed; either
  // form names the function.
  EXPECT_THAT(sym.describe_code(libc_fn), HasSubstr("getpid"));
}

TEST(SymbolizerTest, UnmappedAddressesAreNumeric) {
  Symbolizer sym(::getpid());
  EXPECT_EQ(sym.describe_code(0x10), "0x10");
  EXPECT_EQ(sym.function_name(0x10), "");
  EXPECT_EQ(sym.source_line(0x10), "");
  EXPECT_FALSE(sym.in_module(0x10, ""));
  EXPECT_EQ(sym.describe_data(0x10), "0x10");
}

TEST(SymbolizerTest, NamesVariablesInDataAndBss) {
  Symbolizer sym(::getpid());
  // Named by DWARF (AddressNames): array elements, bytes inside one.
  EXPECT_EQ(sym.describe_data(addr_of(&ctrl_symbolizer_zeroed[0])), "ctrl_symbolizer_zeroed[0]");
  EXPECT_EQ(sym.describe_data(addr_of(&ctrl_symbolizer_zeroed[1])), "ctrl_symbolizer_zeroed[1]");
  EXPECT_EQ(sym.describe_data(addr_of(&ctrl_symbolizer_zeroed[3]) + 4), "ctrl_symbolizer_zeroed[3]+4");
  EXPECT_EQ(sym.describe_data(addr_of(&ctrl_symbolizer_data[2])), "ctrl_symbolizer_data[2]");
}

TEST(SymbolizerTest, NamesHeapStackAndAnonymousRegions) {
  // Growing the break directly guarantees a [heap] region even when malloc
  // does not use brk (sanitizers); the page is never given back, as malloc
  // may have moved the break since.
  void* brk_page = ::sbrk(4096);
  ASSERT_NE(brk_page, reinterpret_cast<void*>(-1));
  int local = 0;
  Symbolizer sym(::getpid());
  EXPECT_THAT(sym.describe_data(addr_of(brk_page) + 8), StartsWith("heap+0x"));
  EXPECT_EQ(sym.describe_data(addr_of(&local)), "stack");

  // A mapping made after the snapshot is only known after a refresh.
  void* page = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  sym.snapshot_regions(::getpid());
  char expected[64];
  std::snprintf(expected, sizeof expected, "anon %#llx", static_cast<unsigned long long>(addr_of(page) + 16));
  EXPECT_EQ(sym.describe_data(addr_of(page) + 16), expected);
  ::munmap(page, 4096);
}

TEST(SymbolizerTest, KeepsWorkingAfterTheProcessIsGone) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  Symbolizer sym(child);
  ::kill(child, SIGKILL);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);

  // The child was a fork, so its layout is ours.
  const uint64_t probe = probe_addr();
  EXPECT_EQ(sym.function_name(probe), "ctrl_symbolizer_probe");
  EXPECT_THAT(sym.describe_code(probe), StartsWith("ctrl_symbolizer_probe at Symbolizer_test.cpp:"));
  EXPECT_EQ(sym.describe_data(addr_of(&ctrl_symbolizer_data[1])), "ctrl_symbolizer_data[1]");
  const uint64_t vdso = ::getauxval(AT_SYSINFO_EHDR);
  if (vdso != 0) {
    EXPECT_EQ(sym.module_name(vdso), "[vdso]");
  }

  // Refreshing from a dead process keeps the old regions.
  sym.snapshot_regions(child);
  int local = 0;
  EXPECT_EQ(sym.describe_data(addr_of(&local)), "stack");
}

TEST(SymbolizerTest, NonexistentProcessDegradesToNumbers) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  Symbolizer sym(child);
  char expected[32];
  std::snprintf(expected, sizeof expected, "%#llx", static_cast<unsigned long long>(probe_addr()));
  EXPECT_EQ(sym.describe_code(probe_addr()), expected);
  EXPECT_EQ(sym.function_name(probe_addr()), "");
}

TEST(SymbolizerTest, NamesTheFramesOfABacktrace) {
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) ::_exit(3);
    ::_exit(ctrl_backtrace_outer());
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) GTEST_SKIP() << "ptrace is not permitted here";
  ASSERT_TRUE(WIFSTOPPED(status));

  Backtracer backtracer;
  std::vector<uint64_t> ips = backtracer.unwind(child);
  Symbolizer sym(child);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);

  ASSERT_GE(ips.size(), 3u);
  std::vector<std::string> names;
  ASSERT_TRUE(ips[0] & Backtracer::kExactIp) << "the innermost frame is the thread's own position";
  for (size_t i = 1; i < ips.size(); ++i) EXPECT_FALSE(ips[i] & Backtracer::kExactIp) << "no signal frame here";
  for (auto& ip : ips) ip &= ~Backtracer::kExactIp;
  for (size_t i = 0; i < ips.size(); ++i) names.push_back(sym.function_name(i == 0 ? ips[i] : ips[i] - 1));
  auto inner = std::find(names.begin(), names.end(), "ctrl_backtrace_inner");
  ASSERT_NE(inner, names.end()) << ::testing::PrintToString(names);
  ASSERT_NE(inner + 1, names.end());
  EXPECT_EQ(*(inner + 1), "ctrl_backtrace_outer");
  // Innermost frames are in libc (raise), not in this binary.
  EXPECT_TRUE(sym.in_module(ips[0], "libc")) << sym.describe_code(ips[0]);
  const size_t at = static_cast<size_t>(inner - names.begin());
  EXPECT_THAT(sym.describe_code(ips[at] - 1), StartsWith("ctrl_backtrace_inner+0x"));
  EXPECT_THAT(sym.source_line(ips[at] - 1), StartsWith("Symbolizer_test.cpp:"));

  // A process that is gone (or not stopped by us) cannot be unwound.
  backtracer.flush();
  EXPECT_TRUE(backtracer.unwind(child).empty());
  EXPECT_TRUE(backtracer.unwind(1).empty());
}

}  // namespace
}  // namespace ctrl

#include "binary/ElfInspector.h"

#include <elf.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/ExitStatus.h"

namespace ctrl {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

// Sets PATH for one test and restores it afterwards.
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& value) {
    if (const char* old = std::getenv("PATH")) old_ = old;
    ::setenv("PATH", value.c_str(), 1);
  }
  ~ScopedPath() {
    if (old_) ::setenv("PATH", old_->c_str(), 1);
    else ::unsetenv("PATH");
  }

 private:
  std::optional<std::string> old_;
};

class ElfInspectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "ctrl-elf-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::string write_file(const std::string& name, const std::string& bytes, mode_t mode = 0755) {
    std::string p = path(name);
    {
      std::ofstream out(p, std::ios::binary | std::ios::trunc);
      out << bytes;
    }
    ::chmod(p.c_str(), mode);
    return p;
  }

  // Expects inspect_program to refuse `name` with a one-line UsageError.
  static void expect_refused(const std::string& name, const std::string& phrase) {
    try {
      inspect_program(name);
      ADD_FAILURE() << "inspect_program accepted " << name << ", expected: " << phrase;
    } catch (const UsageError& e) {
      EXPECT_THAT(e.what(), HasSubstr(phrase));
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }

  fs::path dir_;
};

// A minimal x86-64 ELF64 image: header, then `phdrs` program headers, then
// the interpreter string when one of them is PT_INTERP.
std::string make_elf(uint16_t type, uint16_t machine, std::initializer_list<uint32_t> phdr_types,
                     uint64_t entry = 0x401000, unsigned char elf_class = ELFCLASS64) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = elf_class;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = type;
  eh.e_machine = machine;
  eh.e_version = EV_CURRENT;
  eh.e_entry = entry;
  eh.e_phoff = phdr_types.size() ? sizeof(Elf64_Ehdr) : 0;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = static_cast<uint16_t>(phdr_types.size());
  std::string bytes(reinterpret_cast<const char*>(&eh), sizeof eh);
  const char interp[] = "/lib64/ld-linux-x86-64.so.2";
  const uint64_t interp_at = sizeof(Elf64_Ehdr) + phdr_types.size() * sizeof(Elf64_Phdr);
  for (uint32_t t : phdr_types) {
    Elf64_Phdr ph{};
    ph.p_type = t;
    if (t == PT_INTERP) {
      ph.p_offset = interp_at;
      ph.p_filesz = ph.p_memsz = sizeof interp;
    }
    bytes.append(reinterpret_cast<const char*>(&ph), sizeof ph);
  }
  bytes.append(interp, sizeof interp);
  return bytes;
}

TEST_F(ElfInspectorTest, BinTrueIsAcceptedWithItsFacts) {
  const ProgramFacts facts = inspect_program("/bin/true");
  EXPECT_EQ(facts.path, fs::canonical("/bin/true").string());
  EXPECT_EQ(facts.size, fs::file_size("/bin/true"));
  EXPECT_THAT(facts.content_hash, MatchesRegex("[0-9a-f]{16}"));
  EXPECT_EQ(facts.content_hash, hash_file("/bin/true"));
}

TEST_F(ElfInspectorTest, SymlinksAreResolved) {
  fs::create_symlink("/bin/true", path("link-to-true"));
  EXPECT_EQ(inspect_program(path("link-to-true")).path, fs::canonical("/bin/true").string());
}

TEST_F(ElfInspectorTest, BareNameIsSearchedInPath) {
  const std::string real = fs::canonical("/bin/true").string();
  const std::string dir = fs::path(real).parent_path().string();
  ScopedPath scoped(path("empty") + ":" + dir);
  EXPECT_EQ(inspect_program("true").path, real);
}

TEST_F(ElfInspectorTest, PathSearchSkipsNonExecutableCandidates) {
  const std::string real = fs::canonical("/bin/true").string();
  const std::string dir = fs::path(real).parent_path().string();
  fs::create_directory(path("shadow"));
  write_file("shadow/true", "not a program", 0644);
  {
    ScopedPath scoped(path("shadow") + ":" + dir);
    EXPECT_EQ(inspect_program("true").path, real);
  }
  {
    ScopedPath scoped(path("shadow"));
    expect_refused("true", "not executable");
  }
}

TEST_F(ElfInspectorTest, MissingProgramIsNotFound) {
  expect_refused(path("absent"), "program '" + path("absent") + "' not found");
  ScopedPath scoped(path("nowhere"));
  expect_refused("ctrl-no-such-program", "program 'ctrl-no-such-program' not found");
}

TEST_F(ElfInspectorTest, DirectoryIsRefused) { expect_refused(dir_.string(), "is a directory"); }

TEST_F(ElfInspectorTest, NonExecutableFileIsRefused) {
  std::string copy = path("true-copy");
  fs::copy_file("/bin/true", copy);
  ::chmod(copy.c_str(), 0644);
  expect_refused(copy, "not executable");
}

TEST_F(ElfInspectorTest, TextFileIsNotElf) {
  expect_refused(write_file("notes.txt", "hello, world\n"), "is not an ELF file");
  expect_refused(write_file("empty", ""), "is not an ELF file");
  expect_refused(write_file("script.sh", "#!/bin/sh\necho hi\n"), "is not an ELF file");
}

TEST_F(ElfInspectorTest, ForeignMachinesAreRefused) {
  try {
    inspect_program(write_file("arm64", make_elf(ET_EXEC, EM_AARCH64, {PT_INTERP})));
    ADD_FAILURE() << "AArch64 ELF accepted";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("AArch64"));
    EXPECT_THAT(e.what(), HasSubstr("ctrl runs x86-64 programs"));
  }

  // A 32-bit header is shorter; only the ident and e_machine matter here.
  std::string i386 = make_elf(ET_EXEC, EM_386, {}, 0x8048000, ELFCLASS32).substr(0, sizeof(Elf32_Ehdr));
  expect_refused(write_file("i386", i386), "32-bit x86");
  expect_refused(write_file("x32", make_elf(ET_EXEC, EM_X86_64, {PT_INTERP}, 0, ELFCLASS32)), "32-bit");
}

TEST_F(ElfInspectorTest, HandcraftedDynamicExecutableIsAccepted) {
  const std::string bytes = make_elf(ET_EXEC, EM_X86_64, {PT_LOAD, PT_INTERP});
  const ProgramFacts facts = inspect_program(write_file("dyn", bytes));
  EXPECT_EQ(facts.path, fs::canonical(path("dyn")).string());
  EXPECT_EQ(facts.size, bytes.size());
  // Also pins the hash to FNV-1a 64, not just to "some stable hash".
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
  char expected[17];
  std::snprintf(expected, sizeof expected, "%016llx", static_cast<unsigned long long>(h));
  EXPECT_EQ(facts.content_hash, expected);
  EXPECT_NO_THROW(inspect_program(write_file("pie", make_elf(ET_DYN, EM_X86_64, {PT_INTERP}))));
}

// --model c11/rc11 needs the program's atomics to be libatomic calls.
TEST_F(ElfInspectorTest, LibatomicImportsAreFound) {
  const std::string dir = CTRL_TEST_SAMPLES_DIR;
  EXPECT_EQ(imports_libatomic(dir + "/c11_mp_relaxed"), std::optional<bool>(true));
  EXPECT_EQ(imports_libatomic(dir + "/c11_inline_only"), std::optional<bool>(false));
  EXPECT_EQ(imports_libatomic("/bin/true"), std::optional<bool>(false));
  // No section headers at all, or no file: unknown, not "inline".
  EXPECT_EQ(imports_libatomic(write_file("dyn", make_elf(ET_EXEC, EM_X86_64, {PT_LOAD, PT_INTERP}))), std::nullopt);
  EXPECT_EQ(imports_libatomic(path("absent")), std::nullopt);
}

TEST_F(ElfInspectorTest, KnownFnvValues) {
  EXPECT_EQ(hash_file(write_file("zero", "")), "cbf29ce484222325");
  EXPECT_EQ(hash_file(write_file("a", "a")), "af63dc4c8601ec8c");
  EXPECT_THROW(hash_file(path("absent")), UsageError);
}

TEST_F(ElfInspectorTest, NoInterpreterMeansStaticallyLinked) {
  expect_refused(write_file("static", make_elf(ET_EXEC, EM_X86_64, {PT_LOAD})), "is statically linked");
  expect_refused(write_file("static-pie", make_elf(ET_DYN, EM_X86_64, {PT_LOAD, PT_DYNAMIC})),
                 "is statically linked");
  expect_refused(write_file("nophdrs", make_elf(ET_EXEC, EM_X86_64, {})), "is statically linked");
}

TEST_F(ElfInspectorTest, SharedLibraryWithoutEntryIsNotAProgram) {
  expect_refused(write_file("lib.so", make_elf(ET_DYN, EM_X86_64, {PT_LOAD, PT_DYNAMIC}, 0)),
                 "shared library");
}

TEST_F(ElfInspectorTest, WrongElfTypeIsRefused) {
  expect_refused(write_file("obj.o", make_elf(ET_REL, EM_X86_64, {})), "relocatable object");
  expect_refused(write_file("core", make_elf(ET_CORE, EM_X86_64, {PT_LOAD})), "core dump");
}

// A set-user-ID or set-group-ID program is said before it runs (issue 26),
// in one line that says whose rights it runs with; any other is not.
TEST_F(ElfInspectorTest, SetIdProgramsAreSaid) {
  std::string plain = path("plain");
  fs::copy_file("/bin/true", plain);
  EXPECT_EQ(set_id_note(plain), std::nullopt);
  std::string own = path("own-setuid");
  fs::copy_file("/bin/true", own);
  ASSERT_EQ(::chmod(own.c_str(), 04755), 0);
  auto note = set_id_note(own);
  ASSERT_TRUE(note.has_value());
  EXPECT_THAT(*note, HasSubstr("is set-user-ID (uid " + std::to_string(::geteuid()) + ")"));
  EXPECT_THAT(*note, HasSubstr("it runs as it would outside ctrl"));
  EXPECT_EQ(note->find('\n'), std::string::npos);
  std::string group = path("setgid");
  fs::copy_file("/bin/true", group);
  ASSERT_EQ(::chmod(group.c_str(), 02755), 0);
  ASSERT_TRUE(set_id_note(group).has_value());
  EXPECT_THAT(*set_id_note(group), HasSubstr("is set-group-ID (gid "));
  // Another user's set-user-ID program: only root can make one here.
  if (::geteuid() == 0) {
    std::string other = path("other-setuid");
    fs::copy_file("/bin/true", other);
    ASSERT_EQ(::chown(other.c_str(), 65534, 65534), 0);
    ASSERT_EQ(::chmod(other.c_str(), 04755), 0);
    EXPECT_THAT(set_id_note(other).value_or(""),
                HasSubstr("runs as its owner, and the loader then ignores LD_PRELOAD"));
  }
}

TEST_F(ElfInspectorTest, ShortAndMalformedFilesAreRefusedSafely) {
  const std::string good = make_elf(ET_EXEC, EM_X86_64, {PT_LOAD, PT_INTERP});
  // Every prefix must be refused (or, past the program headers, accepted)
  // without reading beyond the file.
  for (size_t len = 0; len < sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr); ++len) {
    SCOPED_TRACE(len);
    std::string name = "cut" + std::to_string(len);
    EXPECT_THROW(inspect_program(write_file(name, good.substr(0, len))), UsageError);
  }
  std::string bad_phoff = good;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bad_phoff.data(), sizeof eh);
  eh.e_phoff = 1ULL << 62;
  std::memcpy(bad_phoff.data(), &eh, sizeof eh);
  expect_refused(write_file("bad-phoff", bad_phoff), "malformed");

  std::string bad_class = good;
  bad_class[EI_CLASS] = 9;
  expect_refused(write_file("bad-class", bad_class), "malformed");
}

TEST_F(ElfInspectorTest, RealStaticBinaryIsRefusedWhenGccCanBuildOne) {
  const std::string src = write_file("s.c", "int main(void) { return 0; }\n", 0644);
  const std::string out = path("s-static");
  const std::string cmd = "gcc -static -o '" + out + "' '" + src + "' >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "gcc -static is not available";
  expect_refused(out, "is statically linked");
}

}  // namespace
}  // namespace ctrl

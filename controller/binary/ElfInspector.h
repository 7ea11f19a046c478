// Checks, before anything is started, that a program is something ctrl can
// test: a dynamically linked x86-64 ELF executable, so that the dynamic
// loader will preload ctrl's agent into it. Refusing early turns what would
// be an obscure failure inside the target into one line for the user.
//
// The ELF header and program headers are parsed by hand from <elf.h>:
// only a few fields matter and every read is bounds-checked, so short or
// malformed files are refused instead of read past.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ctrl {

// Identity of the program under test, recorded in traces so that a replay
// can tell it is running the very same binary.
struct ProgramFacts {
  std::string path;          // absolute, symlinks resolved
  uint64_t size = 0;         // bytes
  std::string content_hash;  // FNV-1a 64 of the bytes, 16 lowercase hex digits
};

// Resolves `name` like execvp (PATH search when it has no '/', default
// "/bin:/usr/bin" when PATH is unset), then checks it. Throws UsageError
// with one line, naming `name` as the user wrote it, when the program is
// missing, not a regular file, not executable, not an ELF file, not an
// x86-64 ELF64, not an executable or shared-object ELF, or statically linked
// (no PT_INTERP, so nothing can be preloaded).
ProgramFacts inspect_program(const std::string& name);

// What ctrl does with a set-user-ID or set-group-ID program (nullopt for
// any other): the kernel does not raise a traced process's rights, so it
// runs with ctrl's user's and group's, not its owner's. One line, said
// before it runs (issue 26: nothing unusual happens silently).
std::optional<std::string> set_id_note(const std::string& path);

// Whether the program (checked by inspect_program) imports a libatomic
// function (an undefined dynamic symbol named __atomic_*): what a program
// built with -fno-inline-atomics calls for its C11/C++ atomics, and the only
// atomics whose memory order ctrl sees (--model c11/rc11). nullopt when the
// file has no dynamic symbol table in its section headers (stripped of
// them) or it cannot be read: unknown.
std::optional<bool> imports_libatomic(const std::string& path);
// Whether the file imports a function whose name starts with `prefix` (an
// undefined dynamic symbol); nullopt as above.
std::optional<bool> imports_prefixed(const std::string& path, std::string_view prefix);
// Whether the file defines and exports the dynamic symbol `name`; nullopt as
// above.
std::optional<bool> defines_symbol(const std::string& path, std::string_view name);
// The two above: an undefined symbol starting with `prefix`, or a defined
// one named `prefix`.
std::optional<bool> has_dynamic_symbol(const std::string& path, std::string_view prefix, bool defined);

// Whether the file is a program built by the Go toolchain (a section
// .go.buildinfo or .note.go.buildid); false when it cannot be read.
bool is_go_program(const std::string& path);

// FNV-1a 64 of the file's bytes as 16 lowercase hex digits.
// Throws UsageError if the file cannot be read.
std::string hash_file(const std::string& path);

}  // namespace ctrl

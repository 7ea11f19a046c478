// Rebinding the import slots of the objects loaded at start-up: the GOT
// entries through which their code calls a function of another object
// (R_X86_64_JUMP_SLOT: a call through the PLT, lazily bound or not;
// R_X86_64_GLOB_DAT: a call with -fno-plt, or the function's address taken).
// A definition that comes before the agent's in the lookup order (a
// sanitizer's runtime, preloaded first) is not overridden by defining the
// same name: the slots are rewritten instead.
//
// Read from the loaded objects' dynamic sections (the loader has already
// relocated their addresses, except the vDSO's, which are offsets). Slots in
// the RELRO segment are made writable for the write, then read-only again.
// Objects loaded later (dlopen) are not seen.
#pragma once

namespace ctrl::agent::import_slots {

// For every loaded object that `skip(path)` does not reject (the main
// program's path is ""), every slot of an undefined symbol whose name starts
// with `prefix` is set to `replacement(name)`. Returns null, or the first
// name `replacement` returned null for (its slots, and the rest, keep their
// value).
const char* rebind(const char* prefix, bool (*skip)(const char* path, const void* base),
                   void* (*replacement)(const char* name));

}  // namespace ctrl::agent::import_slots

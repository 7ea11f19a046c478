// The file state every execution starts from: the file system and the
// open descriptors as they were at the checkpoint. Executions are forked
// from the checkpoint, so they share its open file descriptions (offsets)
// and the files themselves with each other.
//
// At the checkpoint the fork server records each descriptor the program
// holds on a regular file or directory: its offset and, for a regular file
// open for writing, its size, times and a copy of its contents (up to
// kCopyLimit in all; a file opened O_APPEND needs no copy: writes only
// extend it). Each new execution, before the program runs, first undoes the
// previous execution's changes by path (FileJournal.h), then puts back each
// recorded file it finds changed (size or modification time differs:
// truncated and rewritten in place) and every recorded offset. It also
// puts back the status flags (O_NONBLOCK, O_APPEND ...) of every descriptor
// open at the checkpoint, whatever it is open on: they too belong to the
// shared open file description.
//
// Cost for a program that touches no file: one lseek per recorded
// descriptor, one fstat per recorded descriptor open for writing, and one
// fcntl(F_GETFL) per descriptor.
// Not restored: data read from pipes, sockets and terminals; a file open
// for writing beyond the copy limit (only its size is put back; ctrl warns).
#pragma once

#include <cstdint>

namespace ctrl::agent::file_state {

// In the fork server, at the checkpoint (single-threaded).
void checkpoint();
// In a new execution, before the program runs.
void start_execution();
// In the fork server at the end of a session that found a bug: the files
// as at the checkpoint, for a replay.
void restore_at_end();
// Whether a descriptor open at the checkpoint holds this file (whose
// identity the program may then check, as xz does before removing its
// input).
bool held_at_checkpoint(uint64_t dev, uint64_t ino);

}  // namespace ctrl::agent::file_state

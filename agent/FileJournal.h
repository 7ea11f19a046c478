// What an execution changes in the file system by path, recorded just
// before each change, so that the next execution can put it back: every
// execution starts from the file system of the checkpoint (FileState.h
// restores the descriptors open there).
//
// Invariants:
//  * The journal lives in shared memory the fork server maps at the
//    checkpoint: it outlives the execution that writes it, and the next
//    execution undoes it (FileState::start_execution, before the program
//    runs) and empties it. Children an execution forks write to it too.
//  * Entries are undone in reverse order, so each one finds the file system
//    as its change left it: a rename is undone by the opposite rename, a
//    created path is removed, a removed or rewritten file is written back
//    from the copy taken before the change (in place when the path still
//    holds a file, so descriptors the checkpoint holds keep their inode).
//    A file removed (or replaced by a rename) that a descriptor open at the
//    checkpoint holds keeps its inode too: instead of a copy it gets a
//    second name, a hard link `.ctrl-keep-<64 random bits>` next to it,
//    renamed back by the undo (programs such as xz check that the file they
//    remove is the one they opened). The fork server removes the last
//    execution's links when the session ends (commit); only a ctrl killed
//    by SIGKILL leaves one behind.
//  * No heap and no stdio on any of these paths: the program's heap must be
//    the same in every execution and in a replay.
//  * A change whose copy does not fit (kDataSize bytes of copies per
//    execution, kMaxEntries changes) is left as the execution made it, and
//    ctrl says so on stderr (a notice, once per path, at most a few).
//
// Not covered: changes made by programs an execution starts (exec), by an
// inline system call, or through other interfaces (chmod, chown, xattrs,
// sockets bound to a path); a file replaced by a copy gets a new inode.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace ctrl::agent::journal {

// At the checkpoint, in the fork server: maps the journal. False when it
// cannot (nothing is recorded then).
bool create();
// In a new execution, before the program runs: undoes what the previous
// execution recorded, empties the journal and starts recording.
void undo_and_record();
// At the end of the session, in the fork server: the last execution's
// changes stay; the links kept to undo them are removed.
void commit();
// Or they are undone (the fork server, at the end, after a bug).
void undo();
// Where the journal is: 0 while no execution ever journalled a change, else
// the executions started and the changes journalled so far. A live
// checkpoint compares it at its restore to tell whether files changed after
// it (LiveCheckpoint.h).
uint64_t mark();
// Whether changes are being recorded in this process (an execution or a
// process it forked), for a call the program makes.
bool recording();

// Before the program's own calls (dirfd as in the *at calls; AT_FDCWD for
// the others).
void before_open(int dirfd, const char* path, int flags);
void before_remove(int dirfd, const char* path);
void before_rename(int old_dirfd, const char* old_path, int new_dirfd, const char* new_path, unsigned flags);
// mkdir, link, symlink: `path` is about to be created.
void before_create(int dirfd, const char* path);
void before_truncate(const char* path);
// After mkstemp and the like created `path` (a new name, O_EXCL).
void created(const char* path);

}  // namespace ctrl::agent::journal

// Executions run in place: the process that ran an execution is put back to
// the checkpoint (its memory, mappings, descriptors, signal dispositions,
// working directory and umask) and runs the next one, instead of exiting
// and being replaced by a new fork of the fork server (issue 12).
//
// The fork server forks one *runner*; the runner arms a MemorySnapshot and
// saves its registers at the checkpoint (ctrl_context_save), then runs
// executions. When one completes in the runner's main thread (the thread
// that holds the checkpoint's stack), the other threads are ended, the
// memory is restored from a stack of the agent's own, and the saved
// context resumes: the runner then waits for its next ticket exactly as a
// freshly forked execution would.
//
// Invariants:
//  * The runner's state (context, ticket, counters, the reasons it stopped)
//    lives outside the tracked memory: a rollback never undoes it.
//  * Anything an execution changed that cannot be put back (a child process,
//    a pending signal, a timer, a removed file mapping, mprotect/madvise of the
//    checkpoint's memory, the main thread gone) makes `refusal()` non-null;
//    the runner then exits after the execution, as an execution in a
//    forked process always did, and the next execution gets a new runner.
//  * Only the runner process rolls back: a live checkpoint forked from it
//    (another pid) exits as before.
#pragma once

#include <cstdint>

namespace ctrl::agent::rollback {

// In the runner, just forked: arms the snapshot at the checkpoint. Returns
// twice: false at once when armed (or when rolling back is impossible, with
// the reason kept for refusal()), then true each time an execution was
// rolled back and the process is at the checkpoint again.
bool arm_runner(uint32_t ticket, int control_fd);
// The ticket (Header::released) the runner waits for next.
uint32_t ticket();
// This process is an armed runner.
bool armed();
// This process is the runner (armed or not; a live checkpoint forked from
// it is not).
bool is_runner();
// The calling thread is the runner's main thread, the one that holds the
// checkpoint's stack (its tid is the pid; known without asking the kernel:
// a thread-local set at arming, which every rollback keeps).
bool in_main_thread();
// The runner could not be armed at all (nothing will ever roll back here).
bool unusable();
// Why the current execution cannot be rolled back, or nullptr; with
// `any_thread`, whichever thread calls (the main thread is asked to roll
// back).
const char* refusal(bool any_thread = false);
// Interposers: the execution changed something a rollback cannot put back.
void taint(const char* why);
// Interposers: the program set the disposition of `sig`.
void note_sigaction(int sig);
// Process state the rollback checks or puts back only when the execution
// may have changed it (each check is a system call; issue 27). The
// interposers of the libc functions that change it note it, and so do the
// program's own system calls: libc's syscall() and every `syscall`
// instruction outside libc, which is a site that traps (InstructionSites.h).
enum Change : uint32_t {
  kTimers = 1,          // setitimer, alarm, ualarm, profil: the interval timers
  kUmask = 2,           // umask
  kAlternateStack = 4,  // sigaltstack, setting one (any thread's)
  kHeapEnd = 8,         // a raw brk (libc's brk and sbrk keep __curbrk)
  // A descriptor open at the checkpoint closed or replaced (close, dup2,
  // dup3, close_range, closefrom, fclose, fcloseall, freopen, closedir,
  // login_tty, io_uring): each is then compared with its record.
  kDescriptors = 16,
  // A descriptor's status flags (F_GETFL), which live in the open file
  // description: fcntl(F_SETFL), ioctl(FIONBIO, FIOASYNC), fdopen (it may
  // add O_APPEND), or a process the execution started (fork, posix_spawn,
  // system, popen, a raw clone or fork: it shares the descriptions).
  kStatusFlags = 32,
  // The working directory: chdir, fchdir, and libc's walkers that change it
  // inside (nftw with FTW_CHDIR; fts_read, fts_children and fts_close
  // without FTS_NOCHDIR), or a raw chdir, fchdir, clone or clone3 (a child
  // with CLONE_FS shares it).
  kWorkingDirectory = 64,
};
void note_change(uint32_t changes);
// FileState: whether the status flags of the checkpoint's descriptors may
// differ from the checkpoint's since the last call (true outside an armed
// runner: a process per execution shares the descriptions with the fork
// server and the executions before it).
bool take_status_flags_change();
// The program closes or replaces descriptor `fd` (kDescriptors when the
// checkpoint held it; any other was opened by the execution).
void note_descriptor(int fd);
// The program makes system call `nr` itself (a raw call): notes what it
// may change.
void note_syscall(long nr);
// The alternate signal stack of the calling thread (the runner's main thread
// or a pool slot's, ThreadPool.h) is the one the agent gave thread `index`
// and nothing may have changed it since (kernel state, which a rollback
// leaves as it is): its first turn need not ask the kernel.
bool alternate_stack_known(uint32_t index);
// The same for the kernel thread of pool slot `slot`, asked from another
// one (a thread started away from its own, Runtime.h).
bool slot_alternate_stack_known(uint32_t slot, uint32_t index);
// The calling thread's alternate stack is now the one for `index`.
void note_alternate_stack(uint32_t index);
// The program changes the protection or the content of [addr, addr+len)
// (mprotect, madvise): refused when it touches the checkpoint's memory.
void note_memory_change(uint64_t addr, uint64_t len, const char* what);
// Puts the process back to the checkpoint and resumes it there (arm_runner
// returns true). Called by the runner's main thread once every other thread
// of the execution is gone. Never returns: a failure ends the process with
// `status`.
[[noreturn]] void roll_back(int status);
// The execution cannot be put back after all (the controller was told it
// would be): says why to the controller and ends the process with `status`.
[[noreturn]] void abandon(const char* why, int status);
// Pins the runner (and so the threads it creates) to `cpu` (none when
// negative) and makes it a batch task; the program keeps seeing its own
// affinity and policy (InterposeAffinity.cpp).
void pin_to_cpu(int cpu);
// A long execution may use every CPU the program may (Runtime::spread): its
// waiting threads then spin on one CPU while the running one runs on
// another, where pinned they would sleep and be woken at every hand-off.
// Unpins every thread of the pinned runner and returns true; false when the
// runner is not pinned or the program may use one CPU only. The next
// rollback pins them all back (the runner's state remembers it), so every
// execution starts on the runner's CPU.
bool spread_threads();
// (Between the two halves: spread_threads tells the runner's state, and
// the rollback calls gather_threads, which pins every thread back.)
void note_spread();
void gather_threads();
// Tests (CTRL_TEST_NO_UFFD): arming fails as on a kernel without what it needs.
void pretend_unsupported();

}  // namespace ctrl::agent::rollback

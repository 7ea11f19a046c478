# gdb against `ctrl replay --gdb PORT TRACE` on the recorded deadlock of
# samples/deadlock_lock_order (T0 main, T1 left, T2 right; gdb thread i+1 is
# ctrl's T<i>). Not registered under CTest yet: it waits for DebugSession.
#
#   ctrl attach --save-trace deadlock.trace samples/deadlock_lock_order   # exit 1
#   ctrl replay --gdb 0 deadlock.trace &      # prints "... listening on 127.0.0.1:PORT ..."
#   gdb -nx -batch -ex 'target remote :PORT' -x tests/e2e/gdb_session.gdb samples/deadlock_lock_order
#
# What each command should print is in the comment above it; a test checks
# those lines in gdb's output and that ctrl exits 0 after the detach.

set pagination off
set confirm off

# Step 0 of the recording: only main exists.
#   * 1    Thread P.1 "T0 thread_create" (...) ... main () at deadlock_lock_order.c:35
info threads

# Runs the recording until right() is about to take `a` (its second lock),
# after left() took `a`. gdb reports the stop as a SIGTRAP of thread 3 at the
# line (or "Breakpoint 1," when the thread's pc is the breakpoint's address);
# console output first lists the steps performed, as the bug report does.
#   Breakpoint 1 at 0x...: file deadlock_lock_order.c, line 26.
#   Thread 3 "T2 mutex_lock a" received signal SIGTRAP ... right (arg=...) at deadlock_lock_order.c:26
break deadlock_lock_order.c:26
continue

# Every thread, with its pending operation.
#   1    Thread P.1 "T0 thread_join" ...
#   2    Thread P.2 "T1 mutex_lock b" ... left (arg=...) at deadlock_lock_order.c:16
# * 3    Thread P.3 "T2 mutex_lock a" ... right (arg=...) at deadlock_lock_order.c:26
info threads

# left's frames, file:line of the program (agent frames left out).
#   #0  ... left (arg=...) at deadlock_lock_order.c:16
#   #1  ... start_thread ...
thread 2
bt

# A global, read from the paused process.
#   $1 = 0
print transfers

# Back one step: the last thread to move (T2 taking b) is before it again.
#   ... right (arg=...) at deadlock_lock_order.c:25
reverse-stepi
info threads

# Thread 1 (T1) performs one visible operation through the monitor; gdb's
# caches are flushed by hand, then T1 is at its next operation.
#   step N: T1 ...
#   at step N+1 (gdb still shows the old state: maintenance flush register-cache)
monitor step 1
maintenance flush register-cache
info threads

# The interleaving so far, one bug-report line per step.
monitor schedule

# To the end: the recorded deadlock.
#   ... deadlock ...
#   Thread N "..." received signal SIGTRAP
delete
continue

# Going back still works at the end.
#   No more reverse-execution history.   (back at step 0: no breakpoint left)
reverse-continue

detach

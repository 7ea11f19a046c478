# gdb against `ctrl replay --gdb PORT TRACE` on the recorded deadlock of
# samples/deadlock_lock_order (T0 main, T1 left, T2 right; gdb thread i + 1
# is ctrl's T<i>). Not registered under CTest yet: it needs DebugSession and
# the --gdb option. The test would run:
#
#   ctrl attach --trace-dir traces samples/deadlock_lock_order   # exit 1, traces/*-deadlock-exec1.ctrltrace
#   ctrl replay --gdb 0 traces/*.ctrltrace 2> server.err &   # "ctrl: gdb server listening on 127.0.0.1:PORT (...)"
#   gdb -nx -batch -ex 'target remote :PORT' -x tests/e2e/gdb_session.gdb samples/deadlock_lock_order
#
# and check the lines below (regular expressions, in order) in gdb's output,
# then that ctrl exits 0 after the detach and left no process behind.

set pagination off
set confirm off

# Step 0 of the recording: only main, about to create its first thread.
#   \* 1 +Thread [0-9]+\.1 "T0 thread_create" .* main \(\) at .*deadlock_lock_order\.c:3[0-9]
info threads

# The recording runs until right() is about to perform an operation of line
# 26 (or the operation whose return address starts line 26: its lock of b).
# Console output first lists the steps performed, as in the bug report. gdb
# says "hit Breakpoint 1" when T2's pc (the call's return address) is the
# breakpoint's address, else that it "received signal SIGTRAP"; either way:
#   Breakpoint 1 at 0x[0-9a-f]+: file .*deadlock_lock_order\.c, line 26\.
#   Thread 3 "T2 mutex_lock [ab]" (hit Breakpoint 1|received signal SIGTRAP)
#   right \(.*\) at .*deadlock_lock_order\.c:2[56]
break deadlock_lock_order.c:26
continue

# Every thread with its pending operation and program frame.
#   1 +Thread [0-9]+\.1 "T0 thread_join
#   2 +Thread [0-9]+\.2 "T1 mutex_lock .* left \(.*\) at .*deadlock_lock_order\.c:1[56]
#   \* 3 +Thread [0-9]+\.3 "T2 mutex_lock .* right \(.*\) at .*deadlock_lock_order\.c:2[56]
info threads

# left's frames, with file:line. gdb numbers threads in the order it learns
# of them (here T2, the breakpoint's, before T1), so T1 is chosen by name.
#   #0 .*left \(.*\) at .*deadlock_lock_order\.c:1[67]
python
for t in gdb.selected_inferior().threads():
    if t.name.startswith("T1 "):
        t.switch()
end
bt

# A global, read from the paused process.
#   \$1 = 0
print transfers

# Back to before T1's previous step (taking a); then T1 performs it again
# through the monitor (gdb's caches are flushed by hand after a monitor
# command that moves).
#   left \(.*\) at .*deadlock_lock_order\.c:1[56]
#   [0-9]+  T1   mutex_lock a
#   at step [0-9]+ \(gdb still shows the old state: maintenance flush register-cache\)
reverse-stepi
monitor step 1
maintenance flush register-cache
info threads

# The interleaving so far, one bug-report line per step.
#   1  T0   pthread_create -> T1
monitor schedule

# To the end: the recorded deadlock, reported with the session's message.
#   deadlock: no thread can proceed
#   Thread [0-9] "T[12] mutex_lock [ab]" received signal SIGTRAP
delete
continue

# Going back works from the end: with no breakpoint, back to step 0.
#   No more reverse-execution history\.
#   main \(\) at .*deadlock_lock_order\.c:3[0-9]
reverse-continue

detach

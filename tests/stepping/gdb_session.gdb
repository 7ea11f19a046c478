# gdb against `ctrl replay --gdb PORT TRACE` on the recorded deadlock of
# samples/deadlock_lock_order (T0 main, T1 left, T2 right), run by gdb_path.sh (replay):
#
#  $ ctrl attach --trace-dir traces deadlock_lock_order       (exit 1: the deadlock's trace)
#  $ ctrl replay --gdb 0 traces/*.ctrltrace 2> server.err &   ("listening on 127.0.0.1:PORT")
#  $ gdb -nx -batch -ex 'target remote :PORT' -x gdb_session.gdb deadlock_lock_order
#
# Each command is preceded by the lines it must print, as regular
# expressions after "#   "; gdb_path.sh checks they all appear in gdb's output,
# in order, then that ctrl exits 0 after the detach and leaves no process.

set pagination off
set confirm off
# gdb then names the thread it steps, backwards too (Hc): reverse-stepi goes
# back for the selected thread rather than for the thread of the last stop.
set scheduler-locking step

# Step 0 of the recording: only main, about to create its first thread (a
# thread parked in a call is shown at the call).
#   \* 1 +Thread [0-9]+\.1 "T0 pthread_create" \(enabled: pthread_create at main\+0x[0-9a-f]+ at deadlock_lock_order\.c:35\) 0x[0-9a-f]+ in main \(\) at .*deadlock_lock_order\.c:35
info threads

# The recording runs until right() is about to perform an operation on the
# breakpoint's line: its lock of b. Console output lists the steps
# performed, as the bug report does.
#   Breakpoint 1 at 0x[0-9a-f]+: file .*deadlock_lock_order\.c, line 25\.
#       5  T2   starts   at right at deadlock_lock_order\.c:23
#   ctrl: T2 is about to perform step 6: mutex_lock b at right\+0x[0-9a-f]+ at deadlock_lock_order\.c:25
#   Thread [0-9] "T2 mutex_lock b" hit Breakpoint 1, right \(arg=.*\) at .*deadlock_lock_order\.c:25
break deadlock_lock_order.c:25
continue

# Every thread with its pending operation and program frame.
#   Thread [0-9]+\.1 "T0 pthread_join T1" \(blocked in pthread_join T1 .* in main \(\) at .*deadlock_lock_order\.c:37
#   Thread [0-9]+\.3 "T2 mutex_lock b" \(enabled: mutex_lock b .* right \(arg=.*\) at .*deadlock_lock_order\.c:25
#   Thread [0-9]+\.2 "T1 mutex_lock b" \(enabled: mutex_lock b .* in left \(arg=.*\) at .*deadlock_lock_order\.c:16
info threads

# left's frames, with file:line. gdb numbers threads in the order it learns
# of them (here T2, the breakpoint's, before T1), so T1 is chosen by name.
# Below left: the agent's start routine of a recycled thread, unnamed: gdb
# is not given the agent's library.
#   #0  0x[0-9a-f]+ in left \(arg=.*\) at .*deadlock_lock_order\.c:16
#   #1  0x[0-9a-f]+ in \?\? \(\)
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
# command that moves), and is again about to take b.
#   0x[0-9a-f]+\s+15\s+(pthread_mutex_lock\(&a\);|in )
#       4  T1   pthread_mutex_lock a   at left\+0x[0-9a-f]+ at deadlock_lock_order\.c:15
#   at step 4 \(gdb still shows the old state: maintenance flush register-cache\)
#   Thread [0-9]+\.2 "T1 mutex_lock b" .* in left \(arg=.*\) at .*deadlock_lock_order\.c:16
reverse-stepi
monitor step 1
maintenance flush register-cache
info threads

# The interleaving so far, one bug-report line per step.
#       1  T0   pthread_create -> T1   at main\+0x[0-9a-f]+ at deadlock_lock_order\.c:35
#       4  T1   pthread_mutex_lock a
monitor schedule

# To the end: the recorded deadlock, reported with the session's message.
#   deadlock: no thread can proceed: T0 blocked in pthread_join T1; T1 blocked in mutex_lock b \(waits for T2\); T2 blocked in mutex_lock a \(waits for T1\)
#   Thread [0-9] "T2 mutex_lock a" received signal SIGTRAP
#   in right \(arg=.*\) at .*deadlock_lock_order\.c:26
delete
continue

# Going back works from the end: with no breakpoint, back to step 0.
#   No more reverse-execution history\.
#   0x[0-9a-f]+ in main \(\) at .*deadlock_lock_order\.c:35
reverse-continue

detach

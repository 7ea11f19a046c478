# Breakpoints as gdb reports them (issue 25, item 6), on the recorded
# deadlock of samples/pool_stop_unlocked (T0 main, T1 worker), run by
# gdb_path.sh: a breakpoint on a line stops the thread about to perform that
# line's operation, and gdb names it ("Breakpoint N, ...") at that line,
# whether the operation is a call (line 45: pthread_mutex_unlock, inlined
# pool_submit) or a plain store (line 49: p->stop = 1, inlined pool_stop),
# never a SIGTRAP at another line. gdb's library list is the program's:
# no ctrl agent, nor the C++ runtime only the agent needs; its threads are
# the program's two.

set pagination off
set confirm off

#   Breakpoint 1 at 0x[0-9a-f]+: file .*pool_stop_unlocked\.c, line 45\.
#   ctrl: T0 is about to perform step 6: mutex_unlock
#   Thread 1 "T0 mutex_unlock [^"]*" hit Breakpoint 1, .*pool_submit .* at .*pool_stop_unlocked\.c:45
break pool_stop_unlocked.c:45
continue

# gdb steps T0 over breakpoint 1 (its unlock, step 6): T0 is then about
# to store p->stop, at breakpoint 2, which gdb reports at once.
#   Breakpoint 2 at 0x[0-9a-f]+: file .*pool_stop_unlocked\.c, line 49\.
#       6  T0   pthread_mutex_unlock
#   Thread 1 "T0 store [^"]*" hit Breakpoint 2, .*pool_stop .* at .*pool_stop_unlocked\.c:49
break pool_stop_unlocked.c:49
continue

# The program's threads only, and its libraries.
#   \* 1 +Thread [0-9]+\.1 "T0 store
#   2 +Thread [0-9]+\.2 "T1 thread_start
#   libc\.so\.6
#!  libctrl-agent
#!  libstdc\+\+
#!  libprotobuf
#!  Thread [0-9]+\.3
#!  received signal SIGTRAP
#!  Breakpoint [0-9]+, T0 is about
info threads
info sharedlibrary

# An address breakpoint where a line starts (line 50's broadcast).
# The recording runs on (T1's steps 7-14, T0's store at 15) to it.
#   Breakpoint 3 at 0x[0-9a-f]+: file .*pool_stop_unlocked\.c, line 50\.
#      15  T0   store
#   ctrl: T0 is about to perform step 16: cond_broadcast
#   hit Breakpoint 3, .* at .*pool_stop_unlocked\.c:50
delete
python gdb.execute("break *" + str(gdb.decode_line("pool_stop_unlocked.c:50")[1][0].pc))
continue

detach

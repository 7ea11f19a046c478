# A write watchpoint (issue 25, item 6) on the recorded deadlock of
# samples/pool_stop_unlocked, run by gdb_path.sh: `watch -l p->stop` (Z2,
# 4 bytes) stops after T0's store at line 49 and names T0 as the thread,
# not before T1's earlier reads of p->stop (line 24 loads pending and stop
# in one 8-byte load) nor blaming T1.

set pagination off
set confirm off

# p is main's (in a register): -location watches its bytes.
#   Breakpoint 1 at 0x[0-9a-f]+: file .*pool_stop_unlocked\.c, line 57\.
#   hit Breakpoint 1, .* at .*pool_stop_unlocked\.c:(57|42)
break pool_stop_unlocked.c:57
continue
#   Hardware watchpoint 2: -location p->stop
delete 1
watch -l p->stop

#       9  T1   load [^ ]+ \(8 bytes\) -> 1
#   ctrl: T0 wrote [^ ]+ \(4 bytes at 0x[0-9a-f]+\) at pool_stop at pool_stop_unlocked\.c:49.*, step 15
#   Thread 1 "T0 [^"]*" hit Hardware watchpoint 2: -location p->stop
#   Old value = 0
#   New value = 1
#!  T1 [^\n]*hit Hardware watchpoint
continue

# A user error through the monitor: one line, and the session goes on.
#   ctrl: save: cannot write trace file '/nonexistent-ctrl-dir/x'
#   \* 1 +Thread [0-9]+\.1 "T0
monitor save /nonexistent-ctrl-dir/x
info threads

detach

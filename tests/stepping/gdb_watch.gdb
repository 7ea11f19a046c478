# A write watchpoint (issue 25, item 6) on the recorded deadlock of
# samples/pool_stop_unlocked, run by gdb_path.sh: `watch -l p->stop` (Z2,
# 4 bytes) stops after T0's store at line 49 and names T0 as the thread,
# not before T1's earlier reads of p->stop (line 24 loads pending and stop
# in one 8-byte load) nor blaming T1.

set pagination off
set confirm off

# p is main's (in a register): -location watches its bytes.
#   Breakpoint 1 at 0x[0-9a-f]+: file .*pool_stop_unlocked\.c, line 57\.
#   hit Breakpoint 1, main \(\) at .*pool_stop_unlocked\.c:57
break pool_stop_unlocked.c:57
continue
#   Hardware watchpoint 2: -location p->stop
delete 1
watch -l p->stop

#       9  T1   load p->pending \(8 bytes\) -> 1
#   Watchpoint 2: T0 wrote p->stop \(4 bytes at 0x[0-9a-f]+\) at pool_stop at pool_stop_unlocked\.c:49.*, step 15
#   Thread 1 "T0 [^"]*" hit Hardware watchpoint 2: -location p->stop
#   Old value = 0
#   New value = 1
#!  T1 [^\n]*hit Hardware watchpoint
continue

detach

# `next` of a blocked thread returns (issue 25, item 6), on the recorded
# deadlock of samples/pool_stop_unlocked, run by gdb_path.sh. T0 creates T1
# and takes p->lock; T1 starts and is then blocked in its own
# pthread_mutex_lock(&p->lock). With scheduler-locking on, gdb may not run
# T0 for it: one SIGINT stop saying why. With it off (gdb's default),
# `next` lets T0 run until it unlocks, then T1 takes the lock: gdb's `next`
# ends on line 24.

set pagination off
set confirm off

#       1  T0   pthread_create -> T1
#       2  T0   pthread_mutex_lock
stepi
stepi
#       3  T1   starts
#   in worker .* at .*pool_stop_unlocked\.c:22
python
for t in gdb.selected_inferior().threads():
    if t.name.startswith("T1 "):
        t.switch()
end
stepi

#   ctrl: T1 cannot perform step 4: blocked in mutex_lock .*(waits for T0).*the other threads may not run for it
#   received signal SIGINT
set scheduler-locking on
next

#   \(T1 cannot go yet: blocked in mutex_lock .*; the other threads run until it can\)
#       4  T0   load
#   pthread_mutex_unlock
#   T1   pthread_mutex_lock
#   ^24	
set scheduler-locking off
next

detach

# bench/breakdown.sh, pass 2 over `perf script --show-task-events -F
# comm,pid,tid,ip,sym,dso` of a `perf record -a -g`: prints
# "role<TAB>activity<TAB>samples" for the samples of ctrl's process tree
# (-v ctrl: ctrl's pid, -v server: the fork server's, -v bin: the program's
# file name). Roles: ctrl, fork server, execution (the fork server's
# descendants), other of the run (ctrl's other children). Activity: the
# first kernel function on the call chain that names one, else where the
# sampled user instruction is.
BEGIN { role[ctrl] = "ctrl"; OFS = "\t" }

function kernel_activity(chain, r, wrapper) {
  if (chain ~ / (copy_process|kernel_clone|__do_sys_clone3?) /)
    return r == "execution" ? "thread creation (clone)" : "fork (copy_process)"
  if (chain ~ / (exc_page_fault|asm_exc_page_fault|handle_mm_fault) /) return "page faults"
  if (chain ~ / (do_exit|do_group_exit|exit_mmap|mmput) /) return "exit (do_exit, exit_mmap)"
  # The fork server reaping an execution: release_task drops the /proc
  # dentries of its pid.
  if (chain ~ / (release_task) /) return "wait4: reaping (release_task)"
  if (chain ~ / (do_futex|__x64_sys_futex|futex_wait|futex_wake) /) return "futex"
  if (chain ~ / (do_sched_yield|__x64_sys_sched_yield) / || wrapper == "sched_yield") return "sched_yield"
  if (chain ~ / (do_wait|kernel_waitid|__do_sys_wait4|kernel_wait4) /) return "wait4 (nothing to reap)"
  if (chain ~ / (do_sys_poll|do_poll|__x64_sys_ppoll|__x64_sys_poll|signalfd_read|do_epoll_wait) /) return "poll, signalfd"
  if (chain ~ / (unix_stream_sendmsg|unix_stream_recvmsg|sock_sendmsg|sock_recvmsg|____sys_sendmsg|____sys_recvmsg|__sys_sendto|__sys_recvfrom|sock_write_iter|sock_read_iter) /)
    return "socket messages"
  if (chain ~ / (proc_[a-z0-9_.]*|seq_read[a-z_]*|do_task_stat|pid_revalidate) /) return "/proc reads"
  if (chain ~ / (ptrace|__x64_sys_ptrace) /) return "ptrace"
  if (chain ~ / (bprm_execve|do_execveat_common|load_elf_binary) /) return "exec"
  # ctrl opens, reads and closes no file per execution but HangWatch's
  # /proc/PID/task/TID/{stat,schedstat,syscall} (the kernel side of the open
  # is mostly path lookup and the close a deferred fput).
  if (r == "ctrl" && chain ~ / (do_syscall_64) / && wrapper ~ /^(libc_open|open64|close|close_nocancel|read|fstat|fstatat64)$/)
    return "/proc reads"
  # Other system calls, named by the user function that made them.
  if (chain ~ / (do_syscall_64) /) return "other system calls (" (wrapper == "" ? "?" : wrapper) ")"
  return "other kernel (interrupts, scheduling)"
}

function user_activity(sym, dso, r) {
  if (r == "ctrl") {
    if (sym ~ /Dpor|Dependence|VectorClock|SleepSet|Wakeup|Backtrack|Strategy/) return "DPOR analysis (user)"
    if (sym ~ /HangWatch/) return "HangWatch (user)"
    if (dso ~ /protobuf/ || sym ~ /Framing|Channel|proto::/) return "messages: protobuf, framing (user)"
    if (sym ~ /^(__)?mem(cpy|move|set)|memcpy|memmove/) return "memcpy, memmove, memset: event copies (user)"
    if (sym ~ /malloc|free|operator new|operator delete|_int_|tcache/) return "malloc, free (user)"
    if (dso ~ /\/ctrl$/) return "other ctrl code (user)"
    return "other libraries (user)"
  }
  if (dso ~ /libctrl-agent/) return "agent (user)"
  if (dso ~ /libc\.so/) return "libc (user)"
  if (dso ~ /ld-linux/) return "dynamic loader (user)"
  if (dso ~ /libatomic/ || substr(dso, length(dso) - length(bin) + 1) == bin) return "program and libatomic (user)"
  return "other (user)"
}

function flush_sample(   r, i, k, w) {
  if (pid == "" || !(pid in role) || role[pid] == "") { pid = ""; n = 0; return }
  r = role[pid]
  k = " "
  w = ""
  for (i = 1; i <= n; i++)
    if (dsos[i] == "[kernel.kallsyms]") k = k syms[i] " "
    else if (w == "") w = syms[i] == "[unknown]" ? "?" : syms[i]
  sub(/^__GI_/, "", w)
  sub(/^__/, "", w)
  sub(/@.*/, "", w)
  if (n == 0) a = "unknown"
  else if (dsos[1] == "[kernel.kallsyms]") a = kernel_activity(k, r, w)
  else a = user_activity(syms[1], dsos[1], r)
  count[r OFS a]++
  pid = ""; n = 0
}

/PERF_RECORD_FORK\(/ {
  flush_sample()
  s = substr($0, index($0, "PERF_RECORD_FORK("))
  gsub(/[^0-9]+/, " ", s)
  split(s, f, " ")
  if (f[1] != f[2] || f[1] == ctrl) next
  p = f[3]
  if (!(p in role) || role[p] == "") role[f[1]] = ""
  else if (f[1] == server) role[f[1]] = "fork server"
  else if (role[p] == "fork server" || role[p] == "execution") role[f[1]] = "execution"
  else role[f[1]] = "other of the run"
  next
}
/PERF_RECORD/ { flush_sample(); next }
/^\t/ {
  # "\t<address> <symbol> (<dso>)": the symbol may hold spaces.
  line = $0
  sub(/^[ \t]*[0-9a-f]+ /, "", line)
  d = line; sub(/.*\(/, "", d); sub(/\)$/, "", d)
  sub(/ \([^(]*\)$/, "", line)
  n++; syms[n] = line; dsos[n] = d
  next
}
/^$/ { flush_sample(); next }
{
  flush_sample()
  for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { split($i, f, "/"); pid = f[1]; break }
}
END {
  flush_sample()
  for (k in count) print k, count[k]
}

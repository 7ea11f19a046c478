# bench/breakdown.sh, pass 1 over `perf script --show-task-events`: prints
# the pid of the fork server, the process ctrl started that executed the
# program (-v ctrl: ctrl's pid, -v bin: the program's file name); failing
# that, the process of ctrl's tree that forked the most processes. Fork
# records come in time order; a pid reused by a process outside the tree
# leaves it.
BEGIN { ours[ctrl] = 1 }
/PERF_RECORD_FORK\(/ {
  s = substr($0, index($0, "PERF_RECORD_FORK("))
  gsub(/[^0-9]+/, " ", s)
  split(s, f, " ")  # child pid, child tid, parent pid, parent tid
  if (f[1] != f[2] || f[1] == ctrl) next  # a thread, or perf starting ctrl
  ours[f[1]] = (f[3] in ours) && ours[f[3]]
  parent[f[1]] = f[3]
  if (ours[f[1]]) children[f[3]]++
  next
}
/PERF_RECORD_COMM exec: / && exec_server == "" {
  # "... PERF_RECORD_COMM exec: NAME:PID/TID"; the kernel keeps 15 bytes of a name.
  s = substr($0, index($0, "exec: ") + 6)
  name = s; sub(/:[0-9]+\/[0-9]+$/, "", name)
  p = s; sub(/.*:/, "", p); sub(/\/.*/, "", p)
  if (ours[p] && parent[p] == ctrl && name == substr(bin, 1, 15)) exec_server = p
}
END {
  if (exec_server != "") { print exec_server; exit }
  for (p in children) if (children[p] > best) { best = children[p]; server = p }
  print server
}

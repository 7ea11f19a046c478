# bench/breakdown.sh, pass 1 over `perf script --show-task-events`: prints
# the pid of the fork server, the process of ctrl's tree (ctrl's pid in
# -v ctrl) that forked the most processes. Fork records come in time order;
# a pid reused by a process outside the tree leaves it.
BEGIN { ours[ctrl] = 1 }
/PERF_RECORD_FORK\(/ {
  s = substr($0, index($0, "PERF_RECORD_FORK("))
  gsub(/[^0-9]+/, " ", s)
  split(s, f, " ")  # child pid, child tid, parent pid, parent tid
  if (f[1] != f[2] || f[1] == ctrl) next  # a thread, or perf starting ctrl
  ours[f[1]] = (f[3] in ours) && ours[f[3]]
  if (ours[f[1]]) children[f[3]]++
}
END {
  for (p in children) if (children[p] > best) { best = children[p]; server = p }
  print server
}

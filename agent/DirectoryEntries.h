// Walks a directory with getdents64 straight from the kernel: no heap and no
// stdio (opendir allocates), so the paths that must leave the program's heap
// as it was (the file journal, the checkpoint's descriptor scan) can use it.
#pragma once

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace ctrl::agent {

// Calls f(name) for every entry of the open directory `dir` but "." and "..".
template <typename F>
void for_each_entry(int dir, F&& f) {
  alignas(8) char buf[2048];
  for (;;) {
    long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) return;
    for (long at = 0; at < n;) {
      auto* d = reinterpret_cast<struct dirent64*>(buf + at);
      at += d->d_reclen;
      if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0) f(d->d_name);
    }
  }
}

}  // namespace ctrl::agent

// Who is at the other end of a loopback TCP connection: the gdb server
// listens on 127.0.0.1, which every local user can reach, so it serves
// only connections whose socket belongs to ctrl's own user (issue 26).
//
// gdb 13 can connect to a Unix socket (`target remote /path`), but the
// documented and tested way in is `target remote :PORT`; a TCP connection
// carries no credentials (SO_PEERCRED is for Unix sockets), so the owner
// is read from the kernel's socket table, /proc/net/tcp, whose line for
// the peer's end (its local address is our peer address, its remote
// address ours) names the uid that created that socket.
//
// Invariant: nullopt whenever the owner cannot be established (the peer
// already gone, not IPv4, no /proc): the caller refuses then, it never
// guesses.
#pragma once

#include <sys/types.h>

#include <optional>

namespace ctrl {

std::optional<uid_t> tcp_peer_uid(int connected_fd);

}  // namespace ctrl

#include "gdb/PeerOwner.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace ctrl {

namespace {

// An address as /proc/net/tcp prints it: the raw 32-bit value in hex (so
// 127.0.0.1 is 0100007F on x86-64), a colon, the port in host order.
std::string proc_address(const sockaddr_in& a) {
  char text[16];
  std::snprintf(text, sizeof text, "%08X:%04X", static_cast<unsigned>(a.sin_addr.s_addr),
                static_cast<unsigned>(ntohs(a.sin_port)));
  return text;
}

}  // namespace

std::optional<uid_t> tcp_peer_uid(int connected_fd) {
  sockaddr_in ours{}, theirs{};
  socklen_t ours_length = sizeof ours, theirs_length = sizeof theirs;
  if (getsockname(connected_fd, reinterpret_cast<sockaddr*>(&ours), &ours_length) != 0 ||
      getpeername(connected_fd, reinterpret_cast<sockaddr*>(&theirs), &theirs_length) != 0 ||
      ours.sin_family != AF_INET || theirs.sin_family != AF_INET)
    return std::nullopt;
  const std::string want_local = proc_address(theirs), want_remote = proc_address(ours);
  std::ifstream table("/proc/net/tcp");
  std::string line;
  std::getline(table, line);  // the header
  while (std::getline(table, line)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid ...
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits;
    long long uid = -1;
    if (!(fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid)) continue;
    if (local == want_local && remote == want_remote && uid >= 0) return static_cast<uid_t>(uid);
  }
  return std::nullopt;
}

}  // namespace ctrl

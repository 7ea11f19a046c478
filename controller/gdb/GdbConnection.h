// The byte level of gdb's remote serial protocol on one stream socket:
// framing ($payload#cs), checksums, acknowledgements (+/-) until
// QStartNoAckMode, escapes (0x7d), run-length decoding, and the interrupt
// byte (0x03). It knows packets, never what they mean: GdbServer does.
//
// Invariants:
//  - receive() hands out each well-formed packet's payload once, unescaped
//    and run-length decoded, in the order gdb sent them. A packet with a bad
//    checksum is nacked (-) while acks are on, so gdb sends it again; a
//    malformed one (bad checksum characters, bad escape or run length,
//    longer than kMaxPacket, or a bad checksum without acks) gets one line
//    on stderr and the reply E01, and reading goes on.
//  - An interrupt byte outside a packet is remembered until
//    poll_interrupt() or receive() reports it, even when it arrived while
//    send() waited for an ack or while poll_interrupt() looked ahead.
//  - send() escapes $, #, } and * in what it sends, so any bytes can be a
//    payload (qXfer documents, O packets).
//  - The connection owns its socket and closes it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace ctrl {

class GdbConnection {
 public:
  // Longest payload accepted, escaped; gdb is told PacketSize below it.
  static constexpr size_t kMaxPacket = 1 << 20;

  // A socket listening on 127.0.0.1:`port` (0: any free port; the port
  // taken is returned in `bound_port`). Throws UsageError with one line
  // when the port cannot be taken.
  static int listen_on(uint16_t port, uint16_t& bound_port);
  // Waits for one client of ctrl's own user on `listen_fd`, then closes
  // `listen_fd`. A connection from another user (PeerOwner.h) is closed
  // with one line on stderr and the wait goes on. Returns -1 when `stop`
  // (asked every kStopCheckMs while waiting) says so.
  static int accept_one(int listen_fd, const std::function<bool()>& stop = {});
  static constexpr int kStopCheckMs = 250;
  // True when `fd`'s peer socket belongs to ctrl's effective uid; else says
  // why on stderr.
  static bool own_user(int fd);

  // Takes `fd`, a connected stream socket. `log`, when not null, gets one
  // line per packet in each direction.
  explicit GdbConnection(int fd, std::FILE* log = nullptr);
  ~GdbConnection();
  GdbConnection(const GdbConnection&) = delete;
  GdbConnection& operator=(const GdbConnection&) = delete;

  struct Incoming {
    enum class Kind { Packet, Interrupt, Closed } kind = Kind::Closed;
    std::string payload;  // Packet: unescaped, run-length decoded
  };
  // Blocks until a packet, an interrupt byte or the end of the connection.
  Incoming receive();

  // Looks at what has arrived without blocking: true (and forgets it) when
  // an interrupt byte came outside a packet.
  bool poll_interrupt();

  // Sends one packet and, while acks are on, waits for gdb's + (sending
  // again on -). Returns false when the connection is gone.
  bool send(std::string_view payload);

  // From now on neither side acknowledges (after replying OK to
  // QStartNoAckMode; the OK itself is still acknowledged).
  void disable_acks() { acks_ = false; }
  bool acks() const { return acks_; }
  bool closed() const { return closed_; }
  // While receive() or send() wait for gdb, `stop` is asked every
  // kStopCheckMs; when it says so they act as if gdb had hung up (so that a
  // Ctrl-C of ctrl ends a session whose gdb is silent).
  void set_stop_check(std::function<bool()> stop) { stop_ = std::move(stop); }

 private:
  // Reads what the socket has into in_; blocks when `block`. False at the
  // end of the connection (or, non-blocking, when nothing came).
  bool fill(bool block);
  // Takes interrupt bytes and stray bytes (acks, noise) off the front of in_
  // so that it starts with '$' or is empty.
  void skip_to_packet();
  bool write_all(std::string_view bytes);
  // Decodes the escaped, run-length encoded text between $ and #.
  static bool decode(std::string_view raw, std::string& out, std::string& error);
  void malformed(const std::string& why);

  int fd_ = -1;
  std::FILE* log_ = nullptr;
  std::string in_;
  bool acks_ = true;
  bool closed_ = false;
  bool interrupt_pending_ = false;
  std::function<bool()> stop_;
};

}  // namespace ctrl

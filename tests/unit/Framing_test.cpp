// The control channel: protobuf messages framed on a stream socket.
#include "Framing.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include "control.pb.h"

using namespace ctrl;

namespace {

struct SocketPair {
  int fd[2];
  SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0); }
  ~SocketPair() {
    close(fd[0]);
    if (fd[1] >= 0) close(fd[1]);
  }
};

TEST(Framing, EveryControlMessageRoundTrips) {
  SocketPair s;
  proto::ControlMessage hello;
  hello.mutable_hello()->set_protocol_version(1);
  hello.mutable_hello()->set_agent_version("0.1.0");
  hello.mutable_hello()->set_pid(1234);
  hello.mutable_hello()->set_executable("/bin/prog");
  proto::ControlMessage ready;
  ready.mutable_checkpoint_ready()->set_pid(1234);
  ready.mutable_checkpoint_ready()->set_site(0x401000);
  proto::ControlMessage run;
  run.mutable_run()->set_execution(77);
  proto::ControlMessage started;
  started.mutable_started()->set_pid(99);
  proto::ControlMessage stop;
  stop.mutable_stop();
  proto::ControlMessage error;
  error.mutable_error()->set_message("no");
  for (const auto* m : {&hello, &ready, &run, &started, &stop, &error})
    ASSERT_TRUE(framing::send_message(s.fd[0], *m));
  for (const auto* m : {&hello, &ready, &run, &started, &stop, &error}) {
    proto::ControlMessage got;
    ASSERT_TRUE(framing::receive_message(s.fd[1], got));
    EXPECT_EQ(got.SerializeAsString(), m->SerializeAsString());
    EXPECT_EQ(got.body_case(), m->body_case());
  }
  proto::ControlMessage got;
  EXPECT_EQ(got.body_case(), proto::ControlMessage::BODY_NOT_SET);
}

TEST(Framing, EndOfStreamAndShortFramesAreErrors) {
  SocketPair s;
  const char partial[] = {10, 0, 0, 0, 1, 2};  // promises 10 bytes, sends 2
  ASSERT_EQ(write(s.fd[0], partial, sizeof partial), ssize_t(sizeof partial));
  close(s.fd[0]);
  s.fd[0] = dup(s.fd[1]);  // keep the destructor simple
  proto::ControlMessage got;
  EXPECT_FALSE(framing::receive_message(s.fd[1], got));
}

TEST(Framing, OversizedLengthIsRefusedWithoutReadingIt) {
  SocketPair s;
  const unsigned char huge[] = {0xff, 0xff, 0xff, 0x7f};
  ASSERT_EQ(write(s.fd[0], huge, sizeof huge), ssize_t(sizeof huge));
  proto::ControlMessage got;
  EXPECT_FALSE(framing::receive_message(s.fd[1], got));
}

}  // namespace

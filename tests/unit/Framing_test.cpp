// The control channel: protobuf messages framed on a stream socket.
#include "Framing.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <new>
#include <string>

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
  for (const auto* m : {&hello, &ready, &run, &started, &stop, &error}) ASSERT_TRUE(framing::send_message(s.fd[0], *m));
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

// Heap allocations through operator new (std::string's) on this thread.
thread_local uint64_t t_allocations = 0;

// The agent sends messages inside the program: a frame may not use the
// program's heap, whose state must not depend on what a message holds
// (issue 22, item 11: a pid of 16384 and up is a byte longer as a varint, a
// frame a byte longer took a heap chunk 16 bytes larger, and every later
// heap address moved by 16 bytes between a recording and its replay).
TEST(Framing, SmallFramesUseNoHeap) {
  SocketPair s;
  proto::ControlMessage hello;
  hello.mutable_hello()->set_executable(std::string(200, 'x'));
  hello.mutable_hello()->set_pid(16384);
  uint64_t before = t_allocations;
  ASSERT_TRUE(framing::send_message(s.fd[1], hello));
  EXPECT_EQ(t_allocations - before, 0u) << "send_message allocated";
}

}  // namespace

void* operator new(size_t size) {
  ++t_allocations;
  if (void* p = malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { free(p); }
void operator delete(void* p, size_t) noexcept { free(p); }

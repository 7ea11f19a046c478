// Where libc keeps the tid (agent/TidWord.h): a chance match of the tid in
// a descriptor must not be taken for the tid word.
#include "TidWord.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace ctrl::agent::tid_word {
namespace {

constexpr int kTidOffset = 0x2d0;  // glibc 2.36 on x86-64

// A descriptor as glibc lays it out: pointers to itself at 0 and 0x10.
struct Descriptor {
  alignas(64) char bytes[kScan] = {};
  explicit Descriptor(int tid) {
    uint64_t self = reinterpret_cast<uint64_t>(bytes);
    memcpy(bytes, &self, 8);
    memcpy(bytes + 0x10, &self, 8);
    put(kTidOffset, tid);
  }
  void put(int off, int v) { memcpy(bytes + off, &v, 4); }
  int high_half() const { return int(reinterpret_cast<uint64_t>(bytes) >> 32); }
};

TEST(TidWord, FindsTheTidWord) {
  Descriptor d(4242);
  Candidates c = find(d.bytes, 4242);
  ASSERT_EQ(c.count, 1);
  EXPECT_EQ(c.offset[0], kTidOffset);
}

// The pid equal to the top of the descriptor's address (pid 32767 against
// 0x7fff'xxxxxxxx): the halves of the pointers to itself are not the tid.
TEST(TidWord, SkipsTheHighHalfOfPointersToItself) {
  Descriptor d(0);
  int tid = d.high_half();
  d.put(kTidOffset, tid);
  Candidates c = find(d.bytes, tid);
  ASSERT_EQ(c.count, 1);
  EXPECT_EQ(c.offset[0], kTidOffset);
}

// Any other word may hold the value by chance: other threads decide.
TEST(TidWord, OtherThreadsConfirmTheOffset) {
  Descriptor main_thread(777);
  main_thread.put(0x100, 777);
  Candidates c = find(main_thread.bytes, 777);
  ASSERT_EQ(c.count, 2);
  EXPECT_EQ(c.offset[0], 0x100);
  Descriptor a(778), b(779);
  const char* pds[] = {a.bytes, b.bytes};
  int tids[] = {778, 779};
  EXPECT_EQ(confirm(c, pds, tids, 2), kTidOffset);
  int wrong[] = {778, 780};
  EXPECT_EQ(confirm(c, pds, wrong, 2), -1);
}

}  // namespace
}  // namespace ctrl::agent::tid_word

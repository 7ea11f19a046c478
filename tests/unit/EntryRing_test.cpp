// The store buffers' fixed FIFO: order across the wrap, erasing in the
// middle (a PSO flush), reverse order (a switch-out), and clear().
#include "EntryRing.h"

#include <gtest/gtest.h>

#include <vector>

namespace ctrl::agent {
namespace {

struct Item {
  int v = 7;  // value-initialised on emplace_back
  int pad[3];
};

template <class Ring>
std::vector<int> forward(const Ring& r) {
  std::vector<int> out;
  for (const Item& i : r) out.push_back(i.v);
  return out;
}

template <class Ring>
std::vector<int> backward(const Ring& r) {
  std::vector<int> out;
  for (auto it = r.rbegin(); it != r.rend(); ++it) out.push_back(it->v);
  return out;
}

TEST(EntryRing, KeepsFifoOrderAcrossTheWrap) {
  EntryRing<Item, 4> r;
  EXPECT_TRUE(r.empty());
  int next = 0;
  std::vector<int> expected;
  for (int round = 0; round < 10; ++round) {
    while (r.size() < 3) {
      Item& i = r.emplace_back();
      EXPECT_EQ(i.v, 7);
      EXPECT_EQ(i.pad[0], 0);
      i.v = next;
      expected.push_back(next++);
    }
    EXPECT_EQ(r.front().v, expected.front());
    EXPECT_EQ(r.back().v, expected.back());
    r.erase(r.begin());
    expected.erase(expected.begin());
    EXPECT_EQ(forward(r), expected);
  }
  EXPECT_EQ(r.size(), 2u);
}

TEST(EntryRing, ErasesInTheMiddleKeepingTheOthersOrder) {
  EntryRing<Item, 4> r;
  for (int v = 0; v < 3; ++v) r.emplace_back().v = v;
  r.erase(r.begin());  // head moves: the next three wrap
  for (int v = 3; v < 5; ++v) r.emplace_back().v = v;
  EXPECT_EQ(forward(r), (std::vector<int>{1, 2, 3, 4}));
  auto it = r.begin();
  ++it;
  ++it;
  r.erase(it);
  EXPECT_EQ(forward(r), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(backward(r), (std::vector<int>{4, 2, 1}));
  it = r.begin();
  ++it;
  ++it;
  r.erase(it);  // the newest
  EXPECT_EQ(forward(r), (std::vector<int>{1, 2}));
  EXPECT_EQ(r.back().v, 2);
}

TEST(EntryRing, ClearStartsAgainAtTheFirstSlot) {
  EntryRing<Item, 4> r;
  for (int v = 0; v < 3; ++v) r.emplace_back().v = v;
  const Item* first = &r.front();
  r.erase(r.begin());
  r.emplace_back().v = 3;
  r.clear();
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(forward(r), std::vector<int>{});
  EXPECT_EQ(&r.emplace_back(), first);
}

}  // namespace
}  // namespace ctrl::agent

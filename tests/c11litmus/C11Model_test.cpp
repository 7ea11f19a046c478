// The enumerator's axioms on classic tests whose results are known from the
// literature (RC11 paper, CDSChecker paper, the herd C11 catalogue), written
// inline so that a wrong axiom fails here and not only in a suite header.
#include "C11Model.h"

#include <gtest/gtest.h>

#include "Relation.h"

namespace c11litmus {
namespace {

Test parse(const std::string& text) { return parse_litmus("inline", "NAME: T\n" + text); }

bool allows(const std::string& text, Model m, const std::string& outcome) {
  return enumerate(parse(text), m).allowed.count(outcome) > 0;
}

std::string mp(const char* store_flag, const char* load_flag) {
  return std::string("THREAD 0: store x 1 rlx; store y 1 ") + store_flag + "\nTHREAD 1: load r0 y " + load_flag +
         "; load r1 x rlx\n";
}

TEST(C11Model, MessagePassingNeedsReleaseAndAcquire) {
  for (Model m : {Model::RC11, Model::C11}) {
    EXPECT_TRUE(allows(mp("rlx", "rlx"), m, "r0=1 r1=0"));
    EXPECT_TRUE(allows(mp("rel", "rlx"), m, "r0=1 r1=0"));
    EXPECT_TRUE(allows(mp("rlx", "acq"), m, "r0=1 r1=0"));
    EXPECT_FALSE(allows(mp("rel", "acq"), m, "r0=1 r1=0"));
    EXPECT_FALSE(allows(mp("sc", "sc"), m, "r0=1 r1=0"));
  }
  EXPECT_FALSE(allows(mp("rlx", "rlx"), Model::SC, "r0=1 r1=0"));
  EXPECT_EQ(enumerate(parse(mp("rlx", "rlx")), Model::RC11).executions, 4u);
  EXPECT_EQ(enumerate(parse(mp("rel", "acq")), Model::RC11).executions, 3u);
}

TEST(C11Model, FencesSynchronise) {
  std::string both =
      "THREAD 0: store x 1 rlx; fence rel; store y 1 rlx\nTHREAD 1: load r0 y rlx; fence acq; load r1 x rlx\n";
  std::string one = "THREAD 0: store x 1 rlx; fence rel; store y 1 rlx\nTHREAD 1: load r0 y rlx; load r1 x rlx\n";
  std::string mixed = "THREAD 0: store x 1 rlx; store y 1 rel\nTHREAD 1: load r0 y rlx; fence acq; load r1 x rlx\n";
  EXPECT_FALSE(allows(both, Model::RC11, "r0=1 r1=0"));
  EXPECT_TRUE(allows(one, Model::RC11, "r0=1 r1=0"));
  EXPECT_FALSE(allows(mixed, Model::RC11, "r0=1 r1=0"));
}

TEST(C11Model, ReleaseSequenceContinuesThroughRmw) {
  std::string t =
      "THREAD 0: store x 1 rlx; store y 1 rel\nTHREAD 1: fadd r0 y 1 rlx\nTHREAD 2: load r1 y acq; load r2 x rlx\n";
  EXPECT_FALSE(allows(t, Model::RC11, "r0=1 r1=2 r2=0 y=2"));
  EXPECT_TRUE(allows(t, Model::RC11, "r0=1 r1=2 r2=1 y=2"));
  // A plain store of another thread ends it: reading that store does not synchronise with thread 0.
  std::string broken =
      "THREAD 0: store x 1 rlx; store y 1 rel\nTHREAD 1: store y 2 rlx\nTHREAD 2: load r1 y acq; load r2 x rlx\n";
  EXPECT_TRUE(allows(broken, Model::RC11, "r1=2 r2=0 y=2"));
}

std::string sb(const char* st, const char* ld) {
  return std::string("THREAD 0: store x 1 ") + st + "; load r0 y " + ld + "\nTHREAD 1: store y 1 " + st +
         "; load r1 x " + ld + "\n";
}

TEST(C11Model, StoreBufferingNeedsSeqCst) {
  EXPECT_TRUE(allows(sb("rlx", "rlx"), Model::RC11, "r0=0 r1=0"));
  EXPECT_TRUE(allows(sb("rel", "acq"), Model::RC11, "r0=0 r1=0"));
  EXPECT_FALSE(allows(sb("sc", "sc"), Model::RC11, "r0=0 r1=0"));
  EXPECT_FALSE(allows(sb("sc", "sc"), Model::C11, "r0=0 r1=0"));
  EXPECT_FALSE(allows(sb("rlx", "rlx"), Model::SC, "r0=0 r1=0"));
  std::string fences =
      "THREAD 0: store x 1 rlx; fence sc; load r0 y rlx\nTHREAD 1: store y 1 rlx; fence sc; load r1 x rlx\n";
  EXPECT_FALSE(allows(fences, Model::RC11, "r0=0 r1=0"));
  // One seq_cst access against a fence: still forbidden (psc_base with [F^sc];hb?).
  std::string mixed = "THREAD 0: store x 1 sc; load r0 y sc\nTHREAD 1: store y 1 rlx; fence sc; load r1 x rlx\n";
  EXPECT_FALSE(allows(mixed, Model::RC11, "r0=0 r1=0"));
}

TEST(C11Model, LoadBufferingOnlyWithoutNoThinAir) {
  std::string lb = "THREAD 0: load r0 x rlx; store y 1 rlx\nTHREAD 1: load r1 y rlx; store x 1 rlx\n";
  EXPECT_TRUE(allows(lb, Model::C11, "r0=1 r1=1"));
  EXPECT_FALSE(allows(lb, Model::RC11, "r0=1 r1=1"));
  EXPECT_FALSE(allows(lb, Model::SC, "r0=1 r1=1"));
  EXPECT_EQ(enumerate(parse(lb), Model::C11).executions, 4u);
  EXPECT_EQ(enumerate(parse(lb), Model::RC11).executions, 3u);
  std::string lb_ra = "THREAD 0: load r0 x acq; store y 1 rel\nTHREAD 1: load r1 y acq; store x 1 rel\n";
  EXPECT_FALSE(allows(lb_ra, Model::C11, "r0=1 r1=1"));
}

TEST(C11Model, IriwNeedsSeqCst) {
  auto iriw = [](const char* st, const char* ld) {
    return std::string("THREAD 0: store x 1 ") + st + "\nTHREAD 1: store y 1 " + st + "\nTHREAD 2: load r0 x " + ld +
           "; load r1 y " + ld + "\nTHREAD 3: load r2 y " + ld + "; load r3 x " + ld + "\n";
  };
  EXPECT_TRUE(allows(iriw("rel", "acq"), Model::RC11, "r0=1 r1=0 r2=1 r3=0"));
  EXPECT_FALSE(allows(iriw("sc", "sc"), Model::RC11, "r0=1 r1=0 r2=1 r3=0"));
  EXPECT_EQ(enumerate(parse(iriw("sc", "sc")), Model::RC11).executions, 15u);
  EXPECT_EQ(enumerate(parse(iriw("rel", "acq")), Model::RC11).executions, 16u);
  // Relaxed, with seq_cst fences between the readers' loads: forbidden by
  // psc_F (F1 ; hb ; fr ; rf ; hb ; F2 is no psc_base path: scb has no rf).
  std::string fences =
      "THREAD 0: store x 1 rlx\nTHREAD 1: store y 1 rlx\nTHREAD 2: load r0 x rlx; fence sc; load r1 y rlx\n"
      "THREAD 3: load r2 y rlx; fence sc; load r3 x rlx\n";
  EXPECT_FALSE(allows(fences, Model::RC11, "r0=1 r1=0 r2=1 r3=0"));
}

TEST(C11Model, CoherenceHoldsForRelaxed) {
  std::string corr = "THREAD 0: store x 1 rlx\nTHREAD 1: load r0 x rlx; load r1 x rlx\n";
  EXPECT_FALSE(allows(corr, Model::C11, "r0=1 r1=0"));
  std::string coww = "THREAD 0: store x 1 rlx; store x 2 rlx\nTHREAD 1: load r0 x rlx\n";
  for (const char* o : {"r0=0 x=1", "r0=1 x=1", "r0=2 x=1"}) EXPECT_FALSE(allows(coww, Model::C11, o));
  std::string corw = "THREAD 0: load r0 x rlx; store x 1 rlx\nTHREAD 1: store x 2 rlx\n";
  EXPECT_FALSE(allows(corw, Model::C11, "r0=2 x=2"));
  std::string cowr = "THREAD 0: store x 1 rlx; load r0 x rlx\nTHREAD 1: store x 2 rlx\n";
  EXPECT_FALSE(allows(cowr, Model::C11, "r0=2 x=1"));
  EXPECT_FALSE(allows(cowr, Model::C11, "r0=0 x=2"));
}

TEST(C11Model, TwoPlusTwoW) {
  std::string rlx = "THREAD 0: store x 1 rlx; store y 2 rlx\nTHREAD 1: store y 1 rlx; store x 2 rlx\n";
  std::string sc = "THREAD 0: store x 1 sc; store y 2 sc\nTHREAD 1: store y 1 sc; store x 2 sc\n";
  EXPECT_TRUE(allows(rlx, Model::RC11, "x=1 y=1"));
  EXPECT_FALSE(allows(sc, Model::RC11, "x=1 y=1"));
  EXPECT_FALSE(allows(rlx, Model::SC, "x=1 y=1"));
}

TEST(C11Model, ReadModifyWritesAreAtomic) {
  std::string fadd = "THREAD 0: fadd r0 x 1 rlx; fadd r1 x 1 rlx\nTHREAD 1: fadd r2 x 1 rlx; fadd r3 x 1 rlx\n";
  Result r = enumerate(parse(fadd), Model::C11);
  EXPECT_EQ(r.executions, 6u);  // the interleavings of two pairs: 4! / (2! 2!)
  for (const std::string& o : r.allowed) EXPECT_NE(o.find("x=4"), std::string::npos) << o;
  std::string cas = "THREAD 0: cas r0 x 0 1 rlx rlx\nTHREAD 1: cas r1 x 0 2 rlx rlx\n";
  Result c = enumerate(parse(cas), Model::C11);
  EXPECT_EQ(c.allowed, (std::set<std::string>{"r0=0 r1=1 x=1", "r0=2 r1=0 x=2"}));
  EXPECT_EQ(c.executions, 2u);
}

TEST(C11Model, RacesAndUninitialisedLoads) {
  std::string racy = "THREAD 0: store d 1 na; store y 1 rel\nTHREAD 1: load r0 y acq; load r1 d na\n";
  Result r = enumerate(parse(racy), Model::RC11);
  EXPECT_TRUE(r.race);
  EXPECT_EQ(r.race_example, "t0:store d 1 na / t1:load r1 d na");
  std::string ordered = "THREAD 0: store d 1 na; load r0 d na; store y 1 rel\nTHREAD 1: load r1 y acq\n";
  EXPECT_FALSE(enumerate(parse(ordered), Model::C11).race);
  std::string atomics = "THREAD 0: store x 1 rlx\nTHREAD 1: store x 2 rlx\n";
  EXPECT_FALSE(enumerate(parse(atomics), Model::C11).race);
  std::string uninit = "INIT: x=?\nTHREAD 0: store x 1 rlx\nTHREAD 1: load r0 x rlx\n";
  Result u = enumerate(parse(uninit), Model::RC11);
  EXPECT_TRUE(u.uninit);
  EXPECT_EQ(u.allowed, (std::set<std::string>{"r0=1", "r0=?"}));
  // A load after its own thread's store cannot read the missing initial store (CoWR).
  std::string own = "INIT: x=?\nTHREAD 0: store x 1 rlx; load r0 x rlx\n";
  EXPECT_FALSE(enumerate(parse(own), Model::RC11).uninit);
}

TEST(C11Model, CountsDistinctRfMoPairs) {
  // Three writers and a reader, all relaxed and unordered: 3! mo orders,
  // each with 4 sources for the load, all consistent.
  std::string t =
      "THREAD 0: store x 1 rlx\nTHREAD 1: store x 2 rlx\nTHREAD 2: store x 3 rlx\nTHREAD 3: load r0 x rlx\n";
  Result r = enumerate(parse(t), Model::RC11);
  EXPECT_EQ(r.executions, 24u);
  EXPECT_EQ(r.candidates, 24u);
  // Under SC too: the load can sit anywhere in each of the 6 store orders.
  EXPECT_EQ(enumerate(parse(t), Model::SC).executions, 24u);
}

TEST(C11Parse, RejectsWhatC11Forbids) {
  EXPECT_THROW(parse("THREAD 0: load r0 x rel\n"), ParseError);
  EXPECT_THROW(parse("THREAD 0: store x 1 acq\n"), ParseError);
  EXPECT_THROW(parse("THREAD 0: cas r0 x 0 1 rlx acq\n"), ParseError);
  EXPECT_THROW(parse("THREAD 0: load r0 x rlx\nTHREAD 1: load r0 y rlx\n"), ParseError);
  EXPECT_THROW(parse("THREAD 0: store x 1 na; store x 2 rlx\n"), ParseError);
  EXPECT_THROW(parse("THREAD 0: fadd r0 x 1 na\n"), ParseError);
  EXPECT_THROW(parse("THREAD 1: store x 1 rlx\n"), ParseError);
}

TEST(Relation, ClosureAndAcyclicity) {
  Relation r(3);
  r.add(0, 1);
  r.add(1, 2);
  EXPECT_TRUE(r.closure().has(0, 2));
  EXPECT_TRUE(r.acyclic());
  r.add(2, 0);
  EXPECT_FALSE(r.acyclic());
  EXPECT_TRUE(r.then(r).has(0, 2));
  EXPECT_TRUE(r.inverse().has(1, 0));
  EXPECT_FALSE(r.restrict(1, ~uint64_t(0)).has(1, 2));
}

}  // namespace
}  // namespace c11litmus

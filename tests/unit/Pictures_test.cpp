// The pictures' parts that need no program: which store each read read
// (controller/reports/ReadsFrom.h), the DOT graph's edges
// (controller/reports/DotGraph.h), and the HTML page's embedding of its data
// (controller/reports/HtmlReport.h).
#include <gtest/gtest.h>

#include "Operation.h"
#include "reports/DotGraph.h"
#include "reports/HtmlReport.h"
#include "reports/ReadsFrom.h"

namespace ctrl {
namespace {

shm::Event event(uint32_t step, uint16_t thread, OpKind kind, uint64_t addr, uint64_t written = 0) {
  shm::Event e{};
  e.step = step;
  e.thread = thread;
  e.kind = uint16_t(kind);
  e.addr = addr;
  e.size = 4;
  e.value_written = written;
  return e;
}

shm::Choice read_from(uint32_t from, uint64_t value) {
  shm::Choice c{};
  c.kind = shm::ChoiceKind::ReadFrom;
  c.from = from;
  c.value = value;
  return c;
}

TEST(ReadsFrom, ChoicesDefaultsAndInitialValues) {
  std::vector<shm::Event> events = {
      event(0, 1, OpKind::AtomicStore, 0x10, 1),  // x = 1
      event(1, 1, OpKind::AtomicStore, 0x10, 2),  // x = 2, placed before x = 1 in mo
      event(2, 2, OpKind::AtomicLoad, 0x10),      // Default: memory holds x = 1
      event(3, 2, OpKind::AtomicLoad, 0x10),      // ReadFrom step 1
      event(4, 2, OpKind::AtomicLoad, 0x20),      // ReadFrom the initial value
      event(5, 2, OpKind::AtomicLoad, 0x30),      // Default, nothing stored: initial
  };
  std::vector<shm::Choice> choices(6, shm::Choice{});
  choices[1].flags = shm::kNotMoLast;
  choices[3] = read_from(1, 2);
  choices[4] = read_from(shm::kFromInit, 0);
  std::vector<ReadFrom> rf = reads_from(events, choices);
  ASSERT_EQ(rf.size(), 4u);
  EXPECT_EQ(rf[0].read, 2u);
  EXPECT_EQ(rf[0].store, 0u);
  EXPECT_EQ(rf[1].store, 1u);
  EXPECT_EQ(rf[2].store, ReadFrom::kInitialValue);
  EXPECT_EQ(rf[3].store, ReadFrom::kInitialValue);
}

TEST(ReadsFrom, PromiseReadsTheLaterStoreOfThePromisingThread) {
  std::vector<shm::Event> events = {
      event(0, 1, OpKind::AtomicLoad, 0x10),
      event(1, 2, OpKind::AtomicStore, 0x10, 5),
      event(2, 3, OpKind::AtomicStore, 0x10, 7),
  };
  std::vector<shm::Choice> choices(1, shm::Choice{});
  choices[0].kind = shm::ChoiceKind::Promise;
  choices[0].from = 3;
  choices[0].value = 7;
  std::vector<ReadFrom> rf = reads_from(events, choices);
  ASSERT_EQ(rf.size(), 1u);
  EXPECT_EQ(rf[0].store, 2u);
}

TEST(ReadsFrom, ReadModifyWriteReadsBeforeItWrites) {
  std::vector<shm::Event> events = {
      event(0, 1, OpKind::AtomicStore, 0x10, 1),
      event(1, 2, OpKind::AtomicRmw, 0x10, 2),
      event(2, 1, OpKind::AtomicLoad, 0x10),
  };
  std::vector<ReadFrom> rf = reads_from(events, {});
  ASSERT_EQ(rf.size(), 2u);
  EXPECT_EQ(rf[0].store, 0u);
  EXPECT_EQ(rf[1].store, 1u);
}

nlohmann::json picture() {
  nlohmann::json j;
  j["program"] = "p";
  j["model"] = "rc11";
  j["bug"] = nullptr;
  j["lanes"] = {{{"thread", 0}, {"name", "T0"}}, {{"thread", 1}, {"name", "T1"}}};
  auto step = [](size_t i, size_t lane, std::string op) {
    return nlohmann::json{{"i", i},   {"step", i + 1}, {"lane", lane},         {"thread", "T" + std::to_string(lane)},
                          {"op", op}, {"source", ""},  {"marks", {"decides"}}, {"kind", "atomic_load"}};
  };
  j["steps"] = {step(0, 0, "a"), step(1, 0, "b \"q\""), step(2, 1, "c"), step(3, 1, "</script><b>")};
  j["pairs"] = {{{"first", 1}, {"second", 3}}};
  j["waits"] = nlohmann::json::array();
  j["rf"] = {{{"read", 3}, {"store", 1}}, {{"read", 2}, {"store", nullptr}}, {{"read", 9}, {"store", 1}}};
  j["buffers"] = {{{"store", 0}, {"flush", 2}}, {{"store", 1}, {"flush", nullptr}}};
  return j;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(DotGraph, EdgesOfEachKind) {
  std::string dot = dot_graph(picture());
  EXPECT_EQ(count(dot, "subgraph cluster_"), 2u);
  EXPECT_EQ(count(dot, "[class=po]"), 2u);  // s0 -> s1, s2 -> s3
  EXPECT_EQ(count(dot, "[class=rf"), 2u);   // the read of an undrawn step is left out
  EXPECT_EQ(count(dot, "init -> s2"), 1u);
  EXPECT_EQ(count(dot, "s1 -> s3 [class=decides"), 1u);
  EXPECT_EQ(count(dot, "s0 -> s2 [class=flush"), 1u);
  EXPECT_NE(dot.find(R"(b \"q\")"), std::string::npos);  // quotes escaped
}

TEST(HtmlReport, DataCannotEndItsScript) {
  std::string page = html_page(picture());
  EXPECT_EQ(page.find("<b>"), std::string::npos);
  EXPECT_EQ(count(page, "</script>"), 2u);  // the data's and the drawing's
  EXPECT_NE(page.find("\\u003c/script>\\u003cb>"), std::string::npos);
  EXPECT_EQ(page.find("src="), std::string::npos);
}

}  // namespace
}  // namespace ctrl

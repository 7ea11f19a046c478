// C11 (--model c11): execution graphs checked against RC11's axioms without
// no-thin-air (C11Consistency.h), so a relaxed read may read a store later
// in the execution, through a promise (CDSChecker's load buffering).
#include "C11Consistency.h"
#include "ModelAnalysis.h"

namespace ctrl {

namespace {
class C11Analysis final : public ModelAnalysis {
 public:
  shm::MemoryModel id() const override { return shm::MemoryModel::C11; }
  Exploration exploration() const override { return Exploration::Graphs; }
  std::string inconsistency(const ExecutionGraph& g) const override {
    return ctrl::inconsistency(g, shm::MemoryModel::C11);
  }
  bool consistent_last(const ExecutionGraph& g, const HappensBefore& hb) const override {
    return ctrl::consistent_last(g, hb, shm::MemoryModel::C11);
  }
  bool reads_from_later_stores() const override { return true; }
};
constinit const C11Analysis the_model{};
}  // namespace

const ModelAnalysis& c11_analysis() { return the_model; }

}  // namespace ctrl

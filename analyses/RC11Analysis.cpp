// RC11 (--model rc11, GenMC's default): execution graphs checked against
// RC11's axioms (C11Consistency.h), no-thin-air included: po ∪ rf is
// acyclic, so no read reads a store later in the execution.
#include "C11Consistency.h"
#include "ModelAnalysis.h"

namespace ctrl {

namespace {
class RC11Analysis final : public ModelAnalysis {
 public:
  shm::MemoryModel id() const override { return shm::MemoryModel::RC11; }
  Exploration exploration() const override { return Exploration::Graphs; }
  std::string inconsistency(const ExecutionGraph& g) const override {
    return ctrl::inconsistency(g, shm::MemoryModel::RC11);
  }
  bool consistent_last(const ExecutionGraph& g, const HappensBefore& hb) const override {
    return ctrl::consistent_last(g, hb, shm::MemoryModel::RC11);
  }
};
constinit const RC11Analysis the_model{};
}  // namespace

const ModelAnalysis& rc11_analysis() { return the_model; }

}  // namespace ctrl

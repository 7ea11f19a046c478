// Sequential consistency: DPOR over Dependence.h's conflict relation as it
// is (no store buffers, no flush actors).
#include "ModelAnalysis.h"

namespace ctrl {

namespace {
class ScAnalysis final : public ModelAnalysis {
 public:
  shm::MemoryModel id() const override { return shm::MemoryModel::SC; }
  Exploration exploration() const override { return Exploration::Dependence; }
};
constinit const ScAnalysis the_model{};
}  // namespace

const ModelAnalysis& sc_analysis() { return the_model; }

}  // namespace ctrl

// PSO: chronological traces over one store buffer per thread and location
// (StoreBufferAnalysis.h), where an sfence orders the flushes of the stores
// before it ahead of those after it.
#include "StoreBufferAnalysis.h"

namespace ctrl {

namespace {
class PsoAnalysis final : public StoreBufferAnalysis {
 public:
  shm::MemoryModel id() const override { return shm::MemoryModel::PSO; }
  bool sfence_orders_flushes() const override { return true; }
};
constinit const PsoAnalysis the_model{};
}  // namespace

const ModelAnalysis& pso_analysis() { return the_model; }

}  // namespace ctrl

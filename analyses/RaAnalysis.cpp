// Release-acquire (--model ra, issue 23): TRACER's model. Every atomic write
// is a release, every atomic read an acquire (RaSaturation.h's
// as_release_acquire); consistency is per-location acyclicity of
// po ∪ rf ∪ co_x ∪ fr_x, decided by the saturated semantics
// (RaSaturation.h), and executions are explored one per weak trace
// (WeakTraceStrategy.h). The agent follows the same Choices as under c11.
#include "ModelAnalysis.h"

namespace ctrl {

namespace {
class RaAnalysis final : public ModelAnalysis {
 public:
  shm::MemoryModel id() const override { return shm::MemoryModel::RA; }
  Exploration exploration() const override { return Exploration::WeakTraces; }
};
constinit const RaAnalysis the_model{};
}  // namespace

const ModelAnalysis& ra_analysis() { return the_model; }

}  // namespace ctrl

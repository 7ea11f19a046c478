#include "ModelAnalysis.h"

namespace ctrl {

// A model explored by dependence has no graph axioms.
std::string ModelAnalysis::inconsistency(const ExecutionGraph&) const { return {}; }
bool ModelAnalysis::consistent_last(const ExecutionGraph&, const HappensBefore&) const { return true; }

// The models, one file each; adding one adds its line here.
const ModelAnalysis& sc_analysis();
const ModelAnalysis& tso_analysis();
const ModelAnalysis& pso_analysis();
const ModelAnalysis& c11_analysis();
const ModelAnalysis& rc11_analysis();
const ModelAnalysis& ra_analysis();

const ModelAnalysis& model_analysis(shm::MemoryModel model) {
  switch (model) {
    case shm::MemoryModel::SC: break;
    case shm::MemoryModel::TSO: return tso_analysis();
    case shm::MemoryModel::PSO: return pso_analysis();
    case shm::MemoryModel::C11: return c11_analysis();
    case shm::MemoryModel::RC11: return rc11_analysis();
    case shm::MemoryModel::RA: return ra_analysis();
  }
  return sc_analysis();
}

}  // namespace ctrl

#include <stdexcept>

#include "DporStrategy.h"
#include "GraphStrategy.h"
#include "ModelAnalysis.h"
#include "PctStrategy.h"
#include "PreemptionBoundedStrategy.h"
#include "ProbingStrategy.h"
#include "RandomStrategy.h"
#include "ReadsFromStrategy.h"
#include "RoundRobinStrategy.h"
#include "SatStrategy.h"
#include "Strategy.h"
#include "WeakTraceStrategy.h"

namespace ctrl {

std::unique_ptr<Strategy> make_strategy(const std::string& name, uint64_t seed, int preemption_bound,
                                        uint32_t pct_depth, shm::MemoryModel model) {
  const ModelAnalysis& analysis = model_analysis(model);
  // --equivalence rf (issue 23): one execution per reads-from class, SC and TSO.
  if (name == "dpor-rf") {
    if ((model != shm::MemoryModel::SC && model != shm::MemoryModel::TSO) || preemption_bound >= 0)
      throw std::invalid_argument("--equivalence rf explores under --model sc or tso only, without --preemption-bound");
    return std::make_unique<ReadsFromStrategy>(model == shm::MemoryModel::TSO);
  }
  // SAT-directed search (issue 24): sequential consistency and x86-TSO.
  if (name == "sat") {
    if ((model != shm::MemoryModel::SC && model != shm::MemoryModel::TSO) || preemption_bound >= 0)
      throw std::invalid_argument("--strategy sat explores under --model sc or tso only, without --preemption-bound");
    return std::make_unique<SatStrategy>(model == shm::MemoryModel::TSO);
  }
  if (analysis.exploration() == ModelAnalysis::Exploration::Graphs) {
    if (name != "dpor" || preemption_bound >= 0)
      throw std::invalid_argument("--model c11 and rc11 explore with --strategy dpor only (not " + name +
                                  (preemption_bound >= 0 ? " with --preemption-bound" : "") + ")");
    return std::make_unique<GraphStrategy>(analysis);
  }
  if (analysis.exploration() == ModelAnalysis::Exploration::WeakTraces) {
    if (name != "dpor" || preemption_bound >= 0)
      throw std::invalid_argument("--model ra explores with --strategy dpor only (not " + name +
                                  (preemption_bound >= 0 ? " with --preemption-bound" : "") + ")");
    return std::make_unique<WeakTraceStrategy>();
  }
  if (preemption_bound >= 0) {
    if (name.rfind("dpor", 0) != 0)
      throw std::invalid_argument("--preemption-bound goes with the systematic strategy (dpor), not " + name);
    return std::make_unique<PreemptionBoundedStrategy>(uint32_t(preemption_bound));
  }
  if (name == "random") return std::make_unique<RandomStrategy>(seed);
  if (name == "pos") return std::make_unique<RandomStrategy>(seed, shm::TailPolicy::Pos);
  if (name == "pct") return std::make_unique<PctStrategy>(seed, pct_depth);
  if (name == "round-robin") return std::make_unique<RoundRobinStrategy>();
  if (name == "dpor") return std::make_unique<DporStrategy>(false, analysis);
  if (name == "dpor-optimal") return std::make_unique<DporStrategy>(true, analysis);
  if (name == "dpor+probes")
    return std::make_unique<ProbingStrategy>(std::make_unique<DporStrategy>(false, analysis), seed);
  throw std::invalid_argument("unknown strategy '" + name +
                              "' (known: dpor, dpor+probes, dpor-optimal, pct, pos, random, round-robin, sat)");
}

}  // namespace ctrl

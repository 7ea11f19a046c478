#include <stdexcept>

#include "DporStrategy.h"
#include "RandomStrategy.h"
#include "RoundRobinStrategy.h"
#include "Strategy.h"

namespace ctrl {

std::unique_ptr<Strategy> make_strategy(const std::string& name, uint64_t seed) {
  if (name == "random") return std::make_unique<RandomStrategy>(seed);
  if (name == "round-robin") return std::make_unique<RoundRobinStrategy>();
  if (name == "dpor") return std::make_unique<DporStrategy>();
  if (name == "dpor-optimal") return std::make_unique<DporStrategy>(true);
  throw std::invalid_argument("unknown strategy '" + name + "' (known: dpor, dpor-optimal, random, round-robin)");
}

}  // namespace ctrl

#include "parallel/LauncherRank.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace ctrl {

std::optional<int> launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* v = std::getenv(name);
    if (!v || !*v) continue;
    int rank = 0;
    auto [ptr, ec] = std::from_chars(v, v + std::strlen(v), rank);
    if (ec == std::errc() && *ptr == '\0') return rank;
  }
  return std::nullopt;
}

std::vector<std::string> without_launcher_variables(const std::vector<std::string>& env) {
  static constexpr std::string_view kPrefixes[] = {"OMPI_", "PMIX_", "OPAL_", "PRTE_", "ORTE_", "HYDRA_", "PMI_"};
  std::vector<std::string> out;
  for (const auto& e : env) {
    bool launcher = std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                                [&](std::string_view p) { return std::string_view(e).substr(0, p.size()) == p; });
    if (!launcher) out.push_back(e);
  }
  return out;
}

}  // namespace ctrl

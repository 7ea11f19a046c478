// Before MPI starts (--mpi): this process's rank as the launcher set it in
// the environment (mpirun's OMPI_COMM_WORLD_RANK, PMIx's PMIX_RANK, Slurm's
// SLURM_PROCID, MPICH's PMI_RANK), so that a command line every rank
// refuses the same way is refused in one line, by rank 0, the others
// exiting quietly, and that the variables the launcher adds stay out of the
// program's environment.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ctrl {

// Unset when no launcher started this process.
std::optional<int> launcher_rank();
// `env` without the variables MPI launchers add (OMPI_*, PMIX_*, ...): they
// differ between ranks (a rank's number), and a program's stack starts
// after its environment, so the same plan must see the same one on every
// rank (and in a replay without mpirun).
std::vector<std::string> without_launcher_variables(const std::vector<std::string>& env);

}  // namespace ctrl
